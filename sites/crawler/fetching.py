"""Fetch frontier URLs concurrently across hosts: robots.txt, per-host politeness, backoff, probe, then read."""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from checks.soft404.probing import ProbeAnswer, ProbeCache, probe_compares_contents
from checks.soft404.verdict import PageVerdict
from sites.crawler.config import CrawlConfig
from sites.crawler.judging import Judgement, judge
from sites.crawler.parse import ParsedPage, robots_directives
from sites.crawler.reading import PageReader, PageRequest
from sites.crawler.urls import CrawlScope, origin, site_key
from sites.http import Fetcher, FetchPolicy, FetchResult, RobotsRules, robots_url
from sites.http import parse_robots as robots_text_of
from sites.http.robots import ROBOTS_MAX_BYTES
from sites.http.scheduler import PoliteScheduler

# A Crawl-delay above this is treated as this: a site asking for more would take days to audit.
MAX_CRAWL_DELAY = 60.0
RETRYABLE_STATUSES = frozenset({429, 503})
# zlib level 1 shrinks documentation HTML ~3.5x at 5x the speed of the default level 6 (~4x).
BODY_COMPRESSION_LEVEL = 1
HOST_UNREACHABLE = frozenset({"invalid_url", "dns", "connect", "blocked_address", "tls"})


@dataclass(frozen=True)
class FetchJob:
    page_id: int
    url: str
    is_internal: bool
    attempts: int = 0


@dataclass
class PageOutcome:
    job: FetchJob
    result: FetchResult | None = None  # None when robots.txt forbade the fetch
    parsed: ParsedPage | None = None
    encoding: str = ""
    blocked_by_robots: bool = False
    retry_in: float | None = None  # seconds until a retry, for a 429/503 that has retries left
    noindex: bool = False
    nofollow: bool = False
    # HTML bodies are kept for later analyses, compressed here in the thread.
    compressed_body: bytes | None = None
    extracts: dict[str, bytes] = field(default_factory=dict)  # the analyses' extractors' results, by name
    judgement: Judgement | None = None
    # An external target's verdict reused from an earlier check (sites/services/external_cache.py): not fetched.
    cached: Any = None

    @property
    def requests(self) -> int:
        if self.result is None:
            return 0
        probe = self.judgement.probe if self.judgement and self.judgement.probe_fetched else None
        return len(self.result.redirects) + 1 + (probe.requests if probe else 0)


