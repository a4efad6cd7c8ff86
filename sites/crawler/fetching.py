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

from sites.crawler.config import CrawlConfig
from sites.crawler.judging import Judgement, judge
from sites.crawler.parse import ParsedPage, robots_directives
from sites.crawler.reading import PageReader, PageRequest
from sites.crawler.soft404.probing import ProbeAnswer, ProbeCache, probe_compares_contents
from sites.crawler.soft404.verdict import PageVerdict
from sites.crawler.urls import CrawlScope
from sites.http import FetchResult, PoliteFetcher
from sites.http.scheduler import PoliteScheduler
from sites.http.urls import origin

NOT_MODIFIED = 304
# zlib level 1 shrinks documentation HTML ~3.5x at 5x the speed of the default level 6 (~4x).
BODY_COMPRESSION_LEVEL = 1


@dataclass(frozen=True)
class FetchJob:
    page_id: int
    url: str
    is_internal: bool
    attempts: int = 0
    # What the page answered in the crawl's baseline (its id there, ETag, Last-Modified), when that answer
    # can be asked again conditionally; a 304 then reuses the baseline's page instead of downloading it.
    baseline: Validators | None = None


@dataclass(frozen=True)
class Validators:
    page_id: int
    etag: str = ""
    last_modified: str = ""

    def headers(self) -> dict[str, str]:
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


# robots.txt as a crawl keeps it: its text (None: nothing allowed) and, when a failure made it None, why.
RobotsAnswer = tuple[str | None, tuple[str, str] | None]


@dataclass
class PageOutcome:
    job: FetchJob
    result: FetchResult | None = None  # None when robots.txt forbade the fetch
    parsed: ParsedPage | None = None
    encoding: str = ""
    blocked_by_robots: bool = False
    # Kept out because robots.txt could not be fetched (RFC 9309): (error kind, message); None for a refusal.
    robots_failure: tuple[str, str] | None = None
    retry_in: float | None = None  # seconds until a retry, for a 429/503 that has retries left
    noindex: bool = False
    nofollow: bool = False
    # The site's own HTML bodies are kept for later analyses, compressed here in the thread.
    compressed_body: bytes | None = None
    extracts: dict[str, bytes] = field(default_factory=dict)  # the analyses' extractors' results, by name
    judgement: Judgement | None = None
    # An external target's verdict reused from an earlier check (sites/services/external_cache.py): not fetched.
    cached: Any = None
    # Answered 304 to the baseline's validators: nothing was downloaded, the baseline's page stands.
    not_modified: bool = False

    @property
    def bytes_received(self) -> int:
        return len(self.result.body) if self.result is not None else 0

    @property
    def requests(self) -> int:
        if self.result is None:
            return 0
        probe = self.judgement.probe if self.judgement and self.judgement.probe_fetched else None
        return len(self.result.redirects) + 1 + (probe.requests if probe else 0)


