"""A finished crawl as the decay chain's graph: which pages are dead, live with known links, or open (docs/decay.md)."""

from __future__ import annotations

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


def crawl_graph(*, crawl: Crawl) -> CrawlGraph:
    """Read the crawl's pages and anchor links (two queries, no page bodies) into a CrawlGraph."""
    settings = crawl.settings
    scope = CrawlScope.from_text(
        settings.get("start_url") or crawl.site.url,
        settings.get("include_patterns", ""),
        settings.get("exclude_patterns", ""),
    )
    rows = Page.objects.filter(crawl=crawl).values_list(
        "id", "url", "state", "verdict", "is_internal", "content_type", "final_url"
    )
    urls: list[str] = []
    page_ids: list[int | None] = []
    kinds: list[int] = []
    settled: list[bool] = []
    internal: list[bool] = []
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
        row_of[page_id] = len(urls)
        urls.append(url)
        page_ids.append(page_id)
        kinds.append(kind)
        settled.append(known)
        internal.append(is_internal)
    live = {page_id for page_id, row in row_of.items() if kinds[row] == Kind.LIVE}
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
                target = by_url[key] = len(urls)
                urls.append(target_url)
                page_ids.append(None)
                kinds.append(Kind.OPEN)
                settled.append(False)
                internal.append(scope.contains(target_url))
        sources.append(row_of[source_id])
        targets.append(target)
    return CrawlGraph(
        urls=urls,
        page_ids=page_ids,
        kinds=np.array(kinds, dtype=np.int8),
        settled=np.array(settled, dtype=bool),
        internal=np.array(internal, dtype=bool),
        sources=np.array(sources, dtype=np.int64),
        targets=np.array(targets, dtype=np.int64),
        scope=scope,
    )


def with_fetched(graph: CrawlGraph, fetched: dict[str, Node]) -> CrawlGraph:
    """The crawl's graph with the pages fetched beyond it (checks/decay/external.py) settled: live ones with their
    links (new targets enter unsettled and open), dead ones dead, the others open. The crawl's own verdicts win."""
    if not fetched:
        return graph
    urls, page_ids = list(graph.urls), list(graph.page_ids)
    kinds, settled, internal = (
        list(graph.kinds.tolist()),
        list(graph.settled.tolist()),
        list(graph.internal.tolist()),
    )
    index = graph.index_of()
    sources: list[int] = []
    targets: list[int] = []

    def node_index(url: str) -> int:
        i = index.get(url)
        if i is None:
            i = index[url] = len(urls)
            urls.append(url)
            page_ids.append(None)
            kinds.append(Kind.OPEN)
            settled.append(False)
            internal.append(graph.scope_contains(url))
        return i

    kind_of = {LIVE: Kind.LIVE, DEAD: Kind.DEAD, OPEN: Kind.OPEN}
    for url, node in fetched.items():
        i = node_index(url)
        if settled[i] and (kinds[i] != Kind.OPEN or page_ids[i] is not None and internal[i]):
            continue  # the crawl judged it, and read it if it could
        kinds[i] = kind_of[node.state]
        settled[i] = True
        if node.state == LIVE:
            for target in node.outlinks:
                sources.append(i)
                targets.append(node_index(str(target)))
    return CrawlGraph(
        urls=urls,
        page_ids=page_ids,
        kinds=np.array(kinds, dtype=np.int8),
        settled=np.array(settled, dtype=bool),
        internal=np.array(internal, dtype=bool),
        sources=np.concatenate([graph.sources, np.array(sources, dtype=np.int64)]),
        targets=np.concatenate([graph.targets, np.array(targets, dtype=np.int64)]),
        scope=graph.scope,
    )
