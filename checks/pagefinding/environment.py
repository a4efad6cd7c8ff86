"""The environment a page finder searches: a start node, and pages that cost one download each to read.

A page's links and their labels (link texts) are visible once the page is downloaded, without downloading
their targets. Two implementations: `generated.GeneratedSite` (the paper's graphs) and `live.LiveSite`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

Node = Hashable


@dataclass(frozen=True)
class Link:
    target: Node
    label: tuple[str, ...]  # terms of the link text
    text: str = ""  # the link text as written, for people
    context: tuple[str, ...] = ()  # terms of the text around the link (live sites)
    url_terms: tuple[str, ...] = ()  # terms of the target's URL (live sites)


@dataclass
class Page:
    node: Node
    terms: tuple[str, ...]
    links: list[Link] = field(default_factory=list)
    title: str = ""
    title_terms: tuple[str, ...] = ()
    # Live pages: the terms of the text outside links (a table of contents holds the query only in its
    # links). None where a page has no such distinction (generated graphs).
    own_terms: frozenset[str] | None = None
    # Live pages: the URL of the site's search index this page's own search box loads (mdBook names it on
    # every page of a book), "" when it names none.
    search_index: str = ""
    # Live pages: the words of its text as written, unstemmed, counted (text.written_words); None on generated
    # graphs, whose pages are terms only.
    words: Counter[str] | None = None
    term_set: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.term_set = frozenset(self.terms) | frozenset(self.title_terms)


@dataclass(frozen=True)
class Download:
    """One entry of the download log: what was fetched, from which page and through which link text."""

    number: int
    node: Node
    parent: Node | None
    link_text: str
    score: float | None
    ok: bool
    note: str = ""


class BudgetExhausted(Exception):
    """The search used its download budget."""


@dataclass
class SearchResult:
    found: Node | None
    downloads: int
    path: list[Node]
    log: list[Download]
    algorithm: str
    exhausted: bool = False
    link_texts: list[str] = field(default_factory=list)
    # The answer and its runners-up, best first, with the algorithm's own score for each (the first is
    # `found` when there is one): how sure the search is.
    candidates: list[tuple[Node, float]] = field(default_factory=list)


class Environment:
    """Counts every distinct download, keeps the log, enforces the budget and remembers how each page was
    reached. A page downloaded twice costs one download: the second read comes from memory."""

    # A generated graph's pages have no titles, so one holding the whole query is the page; a live site's pages
    # have titles, and one without (a Doxygen page, a frame) is only a page holding the words.
    pages_titled = False

    def __init__(self, start: Node, *, max_downloads: int | None = None) -> None:
        self.start = start
        self.max_downloads = max_downloads
        self.log: list[Download] = []
        self.frontier: list[tuple[Node, float, str]] = []  # a finder's best candidates, for progress
        # The pages read that answer the query best, with their scores, best first: set by the algorithm.
        self.ranked: list[tuple[Node, float]] = []
        self.scores: dict[Node, float] = {}  # every page an algorithm rated, with its rating
        self.on_download: Callable[[Environment], None] | None = None
        self._pages: dict[Node, Page | None] = {}
        self._reached: dict[Node, tuple[Node | None, str]] = {start: (None, "")}
        self._other_fetches = 0

    @property
    def downloads(self) -> int:
        return len(self._pages) + self._other_fetches

    def count_fetch(self, what: str, *, ok: bool, note: str = "") -> None:
        """Count a fetch that is not a page of the search (robots.txt, a sitemap): it is a download too."""
        self._check_budget()
        self._other_fetches += 1
        self.log.append(Download(self.downloads, what, None, "", None, ok, note))

    def rate(self, node: Node, score: float) -> None:
        """Record an algorithm's rating of a page read: the result lists the best rated as candidates."""
        if score > self.scores.get(node, float("-inf")):
            self.scores[node] = score

    def _check_budget(self) -> None:
        if self.max_downloads is not None and self.downloads >= self.max_downloads:
            raise BudgetExhausted()

    def downloaded(self, node: Node) -> bool:
        return node in self._pages

    def download(
        self, node: Node, *, via: tuple[Node, Link] | None = None, score: float | None = None
    ) -> Page | None:
        """The page at `node` (None when it is not a readable page); raises BudgetExhausted past the budget."""
        if node in self._pages:
            return self._pages[node]
        self._check_budget()
        if node not in self._reached and via is not None:
            self._reached[node] = (via[0], via[1].text or " ".join(via[1].label))
        page, note = self._fetch(node)
        self._pages[node] = page
        parent, text = self._reached.get(node, (None, ""))
        self.log.append(Download(self.downloads, node, parent, text, score, page is not None, note))
        if self.on_download is not None:
            self.on_download(self)
        return page

    def _fetch(self, node: Node) -> tuple[Page | None, str]:
        raise NotImplementedError

    def path_to(self, node: Node) -> list[Node]:
        """Start … node, following the links through which each page was first reached."""
        path = [node]
        seen = {node}
        while True:
            parent = self._reached.get(path[-1], (None, ""))[0]
            if parent is None or parent in seen:
                break
            path.append(parent)
            seen.add(parent)
        return path[::-1]

    def link_text_to(self, node: Node) -> str:
        return self._reached.get(node, (None, ""))[1]

    def label(self, node: Node) -> str:
        """How a node is shown to people: a URL on live sites."""
        return str(node)

    def describe(self) -> dict[str, Any]:
        return {"start": self.label(self.start)}


def page_similarity(query: tuple[str, ...], page: Page | None) -> float:
    """The share of the query a page says itself: on live pages the text outside its links (a list of
    links that names the query is a way to the page, not the page), on generated pages all of it."""
    if page is None:
        return 0.0
    return similarity(query, page.own_terms if page.own_terms is not None else page.term_set)


def label_promise(query: tuple[str, ...], link: Link) -> float:
    """The share of the query in a link's text and URL words: what a link says of its page before the page
    is read."""
    return similarity(query, frozenset(link.label) | frozenset(link.url_terms))


def by_promise(query: tuple[str, ...], links: list[Link]) -> list[Link]:
    """Links ordered by what their texts promise (page order among equals): an algorithm that reads every
    child reads the likeliest first, which matters once a live site's download budget is smaller than a
    page's links."""
    return sorted(links, key=lambda link: -label_promise(query, link))


def similarity(query: tuple[str, ...], words: tuple[str, ...] | frozenset[str]) -> float:
    """The share of the query's distinct terms that occur in `words`: 0 … 1, the scale thresholds use."""
    if not query:
        return 0.0
    present = words if isinstance(words, frozenset) else frozenset(words)
    return sum(1 for term in query if term in present) / len(query)
