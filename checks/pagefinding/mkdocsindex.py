"""MkDocs' own search index, read as its search box's script reads it. A site built with MkDocs (its own
themes, the readthedocs theme, Material for MkDocs) has its search plugin write `search/search_index.json` at
the site's root: every page, and every section of a page ("page/#anchor"), with its title and its text
(Material's own plugin, since its version 9, keeps a few tags and escapes the text: `<p>a &lt;b&gt;</p>`).
Its pages name it: MkDocs' themes load `search/main.js` beside it, Material names the site's root (`"base"`)
in its `__config` script. One download gives, for every page of the site, the words of its text and of its
titles: what a person typing the query into the site's search box would be shown. The words are stemmed here
as Sphinx's and mdBook's indexes stem theirs (Porter), so that the ranking of siteindex.py reads all three
alike; sections are read as the page that holds them (the URL without the fragment, which is what the site's
pages link)."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import urldefrag, urljoin, urlsplit

from .siteindex import MAX_DOCUMENTS, WORD, NotAnIndex, SiteIndex, stem

INDEX_NAME = "search/search_index.json"  # the plugin's path, under the site's root, for every theme
# A site's index is a few MB at most (the fetch's size limit bounds the body); this bounds the words a hostile
# one can make the reader stem.
MAX_WORDS = 3_000_000
MAX_WORD_LENGTH = 60
# The only markup Material's search plugin keeps in an index, bare (material/plugins/search: `Parser.keep`); it
# escapes the text around it. MkDocs' own plugin writes plain text, where a "<font color=…>" is code the page
# shows: its words are the page's, kept.
_MATERIAL_MARKUP = re.compile(r"</?(?:p|code|pre|li|ol|ul|sub|sup)>")


def parse_mkdocs_index(body: bytes, *, index_url: str) -> SiteIndex:
    """Read an MkDocs `search/search_index.json` fetched from `index_url` (its pages are named relative to the
    site's root, the folder above `search/`); raise NotAnIndex when the body is not one (a soft-404 page, a
    truncated file, another JSON document, an index that would take too long to read)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise NotAnIndex(f"the search index is not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("docs"), list):
        raise NotAnIndex("not an MkDocs search index (no docs)")
    docs = data["docs"][:MAX_DOCUMENTS]
    if not all(isinstance(doc, dict) and isinstance(doc.get("location"), str) for doc in docs):
        raise NotAnIndex("the search index's page names are not all text")
    root = urljoin(index_url, "../")
    pages: dict[str, int] = {}
    titles: list[str] = []
    terms: dict[str, set[int]] = {}
    title_terms: dict[str, set[int]] = {}
    budget = [MAX_WORDS]
    for doc in docs:
        location, fragment = urldefrag(doc["location"])
        parts = urlsplit(location)
        if parts.scheme or parts.netloc:
            continue  # the plugin names pages relative to the root: another site's page is none of this one's
        url = urljoin(root, location)
        page = pages.setdefault(url, len(pages))
        title = html.unescape(doc["title"]) if isinstance(doc.get("title"), str) else ""
        if page == len(titles):
            titles.append("")
        if not fragment or not titles[page]:
            titles[page] = title  # the page's own entry (no fragment) names it, else its first section
        _add_words(title, page, title_terms, budget)
        text = doc.get("text")
        if isinstance(text, str):
            _add_words(html.unescape(_MATERIAL_MARKUP.sub(" ", text)), page, terms, budget)
    return SiteIndex(
        urls=list(pages),
        titles=titles,
        terms={word: frozenset(held) for word, held in terms.items()},
        title_terms={word: frozenset(held) for word, held in title_terms.items()},
    )


def _add_words(text: str, page: int, out: dict[str, set[int]], budget: list[int]) -> None:
    words = WORD.findall(text)
    budget[0] -= len(words)
    if budget[0] < 0:
        raise NotAnIndex(f"the search index has more than {MAX_WORDS} words")
    for word in set(words):
        if len(word) <= MAX_WORD_LENGTH:
            out.setdefault(stem(word), set()).add(page)


def is_mkdocs_index(url: str) -> bool:
    return urlsplit(url).path.endswith("/" + INDEX_NAME)
