"""The walker's graph beyond a crawl: pages fetched on demand through the crawl engine, each at most once a run."""

from __future__ import annotations

import time
from collections.abc import Hashable

from django.conf import settings

from checks.decay.inflight import InFlight
from checks.decay.walks import DEAD, LIVE, OPEN, Node, WalksStopped
from checks.jobs.inflight import wait_until
from sites.crawler.config import CrawlConfig
from sites.crawler.fetching import CrawlSession, FetchJob, PageOutcome
from sites.crawler.reading import shared_reader
from sites.models import BROKEN_VERDICTS, Crawl
from sites.services.soft404 import probes_load

# Pages fetched at once; a lookup waits for a batch until the deadline, and leaves the rest running
# (checks/jobs/inflight.py).
FETCH_BATCH = 64


def node_of(outcome: PageOutcome, session: CrawlSession) -> Node:
    """What one fetch tells the walk: dead, live with its anchors (pages in scope), or open."""
    if outcome.blocked_by_robots or outcome.result is None or outcome.judgement is None:
        return Node(OPEN)
    if outcome.judgement.verdict.verdict in BROKEN_VERDICTS:
        return Node(DEAD)
    result = outcome.result
    if not outcome.job.is_internal or (result.is_html and not session.scope.same_site(result.final_url)):
        return Node(OPEN)  # alive; outside the scope its links are not read, as in a crawl
    links = outcome.parsed.links if outcome.parsed is not None else []
    return Node(LIVE, tuple(link.url for link in links if link.tag == "a"))


class LiveGraph:
    """Nodes known beforehand (a crawl's), and every other URL fetched when a walk first reaches it.

    Fetches go through a CrawlSession with the crawl's configuration: robots.txt, per-host politeness, the HTTP
    client's limits and the private-address guard, and the same dead / soft-404 judgement as the crawl. URLs in the
    crawl's scope have their links read; others are only judged. Past `max_fetches` pages an unknown URL is open.
    """

    def __init__(
        self,
        *,
        config: CrawlConfig,
        known: dict[str, Node] | None = None,
        pool: list[str] | None = None,
        max_fetches: int | None = None,
        crawl: Crawl | None = None,
        fetch_outside: bool = True,
        deadline: float | None = None,
        in_flight: InFlight | None = None,
    ) -> None:
        self.known = known or {}
        # False when other sites' pages were read beforehand (checks/decay/external.py): what is not known of them
        # stays open, as in the exact solve.
        self.fetch_outside = fetch_outside
        # time.monotonic(): past it a lookup stops waiting for its fetches (WalksStopped); those still running stay in
        # `in_flight`, which the job parks for its next step (checks/jobs/inflight.py) and passes back here.
        self.deadline = deadline
        self.batches = 0
        self._pool = pool
        if in_flight is None:
            in_flight = InFlight(CrawlSession(config, shared_reader(settings.WEBAUDIT_PAGE_READERS)))
        self.in_flight = in_flight
        self.session = in_flight.session
        # Wait for the first batch to its end whatever the deadline: set when it asks again what a step in another
        # process left running (else hosts slower than a step's budget would be asked again every step).
        self.wait_first = False
        self.max_fetches = settings.WEBAUDIT_DECAY_MAX_FETCHES if max_fetches is None else max_fetches
        self.crawl = crawl
        self.pages_fetched = 0
        self.requests = 0
        self.fetched: dict[str, Node] = {}

    def close(self) -> None:
        self.session.close()

    def restart_pool(self) -> list[Hashable]:
        if self._pool is not None:
            return self._pool
        # No crawl: the live pages this run has read stand for the average page.
        return [url for url, node in self.fetched.items() if node.state == LIVE]

    def lookup(self, keys: list[Hashable]) -> dict[Hashable, Node]:
        found: dict[Hashable, Node] = {}
        wanted: list[str] = []
        for key in keys:
            node = self.known.get(key)
            if node is not None:
                found[key] = node
            elif (
                not self.fetch_outside or not self.session.config.check_external
            ) and not self.session.scope.contains(str(key)):
                found[key] = Node(OPEN)  # not fetched outside the site (told so, or read beforehand)
            elif self.pages_fetched + len(wanted) < self.max_fetches:
                wanted.append(str(key))
        # A batch is what the session's threads fetch at once, so the clock is looked at every round of fetches.
        size = max(1, min(FETCH_BATCH, self.session.config.lane_concurrency * 2))
        for start in range(0, len(wanted), size):
            # At least one batch a step, so that a step always gets on.
            if self.batches and self.deadline is not None and time.monotonic() >= self.deadline:
                raise WalksStopped("the step's time is up")  # what was fetched is in self.fetched, kept
            found.update(self._fetch(wanted[start : start + size]))
            self.batches += 1
        return found

    def _fetch(self, urls: list[str]) -> dict[str, Node]:
        """Fetch `urls` (those an earlier step left running are waited for, not asked again) until the deadline;
        WalksStopped if some are still running then (what came is in self.fetched, the rest in self.in_flight)."""
        session, pending = self.session, self.in_flight.pending
        fresh = [url for url in urls if url not in pending]
        # Each origin's robots.txt is fetched once, by the chain of its first page (CrawlSession.submit).
        self.requests += len(session.origins_missing_robots(fresh))
        if session.probes is not None and self.crawl is not None and fresh:
            # Directories the crawl already probed are not probed again.
            session.probes.learn(probes_load(crawl=self.crawl, directories=session.probes.missing(fresh)))
        retries = session.config.fetch.retries  # one look per URL: a walk does not wait out a 429's backoff
        for url in fresh:
            pending[url] = (session.submit(FetchJob(0, url, session.scope.contains(url), retries)), True)
        self.pages_fetched += len(urls)
        deadline = None if self.wait_first and not self.batches else self.deadline
        done, running = wait_until({url: pending[url][0] for url in urls}, deadline)
        nodes = {}
        for url, outcome in done.items():
            del pending[url]
            self.requests += outcome.requests
            nodes[url] = self.fetched[url] = node_of(outcome, session)
        if running:
            raise WalksStopped("the step's time is up while fetching")
        return nodes

    @property
    def fetches_running(self) -> bool:
        return bool(self.in_flight.pending)
