"""Decay beyond the audited site (Bar-Yossef et al. §4 define it over the web): other sites' pages the crawl's pages
link to are read, to `external_depth` links away, and their links judged, so that a page whose links are alive but
lead into rot on another site decays. Both methods then solve or walk over one graph: the crawl plus these pages.

Fetching goes through the crawl engine (`CrawlSession` with the crawl's own settings: robots.txt, Crawl-delay and
per-host politeness, the HTTP client's size, time and redirect limits, the private-address guard, the dead and
soft-404 judgement) and stops at a cap the user sets. A host that cannot be reached at all (DNS, refused, blocked)
is asked once: every other URL on it gets the same verdict without a request.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings

from checks.decay.graph import CrawlGraph
from checks.decay.inflight import InFlight
from checks.decay.solver import Kind
from checks.decay.walks import DEAD, LIVE, OPEN, Node
from checks.jobs.inflight import wait_until
from sites.crawler.config import CrawlConfig
from sites.crawler.fetching import CrawlSession, FetchJob, PageOutcome
from sites.crawler.reading import shared_reader
from sites.crawler.urls import site_key
from sites.http.polite import HOST_UNREACHABLE
from sites.models import BROKEN_VERDICTS, Page

# Bounds of what a user may ask (docs/decay.md): every other site's page adds fetches, and depth multiplies them.
MAX_EXTERNAL_DEPTH = 3
MAX_FETCHES_LIMIT = 100_000
# Pages fetched at once; a step waits for a batch until its deadline, and leaves the rest running
# (checks/jobs/inflight.py).
FETCH_BATCH = 32
# Fetch failures that say the host, not the page, is not answering: DNS, refused or unroutable, an address the guard
# blocks, TLS, or no answer in the whole timeout. Its other URLs get the same verdict without a request.
HOST_DOWN = HOST_UNREACHABLE | {"timeout"}


def crawl_unreachable_hosts(crawl) -> dict[str, Node]:
    """Hosts the crawl found not answering (HOST_DOWN on some other site's page it checked), with that verdict:
    the crawl's verdicts are reused for the host's URLs the crawl did not check."""
    rows = Page.objects.filter(
        crawl=crawl, is_internal=False, state=Page.State.DONE, error_kind__in=sorted(HOST_DOWN)
    ).values_list("url", "verdict")
    return {
        site_key(url): Node(DEAD)
        for url, verdict in rows.iterator(chunk_size=5000)
        if verdict in BROKEN_VERDICTS
    }


class ReadingSession(CrawlSession):
    """A crawl session that also reads the links of the other sites' pages it is told to read."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.read_urls: set[str] = set()

    def _should_follow(self, job: FetchJob, result) -> bool:
        return job.url in self.read_urls or super()._should_follow(job, result)


def open_session(config: CrawlConfig) -> ReadingSession:
    return ReadingSession(config, shared_reader(settings.WEBAUDIT_PAGE_READERS))


def outcome_node(outcome: PageOutcome, *, read: bool, in_scope: Callable[[str], bool]) -> Node:
    """What one fetch says: dead, live with its anchors (a page read), or open (alive, links not read)."""
    if outcome.blocked_by_robots or outcome.result is None or outcome.judgement is None:
        return Node(OPEN)
    if outcome.judgement.verdict.verdict in BROKEN_VERDICTS:
        return Node(DEAD)
    result = outcome.result
    if not read or not result.is_html:
        return Node(LIVE) if read else Node(OPEN)  # a document read is a leaf; a page only judged is open
    if in_scope(result.final_url):
        return Node(OPEN)  # redirected into the audited site: that part of the chain is the crawl's
    links = outcome.parsed.links if outcome.parsed is not None else []
    return Node(LIVE, tuple(link.url for link in links if link.tag == "a"))


@dataclass
class Expansion:
    """The pages fetched beyond the crawl, by URL, and what the report says about them."""

    nodes: dict[str, Node] = field(default_factory=dict)
    requests: int = 0
    read: int = 0  # other sites' pages whose links were read
    beyond_depth: int = 0  # live pages past the depth: open (D̄), as before this existed
    over_cap: int = 0  # pages not fetched because the run's cap was reached: open
    done: bool = False
    # Set when the deadline came while fetches were running: they and their session, for the next step.
    in_flight: InFlight | None = None

    def summary(self) -> dict:
        return {
            "external_pages_read": self.read,
            "external_fetched": len(self.nodes),
            "beyond_depth": self.beyond_depth,
            "over_cap": self.over_cap,
            "external_requests": self.requests,
        }


def _targets(graph: CrawlGraph, nodes: dict[str, Node], sources: list[str]) -> list[str]:
    """Outlinks of `sources` (URLs of live pages, in the crawl or fetched), in order, once each."""
    index = graph.index_of()
    by_source: dict[int, list[int]] = {}
    for s, t in zip(graph.sources.tolist(), graph.targets.tolist(), strict=True):
        by_source.setdefault(s, []).append(t)
    found: dict[str, None] = {}
    for url in sources:
        if url in nodes:
            found.update(dict.fromkeys(str(u) for u in nodes[url].outlinks))
        elif url in index:
            found.update(dict.fromkeys(graph.urls[t] for t in by_source.get(index[url], ())))
    return list(found)


def expand(
    graph: CrawlGraph,
    *,
    config: CrawlConfig,
    depth: int,
    max_fetches: int,
    known: dict[str, Node] | None = None,
    deadline: float | None = None,
    session: ReadingSession | None = None,
    unreachable: dict[str, Node] | None = None,
    in_flight: InFlight | None = None,
    wait_first: bool = False,
) -> Expansion:
    """Read other sites' pages to `depth` links from the crawl's live pages, and judge the links of the last ones.

    Level 1 is every other site's page a live page of the crawl links to; level k + 1 the other sites' pages that
    level k links to. A level within the depth is read (fetched with its links), the level after it only judged
    (dead, or alive and open). Pages of the audited site keep the crawl's verdicts (those over the crawl's limits
    stay as they were: open for the exact method, fetched by live walks). `known` carries what earlier steps of
    the job fetched, so nothing is fetched twice; past `deadline` (time.monotonic) it returns unfinished, and is
    called again with what it got. `unreachable` maps hosts known not to answer (crawl_unreachable_hosts) to their
    verdict: their URLs are not fetched. Past `deadline` it stops waiting for its fetches: those still running are
    left in `Expansion.in_flight` (its session open), which the next call takes as `in_flight` and waits for first.
    `wait_first`: wait for the first batch to its end whatever the deadline (it asks again what a step in another
    process left running: without it, hosts slower than a step's budget would be asked again every step).
    """
    expansion = Expansion(nodes=dict(known or {}))
    down = dict(unreachable or {})
    index = graph.index_of()
    in_scope = graph.scope_contains

    def crawl_knows(url: str, *, read: bool) -> bool:
        i = index.get(url)
        if i is None or not graph.settled[i]:
            return False
        # The crawl judged it; reading needs its links too, which the crawl has only for its own pages.
        return not read or graph.kinds[i] != Kind.OPEN or in_scope(url)

    own = None
    if in_flight is not None:
        session = own = in_flight.session
    try:
        if in_flight is not None and not _collect(in_flight, expansion, deadline=deadline, unreachable=down):
            expansion.in_flight = in_flight
            return expansion
        level = [graph.urls[i] for i in graph.live_indices()]
        for distance in range(1, depth + 2):
            read = distance <= depth
            targets = [url for url in _targets(graph, expansion.nodes, level) if not in_scope(url)]
            wanted = [
                url for url in targets if url not in expansion.nodes and not crawl_knows(url, read=read)
            ]
            if wanted and not config.check_external:
                wanted = []  # the crawl was told not to look outside its scope: so is decay
            if wanted:
                if session is None:
                    session = own = open_session(config)
                flight = in_flight if in_flight is not None else InFlight(session)
                if not _fetch(
                    flight,
                    wanted,
                    expansion,
                    read=read,
                    cap=max_fetches,
                    deadline=deadline,
                    unreachable=down,
                    wait_first=wait_first,
                ):
                    if flight.pending:
                        expansion.in_flight = flight
                    return expansion
            level = [url for url in targets if expansion.nodes.get(url, Node(OPEN)).state == LIVE]
        # Live pages one past the depth (judged, not read) stay open: the report counts them.
        expansion.beyond_depth = sum(
            1 for node in expansion.nodes.values() if node.state == OPEN and not node.outlinks
        )
        expansion.read = sum(1 for node in expansion.nodes.values() if node.state == LIVE)
        expansion.done = True
        return expansion
    finally:
        if own is not None and expansion.in_flight is None:
            own.close()


def _fetch(
    in_flight: InFlight,
    urls: list[str],
    expansion: Expansion,
    *,
    read: bool,
    cap: int,
    deadline: float | None,
    unreachable: dict[str, Node],
    wait_first: bool = False,
) -> bool:
    """Fetch `urls` in batches, one URL a host first; False when the deadline came first (fetches still running
    stay in `in_flight.pending`). Hosts found not answering are added to `unreachable`."""
    session = in_flight.session
    first_of_host: dict[str, str] = {}
    for url in urls:
        first_of_host.setdefault(site_key(url), url)
    firsts = set(first_of_host.values())
    ordered = [url for url in urls if url in firsts] + [url for url in urls if url not in firsts]
    fetched = sum(1 for node in expansion.nodes.values() if node is not None)
    batches = 0
    size = max(1, min(FETCH_BATCH, session.config.lane_concurrency * 2))  # one round of the session's threads
    for start in range(0, len(ordered), size):
        if batches and deadline is not None and time.monotonic() >= deadline:
            return False  # at least one batch a call, so that every step gets on
        batch = []
        for url in ordered[start : start + size]:
            if url in expansion.nodes:
                continue
            host = site_key(url)
            if host in unreachable:
                expansion.nodes[url] = unreachable[host]
            elif fetched + len(batch) >= cap:
                expansion.over_cap += 1
            else:
                batch.append(url)
        if not batch:
            continue
        if read:
            session.read_urls.update(batch)
        # Each origin's robots.txt is fetched once, by the chain of its first page (CrawlSession.submit).
        expansion.requests += len(session.origins_missing_robots(batch))
        retries = session.config.fetch.retries  # one look per URL: decay does not wait out a 429's backoff
        for url in batch:
            in_flight.pending[url] = (session.submit(FetchJob(0, url, False, retries)), read)
        fetched += len(batch)
        batches += 1
        waited_for = None if wait_first and batches == 1 else deadline
        if not _collect(in_flight, expansion, deadline=waited_for, unreachable=unreachable):
            return False
    return True


def _collect(
    in_flight: InFlight, expansion: Expansion, *, deadline: float | None, unreachable: dict[str, Node]
) -> bool:
    """Wait for the fetches in flight until `deadline` and record the outcomes that came; False while some are
    still running (they stay in `in_flight.pending`)."""
    session = in_flight.session
    done, running = wait_until({url: future for url, (future, _) in in_flight.pending.items()}, deadline)
    for url, outcome in done.items():
        expansion.requests += outcome.requests
        node = outcome_node(outcome, read=in_flight.pending[url][1], in_scope=session.scope.contains)
        expansion.nodes[url] = node
        result = outcome.result
        if result is not None and result.error_kind in HOST_DOWN and node.state == DEAD:
            unreachable[site_key(url)] = node
    in_flight.pending = {url: in_flight.pending[url] for url in running}
    return not running
