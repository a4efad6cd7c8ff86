"""A site's own search index, read as its search page's script reads it: Sphinx's `searchindex.js`, which the
search page of every Sphinx-built documentation site loads to answer its search box without a server. One
download gives, for every page of the site, its title and the (stemmed) words of its text and its title: what
a person typing the query into the site's search box would be shown, ranked here as BM25 ranks documents
(without term frequencies, which the index does not keep)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urljoin

import Stemmer

from .text import terms

MAX_DOCUMENTS = 100_000
_SET_INDEX = re.compile(rb"^\s*Search\.setIndex\((.*)\)\s*;?\s*$", re.DOTALL)
WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Sphinx's English search stems with the Porter stemmer (sphinx/search/en.py), not Snowball's English.
_porter = Stemmer.Stemmer("porter")
TITLE_WEIGHT = (
    2.0  # a query word in a page's title says more than one in its text, as Sphinx's own ranking has it
)


class NotAnIndex(ValueError):
    """The body is not a search index this module reads."""


@dataclass
class SiteIndex:
    urls: list[str]
    titles: list[str]
    terms: dict[str, frozenset[int]]  # stemmed word -> the pages holding it
    title_terms: dict[str, frozenset[int]]

    @property
    def size(self) -> int:
        return len(self.urls)

    def document_frequency(self, word: str) -> int | None:
        """How many of the site's pages hold `word` (None when the index does not know the word)."""
        pages = self.terms.get(stem(word))
        titled = self.title_terms.get(stem(word))
        if pages is None and titled is None:
            return None
        return len((pages or frozenset()) | (titled or frozenset()))

    def best_share(self, query_text: str) -> float:
        """The largest rarity-weighted share of the query's words that one page of the index holds, in its
        text or title (0 … 1): below 1, no page this index covers holds the whole query."""
        words = list(dict.fromkeys(word.lower() for word in WORD.findall(query_text)))
        held: dict[int, float] = {}
        total = 0.0
        for word in words:
            pages = self.terms.get(stem(word), frozenset()) | self.title_terms.get(stem(word), frozenset())
            df = len(pages)
            idf = math.log(1 + (self.size - df + 0.5) / (df + 0.5))
            total += idf
            for page in pages:
                held[page] = held.get(page, 0.0) + idf
        return max(held.values(), default=0.0) / total if total else 0.0

    def rank(self, query_text: str, limit: int | None = 50) -> list[tuple[str, float]]:
        """The pages holding any query word, best first, scored by the rarity (idf) of the query words they
        hold, a word in the title counting TITLE_WEIGHT times more; scores divided by the best possible, so
        1 is a page whose title and text hold every query word."""
        words = list(dict.fromkeys(word.lower() for word in WORD.findall(query_text)))
        scores: dict[int, float] = {}
        best_possible = 0.0
        for word in words:
            word_stem = stem(word)
            pages = self.terms.get(word_stem, frozenset())
            titled = self.title_terms.get(word_stem, frozenset())
            df = len(pages | titled)
            if not df:
                continue
            idf = math.log(1 + (self.size - df + 0.5) / (df + 0.5))
            best_possible += idf * (1 + TITLE_WEIGHT)
            for page in pages | titled:
                scores[page] = scores.get(page, 0.0) + idf * (
                    (1 if page in pages else 0) + (TITLE_WEIGHT if page in titled else 0)
                )
        if not best_possible:
            return []
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
        return [(self.urls[page], score / best_possible) for page, score in ranked]


@lru_cache(maxsize=10_000)
def stem(word: str) -> str:
    return _porter.stemWord(word.lower())


def _postings(raw: object, size: int) -> dict[str, frozenset[int]]:
    out: dict[str, set[int]] = {}
    if not isinstance(raw, dict):
        return {}
    for word, pages in raw.items():
        numbers = pages if isinstance(pages, list) else [pages]
        kept = {n for n in numbers if isinstance(n, int) and 0 <= n < size}
        if kept and isinstance(word, str):
            out.setdefault(word.lower(), set()).update(kept)
    return {word: frozenset(pages) for word, pages in out.items()}


