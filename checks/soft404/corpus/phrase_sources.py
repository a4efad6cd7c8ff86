"""Harvest translated not-found phrases from real catalogs: Django admin, Wagtail admin, Apache, and servers."""

from __future__ import annotations

import ast
import gettext
import io
import re
from collections.abc import Iterator
from pathlib import Path

import django
from werkzeug.exceptions import NotFound

from checks.soft404.corpus import apache_errors, wheels
from sites.crawler.soft404.phrases import is_unspaced, normalize

DJANGO_ADMIN_LOCALE = Path(django.__file__).parent / "contrib" / "admin" / "locale"
DJANGO_ADMIN_MSGIDS = ("Page not found", "We’re sorry, but the requested page could not be found.")
WAGTAIL_ADMIN_MSGIDS = ("Error 404: Page not found", "Error 404", "The requested page could not be found.")
NGINX_BINARY = Path("/usr/sbin/nginx")

# The four terms Prieto et al. name from their 30-term list (section 4: "urgent", "removed", "error", "404");
# the other 26 are not published. They are no longer in the list (issue 11): single English words that real
# English pages use all the time ("error" on 65 of 149 git-doc pages), so a model that never saw English pages
# took every image-less English page saying "error" for an error page (leave-one-language-out precision 0.716
# with them, 0.998 without, recall 1.000 both; the catalogs' phrases, "error 404" among them, carry the signal).
PAPER_TERMS = ("urgent", "removed", "error", "404")

_PLACEHOLDER_RE = re.compile(r"%\(\w+\)[sdr]|%[sdr]|\{\w*\}")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|[。！？؟।]")
_CLAUSE_RE = re.compile(r"[,;，、،]")
_EDGE_CHARS = " \t\n.,;:!?¡¿\"'“”„«»‘’‚()[]-–—…。、！？؟：“”"


def language_key(locale: str) -> str:
    """Turn a gettext locale name (zh_Hans, pt_BR) into a lower-case BCP 47 tag (zh-hans, pt-br)."""
    return locale.replace("_", "-").lower()


def _long_enough(fragment: str) -> bool:
    # One word alone ("Fehler") is too common in normal pages; two words, or two characters of a script
    # without spaces (見つ), make a phrase.
    if any(is_unspaced(c) for c in fragment):
        return len(fragment) >= 2
    return len(fragment.split()) >= 2


def fragments(message: str) -> Iterator[str]:
    """Yield the message and its placeholder-free sentences and clauses, stripped, normalized and unique."""
    seen: set[str] = set()
    for piece in _PLACEHOLDER_RE.split(message):
        candidates = [piece]
        for sentence in _SENTENCE_RE.split(piece):
            candidates.append(sentence)
            candidates.extend(_CLAUSE_RE.split(sentence))
        for candidate in candidates:
            cleaned = normalize(candidate).strip(_EDGE_CHARS)
            if cleaned and cleaned not in seen and _long_enough(cleaned):
                seen.add(cleaned)
                yield cleaned


def catalog_translations(mo_bytes: bytes, msgids: tuple[str, ...]) -> list[str]:
    catalog = gettext.GNUTranslations(io.BytesIO(mo_bytes))
    return [catalog.gettext(m) for m in msgids if catalog.gettext(m) != m]


def django_admin_phrases(locale_dir: Path = DJANGO_ADMIN_LOCALE) -> dict[str, list[str]]:
    """Return {language: translated admin 404 strings} from Django's compiled catalogs."""
    result = {}
    for mo in sorted(locale_dir.glob("*/LC_MESSAGES/django.mo")):
        texts = catalog_translations(mo.read_bytes(), DJANGO_ADMIN_MSGIDS)
        if texts:
            result[language_key(mo.parts[-3])] = texts
    result["en"] = list(DJANGO_ADMIN_MSGIDS)
    return result


def wagtail_admin_phrases(wheel: Path) -> dict[str, list[str]]:
    """Return {language: translated 404 strings} from the Wagtail admin catalogs inside its wheel."""
    result = {}
    pattern = re.compile(r"^wagtail/admin/locale/([^/]+)/LC_MESSAGES/django\.mo$")
    for member in wheels.members(wheel):
        match = pattern.match(member)
        if match:
            texts = catalog_translations(wheels.read_member(wheel, member), WAGTAIL_ADMIN_MSGIDS)
            if texts:
                result[language_key(match[1])] = texts
    result["en"] = list(WAGTAIL_ADMIN_MSGIDS)
    return result


def apache_phrases() -> dict[str, list[str]]:
    """Return {language: [title, lead sentence]} of Apache's 404 and 410 pages (Debian apache2-data)."""
    result: dict[str, list[str]] = {}
    for status in ("HTTP_NOT_FOUND", "HTTP_GONE"):
        for lang, texts in apache_errors.titles_and_first_sentences(status).items():
            result.setdefault(language_key(lang), []).extend(texts)
    return result


def nginx_titles(binary: Path = NGINX_BINARY) -> list[str]:
    """Return the titles of nginx's built-in 404 and 410 pages, read from the installed binary."""
    data = binary.read_bytes()
    return [m.decode() for m in re.findall(rb"<title>(4(?:04|10) [A-Za-z ]+)</title>", data)]


def english_server_phrases(cache: Path) -> list[str]:
    """Return the English not-found texts of nginx, Werkzeug, sphinx-notfound-page and mkdocs-material."""
    texts = nginx_titles()
    texts += [NotFound().name, NotFound().description]
    notfound = wheels.fetch(*wheels.SPHINX_NOTFOUND_PAGE, cache)
    source = wheels.read_member(notfound, "notfound/extension.py").decode()
    context = re.search(r"default_context = (\{.*?\})\n", source, re.S)
    if context:
        texts += list(ast.literal_eval(context[1]).values())
    material = wheels.fetch(*wheels.MKDOCS_MATERIAL, cache)
    template = wheels.read_member(material, "material/templates/404.html").decode()
    texts += re.findall(r"<h1>([^<]+)</h1>", template)
    # Tags become sentence breaks so "<h1>Page not found</h1> Unfortunately…" splits into two phrases.
    return [part for t in texts for part in re.split(r"<[^>]+>", t) if part.strip()]