@dataclass
class CrawlSession:
    """What one process keeps between a crawl's batches: the pooled fetcher, the scheduler, parsed robots.

    A page is a chain of steps, each started when the one before it ends: its origin's robots.txt (fetched once,
    by whichever page needs it first), the page itself, its directory's soft-404 probe, then reading it. Each
    request waits in its host's queue of the PoliteScheduler, holding no thread, so a crawl checking links to
    a thousand hosts talks to `fetch_concurrency` of them at once, each at its own politeness."""

    config: CrawlConfig
    reader: PageReader  # reads fetched HTML pages, in processes of their own by default (reading.py)
    fetcher: Fetcher = field(init=False)
    scheduler: PoliteScheduler = field(init=False)
    scope: CrawlScope = field(init=False)
    rules: dict[str, RobotsRules] = field(default_factory=dict)

    def __post_init__(self) -> None:
        config = self.config
        workers = config.lane_fetch_concurrency
        self.fetcher = Fetcher(
            FetchPolicy(
                user_agent=config.user_agent,
                timeout=config.timeout,
                max_bytes=config.max_bytes,
                max_redirects=config.max_redirects,
                allowed_networks=config.allowed_networks,
                pool_size=max(10, config.lane_concurrency * 2),
                # Connections kept for this many hosts: one per request that may run at once.
                pool_hosts=max(10, workers),
            )
        )
        self.scheduler = PoliteScheduler(
            workers=workers, per_host=config.lane_concurrency, delay=config.lane_delay, name="fetch"
        )
        self.scope = CrawlScope.from_text(config.start_url, config.include_patterns, config.exclude_patterns)
        self.probes: ProbeCache | None = ProbeCache(self._polite_fetch) if config.probe else None
        self._lock = threading.Lock()
        self._robots_pending: dict[str, Future[None]] = {}
        self._robots_fetched: dict[str, str | None] = {}  # fetched by the page chains, not yet stored
        self._probes_pending: dict[str, Future[ProbeAnswer]] = {}
        if config.classify:
            self.reader.load_model(config.soft404_model)  # a model that cannot be used fails the crawl here

    def _polite_fetch(self, url: str, max_bytes: int | None = None) -> FetchResult:
        """Fetch `url` in its host's turn and wait for it (for callers that need the answer in their thread)."""
        return self._submit_fetch(url, max_bytes).result()

    def _submit_fetch(self, url: str, max_bytes: int | None = None) -> Future[FetchResult]:
        return self.scheduler.submit(
            site_key(url),
            partial(self.fetcher.fetch, url, max_bytes=max_bytes),
            min_delay=self._crawl_delay(url),
        )

    def _robots_allow(self, url: str) -> bool:
        rules = self.rules.get(origin(url)) if self.config.obey_robots else None
        return rules is None or rules.allowed(url)

    def close(self) -> None:
        self.scheduler.close()
        self.fetcher.close()

    # robots.txt ---------------------------------------------------------------------------------------------
    def origins_missing_robots(self, urls: list[str]) -> list[str]:
        if not self.config.obey_robots:
            return []
        return sorted({origin(url) for url in urls} - set(self.rules))

    def learn_robots(self, known: dict[str, str | None]) -> None:
        for site_origin, text in known.items():
            self.rules[site_origin] = RobotsRules(text, self.config.user_agent)

    def fetch_robots(self, origins: list[str]) -> dict[str, str | None]:
        """Fetch robots.txt of each origin (politely, all hosts at once); return the texts to keep (None =
        disallow all)."""
        futures = {site_origin: self._submit_robots(site_origin) for site_origin in origins}
        texts = {site_origin: _robots_text(future.result()) for site_origin, future in futures.items()}
        self.learn_robots(texts)
        return texts

    def _submit_robots(self, site_origin: str) -> Future[FetchResult]:
        return self._submit_fetch(robots_url(site_origin + "/"), ROBOTS_MAX_BYTES)

    def _robots_ready(self, site_origin: str) -> Future[None]:
        """Done once the rules of `site_origin` are known: fetched by the first page that needs them."""
        with self._lock:
            pending = self._robots_pending.get(site_origin)
            if pending is not None:
                return pending
            ready: Future[None] = Future()
            if site_origin in self.rules:
                ready.set_result(None)
                return ready
            self._robots_pending[site_origin] = ready

        def learned(fetched: Future[FetchResult]) -> None:
            try:
                text = _robots_text(fetched.result())
                with self._lock:
                    self.rules[site_origin] = RobotsRules(text, self.config.user_agent)
                    self._robots_fetched[site_origin] = text
                    del self._robots_pending[site_origin]
                ready.set_result(None)
            except BaseException as exc:  # the pages waiting fail with it; the next page asks again
                with self._lock:
                    self._robots_pending.pop(site_origin, None)
                ready.set_exception(exc)

        self._submit_robots(site_origin).add_done_callback(learned)
        return ready

    def take_fetched_robots(self) -> dict[str, str | None]:
        """The robots.txt texts the page chains fetched since the last call (to store them and count them)."""
        with self._lock:
            fetched, self._robots_fetched = self._robots_fetched, {}
        return fetched

    # pages --------------------------------------------------------------------------------------------------
    def fetch_batch(self, jobs: list[FetchJob]) -> list[PageOutcome]:
        return self.submit_batch(jobs)()

    def submit_batch(self, jobs: list[FetchJob]) -> Callable[[], list[PageOutcome]]:
        """Start fetching `jobs`; the returned function waits for their outcomes, in job order."""
        futures = [self.submit(job) for job in jobs]
        return lambda: [future.result() for future in futures]

    def submit(self, job: FetchJob) -> Future[PageOutcome]:
        """Start the page's chain; the future holds its outcome."""
        done: Future[PageOutcome] = Future()
        if self.config.obey_robots:
            ready = self._robots_ready(origin(job.url))
            ready.add_done_callback(_step(done, lambda _: self._fetch_page(job, done)))
        else:
            _step(done, lambda _: self._fetch_page(job, done))(None)
        return done

    def _crawl_delay(self, url: str) -> float:
        rules = self.rules.get(origin(url))
        delay = rules.crawl_delay() if rules is not None else None
        return min(delay or 0.0, MAX_CRAWL_DELAY)

    def _fetch_page(self, job: FetchJob, done: Future[PageOutcome]) -> None:
        if not self._robots_allow(job.url):
            done.set_result(PageOutcome(job, blocked_by_robots=True))
            return
        self._submit_fetch(job.url).add_done_callback(
            _step(done, lambda f: self._fetched(job, f.result(), done))
        )

    def _fetched(self, job: FetchJob, result: FetchResult, done: Future[PageOutcome]) -> None:
        outcome = PageOutcome(job, result=result)
        if result.status in RETRYABLE_STATUSES and job.attempts < self.config.retries:
            backoff = self.config.backoff_seconds * 2**job.attempts
            outcome.retry_in = min(self.config.backoff_cap_seconds, max(result.retry_after or 0.0, backoff))
            self.scheduler.penalize(site_key(job.url), outcome.retry_in)
            done.set_result(outcome)
            return
        if result.body and result.is_html and result.status is not None and 200 <= result.status < 300:
            probe = self._probe_for(job.url)
            probe.add_done_callback(_step(done, lambda f: done.set_result(self._read(outcome, *f.result()))))
            return
        done.set_result(self._read(outcome, None, False))

    def _read(self, outcome: PageOutcome, probe: ProbeAnswer | None, probe_fetched: bool) -> PageOutcome:
        job, result = outcome.job, outcome.result
        outcome.noindex, outcome.nofollow = robots_directives(result.headers.get("x-robots-tag", ""))
        reading = None
        if result.body and result.is_html:
            outcome.compressed_body = zlib.compress(result.body, BODY_COMPRESSION_LEVEL)
            if result.status is not None and 200 <= result.status < 300:
                reading = self.reader.read(
                    PageRequest(
                        body=result.body,
                        url=result.final_url,
                        charset=result.charset,
                        with_links=self._should_follow(job, result),
                        model=self.config.soft404_model if self.config.classify else None,
                        probe_text=probe.text
                        if probe is not None
                        and probe_compares_contents(url=job.url, result=result, probe=probe)
                        else None,
                        extractors=self.config.extractors,
                    )
                )
                outcome.extracts = reading.extracts
                outcome.encoding, outcome.parsed = reading.encoding, reading.page
                outcome.noindex |= reading.page.noindex
                outcome.nofollow |= reading.page.nofollow
        outcome.judgement = judge(
            url=job.url,
            result=result,
            reading=reading,
            probe=probe,
            probe_fetched=probe_fetched,
            resemblance_threshold=self.config.probe_resemblance,
            soft404_threshold=self.config.soft404_threshold,
        )
        verdict = outcome.judgement.verdict
        if (
            verdict.verdict == PageVerdict.SOFT404
            and not verdict.by_classifier_alone
            and outcome.parsed is not None
        ):
            # A page a probe shows to be the server's answer to anything leads nowhere: no work is spent on its
            # links. One the classifier judged alone keeps them: if it is wrong, the pages reachable only
            # through it are still found; if it is right, its links are the site's chrome, found anyway.
            outcome.parsed.links = []
        return outcome

    def _probe_for(self, url: str) -> Future[tuple[ProbeAnswer | None, bool]]:
        """The probe of the page's target (its directory, lookup or identifier; fetched on first need) and
        whether this page's chain fetched it; none for a site root without a lookup query (never a soft-404 by
        the probe, Table 1) or a target robots.txt keeps the crawl out of."""
        answer: Future[tuple[ProbeAnswer | None, bool]] = Future()
        if self.probes is None:
            answer.set_result((None, False))
            return answer
        target = self.probes.target(url)
        if target.is_root() or not self._robots_allow(target.scope_url):
            answer.set_result((None, False))
            return answer
        with self._lock:
            known = self.probes.known(target.key)
            pending = self._probes_pending.get(target.key) if known is None else None
            first = known is None and pending is None
            if first:
                pending = self._probes_pending[target.key] = Future()
        if known is not None:
            answer.set_result((known, False))
            return answer

        def answered(probe: Future[ProbeAnswer]) -> None:
            try:
                answer.set_result((probe.result(), first))
            except BaseException as exc:
                answer.set_exception(exc)

        pending.add_done_callback(answered)
        if first:
            self._submit_fetch(target.url(self.probes.rng)).add_done_callback(
                partial(self._probe_fetched, target.key, pending)
            )
        return answer

    def _probe_fetched(self, key: str, pending: Future[ProbeAnswer], fetched: Future[FetchResult]) -> None:
        try:
            probe = ProbeAnswer.from_fetch(key, fetched.result())
        except BaseException as exc:
            with self._lock:
                del self._probes_pending[key]
            pending.set_exception(exc)
            return
        self.probes.learn([probe])
        with self._lock:
            del self._probes_pending[key]
        pending.set_result(probe)

    def _should_follow(self, job: FetchJob, result: FetchResult) -> bool:
        return job.is_internal and self.scope.same_site(result.final_url)


