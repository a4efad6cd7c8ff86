"""A downloaded HTML page as a page finder reads it, in one pass over the parsed tree: its title, its
visible text, and each link with its text, the text of the block around it and its URL's words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import lxml.etree

from sites.crawler.urls import normalize_url

from .doxygenmenu import MENU_SCRIPT as DOXYGEN_MENU
from .mkdocsindex import INDEX_NAME as MKDOCS_INDEX
from .symbolindex import SymbolSource, symbol_source
from .text import camel_parts, terms, url_terms

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})
_FRAMES = frozenset({"frame", "iframe"})
# The innermost of these around a link gives its surrounding text (Pant and Srinivasan's link context).
_BLOCKS = frozenset(
    {
        "p",
        "li",
        "td",
        "th",
        "dd",
        "dt",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "caption",
        "figcaption",
        "blockquote",
        "label",
    }
)
MAX_CONTEXT_CHARS = 300
# mdBook's pages name the search index their search box loads in an inline script (mdBook >= 0.4.4x:
# `window.path_to_searchindex_js = "searchindex-HASH.js"`); older books load `searcher.js`, which fetches
# `path_to_root + "searchindex.json"`.
_MDBOOK_INDEX = re.compile(r"""path_to_searchindex_js\s*=\s*["']([^"'\s]{1,300})["']""")
_MDBOOK_ROOT = re.compile(r"""path_to_root\s*=\s*["']([^"'\s]{0,300})["']""")
# Sphinx before 2.0 had its search page load the index from an inline script, not a <script src>.
_SPHINX_LOAD_INDEX = re.compile(r"""Search\.loadIndex\(\s*["']([^"'\s]{1,300})["']""")
MAX_INLINE_SCRIPT = 2_000  # longer inline scripts are code, not the few lines that name the index
# MkDocs' own themes load the search plugin's `search/main.js`, beside the index; Material for MkDocs names the
# site's root in its `__config` script (JSON: `"base": "..", … "search": "…/workers/search.HASH.min.js"`; its
# versions 5 to 7 in a script calling `initialize({base: "..", … search: …})`), and its search worker loads
# the index from there. The config holds the theme's translations: it may be longer than a few lines.
_MKDOCS_SEARCH_SCRIPT = "/search/main.js"
_MATERIAL_BASE = re.compile(r"""["']?\bbase["']?\s*:\s*["']([^"'\s]{0,300})["']""")
_MATERIAL_WORKER = re.compile(r"""["'][^"'\s]{0,300}/workers?/search[^"'\s/]{0,100}\.js["']""")
MAX_CONFIG_SCRIPT = 20_000
# Links to these are not pages: downloading them would spend the budget on nothing a reader wants.
NOT_PAGES = (
    ".txt",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".css",
    ".js",
    ".zip",
    ".gz",
    ".bz2",
    ".xz",
    ".tar",
    ".tgz",
    ".tbz2",
    ".7z",
    ".rar",
    ".deb",
    ".rpm",
    ".exe",
    ".dmg",
    ".pdf",
    ".ps",
    ".mp3",
    ".mp4",
    ".webp",
    ".epub",
    ".ico",
    ".woff",
    ".woff2",
    ".ttf",
    ".json",
    ".xml",
    ".rst",
    ".py",
)


@dataclass
class PageLink:
    url: str
    text: str
    context: str = ""
    # The link's title attribute, shown when the pointer rests on it: Sphinx's and DocBook's "previous" /
    # "next" / "up" links name their page there ("Many-to-one relationships"), as many navigation links do.
    title: str = ""


@dataclass
class ReadPage:
    title: str = ""
    # The page's own heading (its first <h1>, or Doxygen's title block): where a generator gives many pages one
    # <title> ("Eigen: Member List"), the heading names the thing ("Eigen::Select<…> Member List").
    heading: str = ""
    text: str = ""
    own_text: str = ""  # the text outside links: what the page says itself, not what it lists
    links: list[PageLink] = field(default_factory=list)
    search_forms: list[tuple[str, str]] = field(default_factory=list)  # (action URL, text input name)
    search_pages: list[str] = field(default_factory=list)  # <link rel="search" href>: the site's search page
    # <script src> (and an older Sphinx search page's Search.loadIndex(…)), resolved: where its index is
    scripts: list[str] = field(default_factory=list)
    search_index: str = ""  # the search index this page's own search box loads (mdBook, MkDocs), resolved
    symbol_source: SymbolSource | None = None  # where its search box finds its names (Javadoc, Doxygen)


def is_page_url(url: str) -> bool:
    path = url.split("?", 1)[0].lower()
    return not path.endswith(NOT_PAGES)


def read_page(root, *, url: str) -> ReadPage:
    """Title, text, links and GET search forms of a parsed page (lxml.etree root)."""
    page = ReadPage()
    title: list[str] = []
    body: list[str] = []
    own: list[str] = []
    skip = 0
    anchor: list[str] | None = None
    anchor_href = ""
    anchor_element = None
    blocks: list[tuple[list[str], list[PageLink]]] = []
    form: tuple[str, str] | None = None
    inline: list[str] = []
    heading: list[str] = []
    heading_element = None  # the heading being read; `heading` holds its text once it is done
    for event, element in lxml.etree.iterwalk(root, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        if event == "start":
            if (
                tag == "link"
                and "search" in (element.get("rel") or "").lower().split()
                and element.get("href")
            ):
                found = normalize_url(element.get("href", ""), url)
                if found:
                    page.search_pages.append(found)
            elif tag == "script" and element.get("src"):
                found = normalize_url(element.get("src", ""), url)
                if found:
                    page.scripts.append(found)
            elif tag == "script" and element.text and len(element.text) <= MAX_INLINE_SCRIPT:
                inline.append(element.text)
            elif (
                tag == "script"
                and element.get("id") == "__config"
                and len(element.text or "") <= MAX_CONFIG_SCRIPT
            ):
                inline.append(element.text or "")
            if tag in _SKIP and tag != "head":
                skip += 1
            elif tag == "title" and element.text:
                title.append(element.text)
            elif tag == "a" and element.get("href"):
                if anchor is not None:  # an anchor inside an unclosed one: the outer one ends here
                    _emit(page, blocks, anchor, anchor_href, url, anchor_element)
                anchor, anchor_href, anchor_element = [], element.get("href", ""), element
            elif tag in _FRAMES and element.get("src"):
                # A frameset page (Javadoc before 9) shows its pages in frames and nothing else: the browser's
                # HTML parser drops its <noframes> links, so the frames are the only way on.
                frame_text = element.get("title") or element.get("name") or ""
                _emit(page, blocks, [frame_text], element.get("src", ""), url, element)
            elif tag in _BLOCKS:
                blocks.append(([], []))
            elif tag == "form" and (element.get("method") or "get").lower() == "get":
                form = (normalize_url(element.get("action") or url, url) or "", "")
            elif tag == "input" and form is not None and not form[1]:
                if (element.get("type") or "text").lower() in ("text", "search") and element.get("name"):
                    form = (form[0], element.get("name", ""))
            if not heading and heading_element is None and _is_heading(tag, element):
                heading_element = element
            if not skip and element.text and tag != "title":
                _add_text(element.text, body, anchor, blocks, own)
                if heading_element is not None:
                    heading.append(element.text)
            continue
        if element is heading_element:
            heading_element = None
            heading.append("")  # done, even when empty
        if tag in _SKIP and tag != "head":
            skip -= 1
        elif tag == "a" and anchor is not None and element is anchor_element:
            _emit(page, blocks, anchor, anchor_href, url, anchor_element)
            anchor = None
        elif tag in _BLOCKS and blocks:
            pieces, links = blocks.pop()
            context = " ".join(" ".join(pieces).split())[:MAX_CONTEXT_CHARS]
            for link in links:
                link.context = context
            if blocks:
                blocks[-1][0].extend(pieces)
        elif tag == "form" and form is not None:
            if form[0] and form[1]:
                page.search_forms.append(form)
            form = None
        if not skip and element.tail:
            _add_text(element.tail, body, anchor, blocks, own)
            if heading_element is not None:
                heading.append(element.tail)
    page.title = " ".join(" ".join(title).split())
    page.heading = " ".join(" ".join(heading).split())[:MAX_CONTEXT_CHARS]
    page.text = " ".join(body)
    page.own_text = " ".join(own)
    for text in inline:
        loaded = _SPHINX_LOAD_INDEX.search(text)
        found = normalize_url(loaded.group(1), url) if loaded else None
        if found:
            page.scripts.append(found)  # the index script it loads, as a newer search page's <script src>
    page.search_index = _mdbook_search_index(inline, page.scripts, url) or _mkdocs_search_index(
        inline, page.scripts, url
    )
    page.symbol_source = symbol_source(page.scripts, inline, url, normalize_url)
    menu = next((src for src in page.scripts if src.split("?", 1)[0].endswith("/" + DOXYGEN_MENU)), None)
    if menu is not None:
        # Doxygen's menu bar is built in the browser from this script (doxygenmenu.py): the site's contents,
        # which a person sees on every page as links.
        page.links.append(PageLink(menu, "Contents"))
    return page


def _mdbook_search_index(inline: list[str], scripts: list[str], url: str) -> str:
    """The URL of the mdBook search index a page's search box loads, or "" when the page names none."""
    text = "\n".join(inline)
    named = _MDBOOK_INDEX.search(text)
    if named:
        return normalize_url(named.group(1), url) or ""
    root = _MDBOOK_ROOT.search(text)
    searcher = any(src.rsplit("/", 1)[-1].startswith("searcher") for src in scripts)
    if root and searcher:
        return normalize_url(root.group(1) + "searchindex.json", url) or ""
    return ""


def _mkdocs_search_index(inline: list[str], scripts: list[str], url: str) -> str:
    """The URL of the MkDocs search index a page's search box loads, or "" when the page names none."""
    main = next((src for src in scripts if src.split("?", 1)[0].endswith(_MKDOCS_SEARCH_SCRIPT)), None)
    if main is not None:
        return normalize_url("search_index.json", main) or ""
    for text in inline:
        base = _MATERIAL_BASE.search(text)
        if base and _MATERIAL_WORKER.search(text):
            return normalize_url((base.group(1).rstrip("/") or ".") + "/" + MKDOCS_INDEX, url) or ""
    return ""


def _emit(page: ReadPage, blocks, anchor: list[str], href: str, url: str, element) -> None:
    target = normalize_url(href, url)
    if target and is_page_url(target):
        title = " ".join((element.get("title") or "").split())
        link = PageLink(target, " ".join(" ".join(anchor).split()), title=title)
        page.links.append(link)
        if blocks:
            blocks[-1][1].append(link)


def _add_text(text: str, body: list[str], anchor: list[str] | None, blocks, own: list[str]) -> None:
    body.append(text)
    if anchor is not None:
        anchor.append(text)
    else:
        own.append(text)
    if blocks:
        blocks[-1][0].append(text)


def _is_heading(tag: str, element) -> bool:
    return tag == "h1" or (tag == "div" and "title" in (element.get("class") or "").split())


# A link's text and URL may also name the humps of their CamelCase identifiers (text.camel_parts): API references
# link classes and modules by their compound names ("CholmodSupport module", `classEigen_1_1SparseMatrix.html`),
# and a query word that is one of those humps ("cholmod") names the link as a word of its text does. Off: measured
# on 14 Doxygen and Javadoc sets (issue 19, session 13) it gained 3 hits (Commons IO, JUnit 4, Eigen) and lost 4
# (Bullet 14 -> 12, CppUnit, Commons Lang), top 3 +4 -5: a hump names many links ("SparseMatrix", "SparseMatrixBase", "Sparse
# module" for "sparse"), so the links it lifts are as often siblings of the target as the way to it.
CAMEL_PARTS = False


def link_terms(link: PageLink) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(label, context, URL) terms of a link: its label is its text, and its title when the text is a word
    that names no page ("previous", "up", "Next"): the title is what such a link shows of where it leads.
    A link that names its page already keeps its text alone (a Sphinx cross-reference "os.path" carries the
    module's summary as its title: measured, adding it cost title queries more than it gained)."""
    label = terms(link.text)
    if link.title and len(label) <= 1 and link.title not in link.text:
        label = terms(f"{link.text} {link.title}")
    words = url_terms(link.url)
    if CAMEL_PARTS:
        label += camel_parts(link.text)
        words += camel_parts(urlsplit(link.url).path)
    return label, terms(link.context), words
