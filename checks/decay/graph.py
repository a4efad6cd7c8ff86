"""A finished crawl as the decay chain's graph: which pages are dead, live with known links, or open (docs/decay.md)."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

from checks.decay.solver import DecayGraph, Kind
from checks.decay.walks import DEAD, LIVE, OPEN, Node
from sites.crawler.urls import CrawlScope
from sites.http import is_html_type
from sites.models import BROKEN_VERDICTS, Crawl, Link, Page, Verdict, page_key


@dataclass
class CrawlGraph:
    """Nodes are the crawl's pages, then the link targets it has no page for; links are anchors of live pages.

    `settled[i]` is False for a node the crawl never looked at (over its limits, or a link target without a page):
    its outlinks, and for a link-only target whether it is dead, are unknown, and a live walk may fetch it.
    """

    urls: list[str]
    page_ids: list[int | None]
    kinds: np.ndarray
    settled: np.ndarray
    internal: np.ndarray
    sources: np.ndarray
    targets: np.ndarray
    scope: CrawlScope | None = None

    def scope_contains(self, url: str) -> bool:
        """Whether `url` is a page of the audited site (in the crawl's scope)."""
        return self.scope is not None and self.scope.contains(url)

    def has_page(self) -> np.ndarray:
        return np.array([page_id is not None for page_id in self.page_ids], dtype=bool)

    @property
    def decay_graph(self) -> DecayGraph:
        return DecayGraph(self.kinds, self.sources, self.targets)

    def index_of(self) -> dict[str, int]:
        return {url: index for index, url in enumerate(self.urls)}

    def walk_nodes(self) -> dict[str, Node]:
        """The settled nodes as the walker's nodes, keyed by URL (unsettled ones are left out: open, or fetched)."""
        outlinks: dict[int, list[str]] = {}
        urls = self.urls
        for source, target in zip(self.sources.tolist(), self.targets.tolist(), strict=True):
            outlinks.setdefault(source, []).append(urls[target])
        states = {Kind.LIVE: LIVE, Kind.DEAD: DEAD, Kind.OPEN: OPEN}
        return {
            urls[i]: Node(states[Kind(int(kind))], tuple(outlinks.get(i, ())))
            for i, kind in enumerate(self.kinds)
            if self.settled[i]
        }

    def live_indices(self) -> np.ndarray:
        return np.flatnonzero(self.kinds == Kind.LIVE)


@dataclass
class _NodeTable:
    """The node columns of a CrawlGraph being built, one row per node."""

    urls: list[str]
    page_ids: list[int | None]
    kinds: list[int]
    settled: list[bool]
    internal: list[bool]

    @classmethod
    def empty(cls) -> _NodeTable:
        return cls([], [], [], [], [])

    @classmethod
    def of(cls, graph: CrawlGraph) -> _NodeTable:
        return cls(
            list(graph.urls),
            list(graph.page_ids),
            graph.kinds.tolist(),
            graph.settled.tolist(),
            graph.internal.tolist(),
        )

    def add(self, url: str, *, page_id: int | None, kind: int, settled: bool, internal: bool) -> int:
        self.urls.append(url)
        self.page_ids.append(page_id)
        self.kinds.append(kind)
        self.settled.append(settled)
        self.internal.append(internal)
        return len(self.urls) - 1

    def add_open(self, url: str, *, internal: bool) -> int:
        """A link target the crawl has no page for: open and unsettled (a live walk may fetch it)."""
        return self.add(url, page_id=None, kind=Kind.OPEN, settled=False, internal=internal)

    def graph(self, *, sources: np.ndarray, targets: np.ndarray, scope: CrawlScope | None) -> CrawlGraph:
        return CrawlGraph(
            urls=self.urls,
            page_ids=self.page_ids,
            kinds=np.array(self.kinds, dtype=np.int8),
            settled=np.array(self.settled, dtype=bool),
            internal=np.array(self.internal, dtype=bool),
            sources=sources,
            targets=targets,
            scope=scope,
        )


def page_kind(
    *, state: str, verdict: str, is_internal: bool, content_type: str, final_url: str, scope: CrawlScope
) -> tuple[Kind, bool]:
    """(kind, settled) of a crawl page; the rules of docs/decay.md."""
    if state != Page.State.DONE:
        return Kind.OPEN, False
    if verdict in BROKEN_VERDICTS:  # failing counts as dead, as the paper counts it (docs/soft404.md)
        return Kind.DEAD, True
    if verdict != Verdict.OK:  # robots.txt kept the crawl out: not dead, but its links are unknown
        return Kind.OPEN, True
    if not is_internal:  # checked, not crawled: alive, links unknown
        return Kind.OPEN, True
    if is_html_type(content_type) and not scope.same_site(final_url):
        return Kind.OPEN, True  # redirected off the site: the crawl did not read its links
    # An HTML page of the site (its links were stored), or a live non-HTML document: a leaf, D = 0.
    return Kind.LIVE, True


def crawl_has_live_page(*, crawl: Crawl) -> bool:
    """Whether the crawl has a live page of its own (without one, decay is undefined)."""
    return Page.objects.filter(
        crawl=crawl, is_internal=True, state=Page.State.DONE, verdict=Verdict.OK
    ).exists()


def crawl_scope(crawl: Crawl) -> CrawlScope:
    """The scope the crawl ran with (its settings' snapshot): which URLs are pages of the audited site."""
    settings = crawl.settings
    return CrawlScope.from_text(
        settings.get("start_url") or crawl.site.url,
        settings.get("include_patterns", ""),
        settings.get("exclude_patterns", ""),
    )


def crawl_graph(*, crawl: Crawl) -> CrawlGraph:
    """Read the crawl's pages and anchor links (two queries, no page bodies) into a CrawlGraph."""
    scope = crawl_scope(crawl)
    rows = Page.objects.filter(crawl=crawl).values_list(
        "id", "url", "state", "verdict", "is_internal", "content_type", "final_url"
    )
    nodes = _NodeTable.empty()
    row_of: dict[int, int] = {}
    for page_id, url, state, verdict, is_internal, content_type, final_url in rows.iterator(chunk_size=5000):
        kind, known = page_kind(
            state=state,
            verdict=verdict,
            is_internal=is_internal,
            content_type=content_type,
            final_url=final_url or url,
            scope=scope,
        )
        row_of[page_id] = nodes.add(url, page_id=page_id, kind=kind, settled=known, internal=is_internal)
    live = {page_id for page_id, row in row_of.items() if nodes.kinds[row] == Kind.LIVE}
    by_url: dict[str, int] = {}
    sources: list[int] = []
    targets: list[int] = []
    links = Link.objects.filter(crawl=crawl, tag=Link.Tag.ANCHOR).values_list(
        "source_id", "target_id", "target_url"
    )
    for source_id, target_id, target_url in links.iterator(chunk_size=20000):
        if source_id not in live:
            continue
        if target_id is not None:
            target = row_of[target_id]
        else:
            key = page_key(target_url)  # the two spellings of one URL (`?a=1&b=2`, `?b=2&a=1`) are one node
            target = by_url.get(key)
            if target is None:
                target = by_url[key] = nodes.add_open(target_url, internal=scope.contains(target_url))
        sources.append(row_of[source_id])
        targets.append(target)
    return nodes.graph(
        sources=np.array(sources, dtype=np.int64), targets=np.array(targets, dtype=np.int64), scope=scope
    )


def with_fetched(graph: CrawlGraph, fetched: dict[str, Node]) -> CrawlGraph:
    """The crawl's graph with the pages fetched beyond it (checks/decay/external.py) settled: live ones with their
    links (new targets enter unsettled and open), dead ones dead, the others open. The crawl's own verdicts win."""
    if not fetched:
        return graph
    nodes = _NodeTable.of(graph)
    index = graph.index_of()
    sources: list[int] = []
    targets: list[int] = []

    def node_index(url: str) -> int:
        i = index.get(url)
        if i is None:
            i = index[url] = nodes.add_open(url, internal=graph.scope_contains(url))
        return i

    kind_of = {LIVE: Kind.LIVE, DEAD: Kind.DEAD, OPEN: Kind.OPEN}
    for url, node in fetched.items():
        i = node_index(url)
        if nodes.settled[i] and (
            nodes.kinds[i] != Kind.OPEN or nodes.page_ids[i] is not None and nodes.internal[i]
        ):
            continue  # the crawl judged it, and read it if it could
        nodes.kinds[i] = kind_of[node.state]
        nodes.settled[i] = True
        if node.state == LIVE:
            for target in node.outlinks:
                sources.append(i)
                targets.append(node_index(str(target)))
    return nodes.graph(
        sources=np.concatenate([graph.sources, np.array(sources, dtype=np.int64)]),
        targets=np.concatenate([graph.targets, np.array(targets, dtype=np.int64)]),
        scope=graph.scope,
    )


# The columns of a CrawlGraph kept between a job's steps, with their dtypes (page ids: -1 for a node without page).
_COLUMNS = {
    "page_ids": np.int64,
    "kinds": np.int8,
    "settled": bool,
    "internal": bool,
    "sources": np.int64,
    "targets": np.int64,
}


def _packed(values: np.ndarray, dtype) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype=dtype).tobytes()).decode("ascii")


def graph_compact(graph: CrawlGraph) -> dict:
    """The graph as JSON-ready data: its URLs as a list, every other column as the bytes of a numpy array (a
    10,000-page crawl's half a million links are 8 MB of bytes, against a list of Python ints many times that
    to build and parse). `graph_from_compact` gives the same graph back, column for column."""
    page_ids = np.array([-1 if page_id is None else page_id for page_id in graph.page_ids], dtype=np.int64)
    columns = {
        "page_ids": page_ids,
        "kinds": graph.kinds,
        "settled": graph.settled,
        "internal": graph.internal,
        "sources": graph.sources,
        "targets": graph.targets,
    }
    return {"urls": graph.urls, **{name: _packed(columns[name], dtype) for name, dtype in _COLUMNS.items()}}


def graph_from_compact(data: dict, *, scope: CrawlScope | None) -> CrawlGraph:
    columns = {
        name: np.frombuffer(base64.b64decode(data[name]), dtype=dtype).copy()
        for name, dtype in _COLUMNS.items()
    }
    return CrawlGraph(
        urls=list(data["urls"]),
        page_ids=[None if page_id < 0 else page_id for page_id in columns.pop("page_ids").tolist()],
        scope=scope,
        **columns,
    )
