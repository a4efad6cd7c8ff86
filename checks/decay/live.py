"""The walker's graph beyond a crawl: pages fetched on demand through the crawl engine, each at most once a run."""

from __future__ import annotations

from collections.abc import Hashable

from django.conf import settings

from checks.decay.walks import DEAD, LIVE, OPEN, Node
from sites.crawler.config import CrawlConfig
from sites.crawler.fetching import CrawlSession, FetchJob, PageOutcome
from sites.crawler.reading import shared_reader
from sites.models import BROKEN_VERDICTS, Crawl
from sites.services.soft404 import probes_load


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
    ) -> None:
        self.known = known or {}
        self._pool = pool
        self.session = CrawlSession(config, shared_reader(settings.WEBAUDIT_PAGE_READERS))
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
            elif not self.session.config.check_external and not self.session.scope.contains(str(key)):
                found[key] = Node(OPEN)  # the crawl was told not to check outside its scope
            elif self.pages_fetched + len(wanted) < self.max_fetches:
                wanted.append(str(key))
        if wanted:
            found.update(self._fetch(wanted))
        return found

    def _fetch(self, urls: list[str]) -> dict[str, Node]:
        session = self.session
        self.requests += len(session.fetch_robots(session.origins_missing_robots(urls)))
        if session.probes is not None and self.crawl is not None:
            # Directories the crawl already probed are not probed again.
            session.probes.learn(probes_load(crawl=self.crawl, directories=session.probes.missing(urls)))
        retries = session.config.retries  # one look per URL: a walk does not wait out a 429's backoff
        jobs = [FetchJob(0, url, session.scope.contains(url), retries) for url in urls]
        outcomes = session.fetch_batch(jobs)
        self.pages_fetched += len(urls)
        nodes = {}
        for url, outcome in zip(urls, outcomes, strict=True):
            self.requests += outcome.requests
            nodes[url] = self.fetched[url] = node_of(outcome, session)
        return nodes
