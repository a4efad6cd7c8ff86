"""Render Apache's multilingual error documents (Debian apache2-data) the way mod_include serves them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

APACHE_ERROR_DIR = Path("/usr/share/apache2/error")

_VARIANT_RE = re.compile(
    r"Content-language: (?P<lang>[\w-]+)[ \t]*\n(?:[^\n]*\n)*?Body:(?P<sep>-+[\w-]+--)\n(?P<body>.*?)\n(?P=sep)",
    re.S,
)
_DIRECTIVE_RE = re.compile(r"<!--#(\w+)((?:\s+\w+=\"[^\"]*\")*)\s*-->")
_ATTR_RE = re.compile(r"(\w+)=\"([^\"]*)\"")
_EXPR_RE = re.compile(r"^-(?P<op>[nz]) v\('(?P<var>\w+)'\)$")


@dataclass(frozen=True)
class ErrorDocument:
    status: str  # the file's stem, e.g. "HTTP_NOT_FOUND"
    lang: str
    html: str


def variants(path: Path) -> dict[str, str]:
    """Return the language variants of a type-map `.var` file: {language: SSI body}."""
    text = path.read_text(encoding="utf-8")
    return {m["lang"]: m["body"] for m in _VARIANT_RE.finditer(text)}


def _truth(expr: str, env: dict[str, str]) -> bool:
    match = _EXPR_RE.match(expr.strip())
    if match is None:
        return False  # The regex tests on REDIRECT_URL are not needed to render a 404 body.
    value = env.get(match["var"], "")
    return bool(value) if match["op"] == "n" else not value


def render(body: str, env: dict[str, str], *, base: Path, lang: str, depth: int = 0) -> str:
    """Evaluate the SSI directives (set, echo, include, if/else/endif) of `body` as mod_include would."""
    out: list[str] = []
    active = [True]  # One flag per open #if; text is emitted only when all are true.
    pos = 0
    for match in _DIRECTIVE_RE.finditer(body):
        if all(active):
            out.append(body[pos : match.start()])
        pos = match.end()
        name, attrs = match[1], dict(_ATTR_RE.findall(match[2]))
        if name == "if":
            active.append(_truth(attrs.get("expr", ""), env))
        elif name == "else":
            active[-1] = not active[-1]
        elif name == "endif":
            active.pop()
        elif not all(active):
            continue
        elif name == "set":
            env[attrs["var"]] = attrs["value"]
        elif name == "echo":
            out.append(env.get(attrs["var"], ""))
        elif name == "include" and depth < 4:
            target = (base / attrs["virtual"]).resolve()
            if target.suffix == ".var":
                included = variants(target).get(lang, "")
            else:
                included = target.read_text(encoding="utf-8")
            out.append(render(included, env, base=target.parent, lang=lang, depth=depth + 1))
    if all(active):
        out.append(body[pos:])
    return "".join(out)


def error_documents(
    status: str, *, referer: str = "", directory: Path = APACHE_ERROR_DIR
) -> list[ErrorDocument]:
    """Render every language of one status page (e.g. "HTTP_NOT_FOUND") with a fixed request environment."""
    path = directory / f"{status}.html.var"
    docs = []
    for lang, body in sorted(variants(path).items()):
        env = {
            "CONTENT_LANGUAGE": "",
            "HTTP_REFERER": referer,
            "REDIRECT_STATUS": "404" if status == "HTTP_NOT_FOUND" else "410",
            "REDIRECT_URL": "/missing/page.html",
            "SERVER_ADMIN": "webmaster@localhost",
            "SERVER_NAME": "localhost",
            "SERVER_SOFTWARE": "Apache/2.4 (Debian)",
        }
        html = render(body, env, base=directory, lang=lang)
        docs.append(ErrorDocument(status=status, lang=lang, html=html.strip() + "\n"))
    return docs


def titles_and_first_sentences(status: str, directory: Path = APACHE_ERROR_DIR) -> dict[str, list[str]]:
    """Return {language: [title, first paragraph]} of a status page, the text every variant shows."""
    result: dict[str, list[str]] = {}
    for lang, body in variants(directory / f"{status}.html.var").items():
        title = re.search(r'var="TITLE" value="([^"]*)"', body)
        # The first paragraph is the text between the top include and the first #if.
        lead = re.search(r'include/top.html"\s*-->(.*?)<!--#if', body, re.S)
        texts = [title[1] if title else "", re.sub(r"<[^>]+>|&nbsp;", " ", lead[1]) if lead else ""]
        result[lang] = [" ".join(t.split()) for t in texts if t.strip()]
    return result