def completed(value: Any) -> Future:
    """A future already holding `value` (an outcome known without fetching)."""
    future: Future = Future()
    future.set_result(value)
    return future


def _robots_text(result: FetchResult) -> str | None:
    if result.error_kind in HOST_UNREACHABLE:
        # Nothing answers there: the page fetches will fail with the real reason, which is what an audit must
        # report, rather than "disallowed by robots.txt".
        return ""
    return robots_text_of(result)


def _step(done: Future, then: Callable[[Future | None], None]) -> Callable[[Future | None], None]:
    """Wrap a step of a page's chain: an exception in it (or in the step before) ends the page's future with it,
    instead of vanishing in a thread's done-callback."""

    def run(previous: Future | None) -> None:
        try:
            if previous is not None:
                previous.result()  # re-raises the previous step's exception
            then(previous)
        except BaseException as exc:
            if not done.done():
                done.set_exception(exc)

    return run


class SessionCache:
    """Keep the last few crawls' sessions per process so batches reuse pooled connections."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._sessions: OrderedDict[tuple[int, str], CrawlSession] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, crawl_id: int, config: CrawlConfig, reader: PageReader) -> CrawlSession:
        key = (crawl_id, repr(config))
        with self._lock:
            session = self._sessions.get(key)
            if session is None:
                session = self._sessions[key] = CrawlSession(config, reader)
                while len(self._sessions) > self.size:
                    _, old = self._sessions.popitem(last=False)
                    old.close()
            self._sessions.move_to_end(key)
            return session

    def drop(self, crawl_id: int) -> None:
        with self._lock:
            for key in [key for key in self._sessions if key[0] == crawl_id]:
                self._sessions.pop(key).close()


sessions = SessionCache()
