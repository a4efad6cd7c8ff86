"""Fetch a batch of frontier URLs concurrently: robots.txt, per-host politeness, backoff, then parse."""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from sites.crawler.config import CrawlConfig
from sites.crawler.judging import Judgement, judge
from sites.crawler.parse import ParsedPage, robots_directives
from sites.crawler.reading import PageReader, PageRequest
from sites.crawler.soft404.probing import ProbeAnswer, ProbeCache, probe_compares_contents
from sites.crawler.soft404.verdict import PageVerdict
from sites.crawler.urls import CrawlScope
from sites.http import FetchResult, PoliteFetcher

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
    """What one process keeps between a crawl's batches: the polite fetcher (pooled connections, per-host
    throttle, robots.txt rules) and the thread pool that fetches and reads pages."""

    config: CrawlConfig
    reader: PageReader  # reads fetched HTML pages, in processes of their own by default (reading.py)
    polite: PoliteFetcher = field(init=False)
    scope: CrawlScope = field(init=False)

    def __post_init__(self) -> None:
        config = self.config
        self.polite = PoliteFetcher(config.lane_fetch_settings)
        self.scope = CrawlScope.from_text(config.start_url, config.include_patterns, config.exclude_patterns)
        # Internal and external hosts have their own throttle slots, so twice the threads keep both busy.
        self.pool = ThreadPoolExecutor(max_workers=config.lane_concurrency * 2, thread_name_prefix="fetch")
        self.probes: ProbeCache | None = ProbeCache(self.polite.fetch) if config.probe else None
        if config.classify:
            self.reader.load_model(config.soft404_model)  # a model that cannot be used fails the crawl here

    def polite_fetch(self, url: str, *, max_bytes: int | None = None) -> FetchResult:
        """Fetch one URL outside the page batches (a sitemap), within the host's politeness."""
        return self.polite.fetch(url, max_bytes=max_bytes)

    def robots_allow(self, url: str) -> bool:
        return self.polite.allowed(url)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.polite.close()

    # robots.txt ---------------------------------------------------------------------------------------------
    def origins_missing_robots(self, urls: list[str]) -> list[str]:
        return self.polite.origins_missing_robots(urls)

    def learn_robots(self, known: dict[str, str | None]) -> None:
        for site_origin, text in known.items():
            self.polite.learn_robots(site_origin, text)

    def fetch_robots(self, origins: list[str]) -> dict[str, str | None]:
        """Fetch robots.txt of each origin (politely); return the texts to keep (None = disallow all)."""

        def one(site_origin: str) -> tuple[str, str | None]:
            self.polite.fetch_robots(site_origin)
            return site_origin, self.polite.rules[site_origin].text

        return dict(self.pool.map(one, origins))

    # pages --------------------------------------------------------------------------------------------------
    def fetch_batch(self, jobs: list[FetchJob]) -> list[PageOutcome]:
        return self.submit_batch(jobs)()

    def submit_batch(self, jobs: list[FetchJob]) -> Callable[[], list[PageOutcome]]:
        """Start fetching `jobs` in the pool; the returned function waits for their outcomes, in job order."""
        futures = [self.pool.submit(self._fetch_one, job) for job in jobs]
        return lambda: [future.result() for future in futures]

    def _fetch_one(self, job: FetchJob) -> PageOutcome:
        outcome = PageOutcome(job)
        if not self.polite.allowed(job.url):
            outcome.blocked_by_robots = True
            return outcome
        conditional = job.baseline.headers() if job.baseline is not None else None
        result = outcome.result = self.polite.fetch(job.url, headers=conditional)
        if result.status == NOT_MODIFIED and conditional:
            outcome.not_modified = True
            return outcome
        outcome.retry_in = self.polite.backoff(job.url, result, job.attempts)
        if outcome.retry_in is not None:
            return outcome
        outcome.noindex, outcome.nofollow = robots_directives(result.headers.get("x-robots-tag", ""))
        reading = probe = None
        probe_fetched = False
        if result.body and result.is_html:
            outcome.compressed_body = zlib.compress(result.body, BODY_COMPRESSION_LEVEL)
            if result.status is not None and 200 <= result.status < 300:
                probe, probe_fetched = self._probe_for(job.url)
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

    def _probe_for(self, url: str) -> tuple[ProbeAnswer | None, bool]:
        """The probe of the page's target (its directory, lookup or identifier; fetched on first need) and
        whether this call fetched it; none for a site root without a lookup query (never a soft-404 by the
        probe, Table 1) or a target robots.txt keeps the crawl out of."""
        if self.probes is None:
            return None, False
        target = self.probes.target(url)
        if target.is_root() or not self.polite.allowed(target.scope_url):
            return None, False
        return self.probes.get(url, target)

    def _should_follow(self, job: FetchJob, result: FetchResult) -> bool:
        return job.is_internal and self.scope.same_site(result.final_url)


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