@dataclass
class CrawlSession:
    """What one process keeps between a crawl's batches: a scheduled polite fetcher (pooled connections, per-host
    politeness, robots.txt rules, a bounded pool of threads across hosts).

    A page is a chain of steps, each started when the one before it ends: its origin's robots.txt (fetched once,
    by whichever page needs it first), the page itself, its directory's soft-404 probe, then reading it. Each
    request waits in its host's queue of the fetcher's PoliteScheduler, holding no thread, so a crawl checking
    links to a thousand hosts talks to `fetch_concurrency` of them at once, each at its own politeness."""

    config: CrawlConfig
    reader: PageReader  # reads fetched HTML pages, in processes of their own by default (reading.py)
    polite: PoliteFetcher = field(init=False)
    scope: CrawlScope = field(init=False)

    def __post_init__(self) -> None:
        config = self.config
        self.polite = PoliteFetcher(config.lane_fetch_settings, scheduled=True)
        self.scope = CrawlScope.from_text(config.start_url, config.include_patterns, config.exclude_patterns)
        self.probes: ProbeCache | None = ProbeCache(self.polite.fetch) if config.probe else None
        self._lock = threading.Lock()
        self._probes_pending: dict[str, Future[ProbeAnswer]] = {}
        if config.classify:
            self.reader.load_model(config.soft404_model)  # a model that cannot be used fails the crawl here

    @property
    def scheduler(self) -> PoliteScheduler:
        return self.polite.scheduler

    def polite_fetch(self, url: str, *, max_bytes: int | None = None) -> FetchResult:
        """Fetch one URL outside the page batches (a sitemap), within the host's politeness."""
        return self.polite.fetch(url, max_bytes=max_bytes)

    def robots_allow(self, url: str) -> bool:
        return self.polite.allowed(url)

    def close(self) -> None:
        self.polite.close()

    # robots.txt ---------------------------------------------------------------------------------------------
    def origins_missing_robots(self, urls: list[str]) -> list[str]:
        return self.polite.origins_missing_robots(urls)

    def learn_robots(self, known: dict[str, RobotsAnswer]) -> None:
        for site_origin, (text, failure) in known.items():
            self.polite.learn_robots(site_origin, text, failure)

    def fetch_robots(self, origins: list[str]) -> dict[str, RobotsAnswer]:
        """Fetch robots.txt of each origin (politely, all hosts at once); return the texts to keep (None =
        disallow all), each with the failure that made it None, if one did (a timeout: (kind, message)). What was
        fetched stays for `take_fetched_robots` (the crawl stores it with its batch)."""
        for ready in [self.polite.robots_ready(site_origin) for site_origin in origins]:
            ready.result()
        return {
            site_origin: (self.polite.rules[site_origin].text, self.polite.robots_failures.get(site_origin))
            for site_origin in origins
        }

    def take_fetched_robots(self) -> dict[str, RobotsAnswer]:
        """The robots.txt answers the page chains fetched since the last call (to store them and count them)."""
        return self.polite.take_fetched_robots()

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
        ready = self.polite.robots_ready(origin(job.url))
        ready.add_done_callback(_step(done, lambda _: self._fetch_page(job, done)))
        return done

    def _fetch_page(self, job: FetchJob, done: Future[PageOutcome]) -> None:
        if not self.polite.allowed(job.url):
            done.set_result(
                PageOutcome(job, blocked_by_robots=True, robots_failure=self.polite.robots_failure(job.url))
            )
            return
        conditional = job.baseline.headers() if job.baseline is not None else None
        self.polite.submit(job.url, headers=conditional).add_done_callback(
            _step(done, lambda f: self._fetched(job, f.result(), done, conditional))
        )

    def _fetched(
        self, job: FetchJob, result: FetchResult, done: Future[PageOutcome], conditional: dict | None
    ) -> None:
        outcome = PageOutcome(job, result=result)
        if result.status == NOT_MODIFIED and conditional:
            outcome.not_modified = True
            done.set_result(outcome)
            return
        outcome.retry_in = self.polite.backoff(job.url, result, job.attempts)
        if outcome.retry_in is not None:
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
            if job.is_internal:
                # Kept for the analyses, which read the site's own pages; an external target is kept as its
                # verdict and what the reports show of it (status, title, redirects), not its body.
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
                        extractors=self.config.extractors if job.is_internal else (),
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
        if self.probes is None:
            return completed((None, False))
        target = self.probes.target(url)
        if target.is_root() or not self.polite.allowed(target.scope_url):
            return completed((None, False))
        with self._lock:
            known = self.probes.known(target.key)
            pending = self._probes_pending.get(target.key) if known is None else None
            first = known is None and pending is None
            if first:
                pending = self._probes_pending[target.key] = Future()
        if known is not None:
            return completed((known, False))
        answer: Future[tuple[ProbeAnswer | None, bool]] = Future()

        def answered(probe: Future[ProbeAnswer]) -> None:
            try:
                answer.set_result((probe.result(), first))
            except BaseException as exc:
                answer.set_exception(exc)

        pending.add_done_callback(answered)
        if first:
            self.polite.submit(target.url(self.probes.rng)).add_done_callback(
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
        self._sessions: OrderedDict[tuple[int, str, str], CrawlSession] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self, crawl_id: int, config: CrawlConfig, reader: PageReader, *, created: str = ""
    ) -> CrawlSession:
        """The crawl's session, made if this process has none. `created` (when the crawl was made) tells apart
        two crawls that got one id: a rolled-back transaction hands its ids out again, and a session (its robots
        rules, its probes) must never outlive its crawl into another's."""
        key = (crawl_id, created, repr(config))
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
