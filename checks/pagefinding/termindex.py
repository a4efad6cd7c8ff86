"""A site's own term index, the page a person turns to when there is no search box: a back-of-the-book index
(DocBook's `bookindex.html`, which the postgres docs link as "Index") or Sphinx's general index
(`genindex.html`), a list of entries, each naming the pages it is discussed on. Read here as an index: every
entry's terms (text.py's stems; with the words of the entries it sits under: "schema" → "dropping") go to the pages its links
lead to, so that one download says which pages the site's authors filed under the query's words. Unlike a
search index it covers only what its authors chose to index, so it ranks pages but rules none out."""

from __future__ import annotations

from urllib.parse import urlsplit

import lxml.etree

from sites.crawler.urls import normalize_url

from .htmlpage import is_page_url
from .siteindex import NotAnIndex, SiteIndex, index_of_postings, rank_by_rarity
from .text import terms

# Bounds on what a hostile or broken page can make the reader keep (the body itself is bounded by the fetch).
MAX_ENTRIES = 200_000  # links read as entries; Python's one-page index has ~40,000
MAX_PAGES = 100_000
MAX_ENTRY_WORDS = 40  # an entry is a few words; a longer "entry" is prose, its first words kept
MAX_DEPTH = 8  # entries under entries under …: deeper levels add no words of their parents
MIN_ENTRIES = 20  # fewer links in lists than this: not an index (a home page's "Index" link to itself…)
_ENTRIES = frozenset({"dt", "li"})  # an entry's own text is its innermost dt or li
_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})
# The whole text of a link that names a site's term index: DocBook's "Index", Sphinx's "index" (its related
# bar) and "General Index".
INDEX_LINK_TEXTS = frozenset({"index", "general index"})
# Sphinx splits a long index by letter; its genindex.html then links the one-page index by this name.
WHOLE_INDEX_NAME = "genindex-all.html"


def is_index_link(text: str) -> bool:
    return " ".join(text.lower().split()) in INDEX_LINK_TEXTS


def whole_index_link(root: lxml.etree._Element, url: str) -> str | None:
    """The link of a Sphinx index split by letter to its one-page form, if it has one."""
    for element in root.iter("a"):
        href = element.get("href") or ""
        if href.rsplit("/", 1)[-1] == WHOLE_INDEX_NAME:
            return normalize_url(href, url)
    return None


def parse_term_index(root: lxml.etree._Element, *, url: str) -> SiteIndex:
    """The entries of a term index page (its parsed tree, fetched from `url`) as an index of the pages they
    link to: a page's words are those of every entry naming it; raise NotAnIndex when the page lists fewer
    than MIN_ENTRIES entries or more than MAX_ENTRIES links."""
    site, own = urlsplit(url).netloc.lower(), normalize_url(url)
    pages: dict[str, int] = {}
    words_of: dict[int, set[str]] = {}
    # One pass over the tree (no XPath per element): a stack of the entries open around the current element,
    # each with its words; a dd holds the entries under the dt before it.
    entries: list[list[str]] = []
    last_dt: list[str] = []
    links: list[tuple[str, int]] = []  # (target, the number of open entries when the link was met)
    skip = 0
    read = 0
    for event, element in lxml.etree.iterwalk(root, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        if event == "start":
            if tag in _SKIP:
                skip += 1
            elif tag in _ENTRIES or tag == "dd":
                entries.append(list(last_dt) if tag == "dd" else [])
            elif tag == "a" and element.get("href") and entries and not skip:
                target = normalize_url(element.get("href", ""), url)
                if (
                    target
                    and target != own
                    and urlsplit(target).netloc.lower() == site
                    and is_page_url(target)
                ):
                    read += 1
                    if read > MAX_ENTRIES:
                        raise NotAnIndex(f"the index page has more than {MAX_ENTRIES} entries")
                    links.append((target, len(entries)))
            if not skip and element.text and entries:
                _add_words(entries[-1], element.text)
            continue
        if tag in _SKIP:
            skip -= 1
        elif (tag in _ENTRIES or tag == "dd") and entries:
            words = entries.pop()
            if tag == "dt":
                last_dt = words
            # The links met inside this entry are filed under its words and those of the entries around it.
            filed = [word for entry in entries[-MAX_DEPTH:] for word in entry[:MAX_ENTRY_WORDS]]
            filed += words[:MAX_ENTRY_WORDS]
            while links and links[-1][1] > len(entries):
                target, _ = links.pop()
                if target not in pages:
                    if len(pages) >= MAX_PAGES:
                        continue
                    pages[target] = len(pages)
                words_of.setdefault(pages[target], set()).update(filed)
        if not skip and element.tail and entries:
            _add_words(entries[-1], element.tail)
    if read < MIN_ENTRIES:
        raise NotAnIndex(f"not a term index: {read} entries")
    postings: dict[str, set[int]] = {}
    for page, words in words_of.items():
        for word in words:
            postings.setdefault(word, set()).add(page)
    return index_of_postings(list(pages), postings)


def _add_words(entry: list[str], text: str) -> None:
    if len(entry) < MAX_ENTRY_WORDS:
        entry.extend(terms(text)[: MAX_ENTRY_WORDS - len(entry)])


def rank_entries(index: SiteIndex, query_text: str, limit: int = 50) -> list[tuple[str, float]]:
    """The pages the index files under any query word, best first, scored by the rarity (idf over the pages
    the index names) of the query words their entries hold, divided by the best possible (1: every query
    word the index knows is in the page's entries)."""
    return rank_by_rarity(index, query_text, limit, unknown_words_count=False)