def parse_sphinx_index(body: bytes, *, index_url: str, page_suffix: str = ".html") -> SiteIndex:
    """Read a `searchindex.js` fetched from `index_url` (its pages are named relative to it); raise
    NotAnIndex when the body is not one (a soft-404 page, a truncated file, another script)."""
    match = _SET_INDEX.match(body)
    if match is None:
        raise NotAnIndex("not a Sphinx search index (no Search.setIndex(…))")
    try:
        data = _load_index(match.group(1))
    except (ValueError, RecursionError) as exc:
        raise NotAnIndex(f"the search index is not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("docnames"), list):
        raise NotAnIndex("the search index names no pages")
    names = [name for name in data["docnames"][:MAX_DOCUMENTS] if isinstance(name, str)]
    if len(names) != len(data["docnames"][:MAX_DOCUMENTS]):
        raise NotAnIndex("the search index's page names are not all text")
    titles = data.get("titles") if isinstance(data.get("titles"), list) else []
    urls = [urljoin(index_url, page_path(name, page_suffix)) for name in names]
    size = len(urls)
    return SiteIndex(
        urls=urls,
        titles=[str(title) for title in titles[:size]] + [""] * max(0, size - len(titles)),
        terms=_postings(data.get("terms"), size),
        title_terms=_postings(data.get("titleterms"), size),
    )


# Sphinx 1.x wrote its index with its own `jsdump`, which leaves a key bare when it is a name
# (`{docnames:["index"],terms:{lighthous:0}}`): JavaScript, not JSON. A string is matched whole first, so
# nothing inside one is taken for a key.
_STRING_OR_BARE_KEY = re.compile(rb'("(?:[^"\\]|\\.)*")|([{,]\s*)([A-Za-z_$][\w$]*)(\s*:)')


def _load_index(text: bytes):
    try:
        return json.loads(text)
    except ValueError:
        quoted = _STRING_OR_BARE_KEY.sub(
            lambda m: m.group(1) or m.group(2) + b'"' + m.group(3) + b'"' + m.group(4), text
        )
        return json.loads(quoted)


def page_path(docname: str, suffix: str) -> str:
    """A Sphinx document's URL path: "library/os" is "library/os.html"; with the directory builder (suffix
    "/") "library/os/", and "library/index" is "library/"."""
    if suffix == "/":
        if docname == "index":
            return "./"
        return (docname[: -len("/index")] if docname.endswith("/index") else docname) + "/"
    return docname + suffix


def rank_by_rarity(
    index: SiteIndex, query_text: str, limit: int, *, unknown_words_count: bool
) -> list[tuple[str, float]]:
    """The pages an index read as our own terms (a term index, a symbol index: not a Sphinx index, whose words
    are Porter stems) files under any query word, best first, scored by the idf (over the pages the index
    names) of the query words they are filed under, divided by the whole: that of every query word the index
    knows, or of every query word, one it does not know counting as the rarest (`unknown_words_count`)."""
    words = list(dict.fromkeys(terms(query_text)))
    scores: dict[int, float] = {}
    whole = 0.0
    for word in words:
        pages = index.terms.get(word, frozenset())
        if not pages and not unknown_words_count:
            continue
        idf = math.log(1 + (index.size - len(pages) + 0.5) / (len(pages) + 0.5))
        whole += idf
        for page in pages:
            scores[page] = scores.get(page, 0.0) + idf
    if not whole:
        return []
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [(index.urls[page], score / whole) for page, score in ranked]


def index_of_postings(urls: list[str], postings: dict[str, set[int]]) -> SiteIndex:
    """An index read from a page or script other than a search index (a term index, a symbol index): its pages'
    words, no titles."""
    return SiteIndex(
        urls=urls,
        titles=[""] * len(urls),
        terms={word: frozenset(held) for word, held in postings.items()},
        title_terms={},
    )
