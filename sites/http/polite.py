"""PoliteFetcher: every fetch of webaudit that reaches a site, made politely.

It owns the HTTP client (limits and the address guard on every hop), the per-host politeness (requests at
once and seconds between them, per host), the robots.txt rules of each origin (RFC 9309 through protego,
Crawl-delay included) and the reading of 429/503 answers (Retry-After, backoff).

The politeness is kept one of two ways. By default a HostThrottle makes the calling thread wait for its host's
turn: right for callers with a few threads of their own (page finding, IndexNow, MWIM). A `scheduled` fetcher
(the crawl) instead runs every request on a PoliteScheduler: `submit` queues the request with its host and
returns a future, and up to `fetch_concurrency` threads run only requests whose host may take them now, so a
crawl checking links to a thousand hosts talks to that many of them at once, each at its own politeness. The crawl, live decay,
URL checks, page finding's live search and IndexNow all fetch through one of these, built from a
FetchSettings; none of them writes robots, Crawl-delay or Retry-After handling of its own.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from functools import partial
from types import TracebackType

from .client import Fetcher
from .fetch_settings import FetchSettings
from .result import FetchResult
from .robots import RobotsRules, parse_robots, robots_url
from .scheduler import PoliteScheduler
from .throttle import HostThrottle
from .urls import host_key, origin

# A Crawl-delay above this is treated as this: a site asking for more would take days to audit.
MAX_CRAWL_DELAY = 60.0
# Answers that ask us to slow down and come back.
SLOW_DOWN_STATUSES = frozenset({429, 503})
# robots.txt is read up to this size (RFC 9309 §2.5 asks for at least 500 KiB to be parsed).
ROBOTS_FETCH_BYTES = 500_000
# Failures that say nothing answers at an origin: its robots.txt then allows everything, so that the page
# fetches fail with the real reason (what an audit must report) rather than "disallowed by robots.txt".
HOST_UNREACHABLE = frozenset({"invalid_url", "dns", "connect", "blocked_address", "tls"})


def robots_text_of(result: FetchResult) -> str | None:
    """The robots text to obey after fetching robots.txt (None: disallow everything)."""
    if result.error_kind in HOST_UNREACHABLE:
        return ""
    return parse_robots(result)


def robots_failure_of(result: FetchResult) -> tuple[str, str] | None:
    """(error kind, message) when a robots.txt fetch failed on the way (timeout, reset...), else None.

    A 5xx or 429 answer is the server's word and stays a robots.txt matter; a failure is not."""
    if not result.error_kind or result.status is not None and result.error_kind == "too_large":
        return None
    return result.error_kind, f"robots.txt could not be fetched ({result.error}); not fetched (RFC 9309)"


class PoliteFetcher:
    """Fetch (GET) and post (JSON) under one FetchSettings, politely; safe to share between threads."""

    def __init__(
        self,
        settings: FetchSettings,
        *,
        max_bytes: int | None = None,
        pool_size: int | None = None,
        space_from_end: bool = False,
        scheduled: bool = False,
    ) -> None:
        if scheduled and space_from_end:
            raise ValueError("a scheduled PoliteFetcher spaces requests from their starts")
        self.settings = settings
        self.fetcher = Fetcher(settings.policy(max_bytes=max_bytes, pool_size=pool_size))
        self.throttle = HostThrottle(settings.concurrency, settings.delay, space_from_end=space_from_end)
        self.scheduler = (
            PoliteScheduler(
                workers=settings.fetch_concurrency, per_host=settings.concurrency, delay=settings.delay
            )
            if scheduled
            else None
        )
        self.rules: dict[str, RobotsRules] = {}
        # Origins whose robots.txt could not be fetched (timeout, reset...): (error kind, message). RFC 9309 keeps
        # their pages unfetched, and that is reported as the failure it is, not as a robots.txt refusal.
        self.robots_failures: dict[str, tuple[str, str]] = {}
        self._rules_lock = threading.Lock()
        self._robots_pending: dict[str, Future[None]] = {}
        # Fetched by robots_ready, not yet taken: (text, failure).
        self._robots_fetched: dict[str, tuple[str | None, tuple[str, str] | None]] = {}

    def __enter__(self) -> PoliteFetcher:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.close()
        self.fetcher.close()

    # robots.txt ---------------------------------------------------------------------------------------------
    def origins_missing_robots(self, urls: list[str]) -> list[str]:
        """The origins of `urls` whose robots.txt is not known yet (none when robots are not obeyed)."""
        if not self.settings.obey_robots:
            return []
        return sorted({origin(url) for url in urls} - set(self.rules))

    def learn_robots(
        self, site_origin: str, text: str | None, failure: tuple[str, str] | None = None
    ) -> None:
        """Obey `text` for `site_origin` (None: nothing allowed); `failure` says why it could not be fetched."""
        with self._rules_lock:
            self.rules[site_origin] = RobotsRules(text, self.settings.user_agent)
            if text is None and failure is not None:
                self.robots_failures[site_origin] = failure
            else:
                self.robots_failures.pop(site_origin, None)

    def fetch_robots(self, site_origin: str) -> FetchResult:
        """Fetch robots.txt of `site_origin` (politely) and obey what it says; return the fetch."""
        result = self._fetch_in_slot(robots_url(site_origin + "/"), 0.0, max_bytes=ROBOTS_FETCH_BYTES)
        self.learn_robots(site_origin, robots_text_of(result), robots_failure_of(result))
        return result

    def robots_ready(self, site_origin: str) -> Future[None]:
        """Done once the rules of `site_origin` are known (scheduled fetchers): robots.txt is fetched by the first
        caller that needs it, and the others wait on the same future, holding no thread."""
        with self._rules_lock:
            pending = self._robots_pending.get(site_origin)
            if pending is not None:
                return pending
            ready: Future[None] = Future()
            if site_origin in self.rules or not self.settings.obey_robots:
                ready.set_result(None)
                return ready
            self._robots_pending[site_origin] = ready

        def learned(fetched: Future[FetchResult]) -> None:
            try:
                result = fetched.result()
                text, failure = robots_text_of(result), robots_failure_of(result)
                self.learn_robots(site_origin, text, failure)
                with self._rules_lock:
                    self._robots_fetched[site_origin] = (text, failure)
                    del self._robots_pending[site_origin]
                ready.set_result(None)
            except BaseException as exc:  # the callers waiting fail with it; the next one asks again
                with self._rules_lock:
                    self._robots_pending.pop(site_origin, None)
                ready.set_exception(exc)

        self.submit(
            robots_url(site_origin + "/"), max_bytes=ROBOTS_FETCH_BYTES, min_delay=0.0
        ).add_done_callback(learned)
        return ready

    def take_fetched_robots(self) -> dict[str, tuple[str | None, tuple[str, str] | None]]:
        """The robots.txt texts robots_ready fetched since the last call, each with the failure that made it
        None if one did (for the caller to store and count)."""
        with self._rules_lock:
            fetched, self._robots_fetched = self._robots_fetched, {}
        return fetched

    def robots_failure(self, url: str) -> tuple[str, str] | None:
        """(error kind, message) when `url` is kept out because its robots.txt could not be fetched."""
        return self.robots_failures.get(origin(url))

    def robots_for(self, url: str) -> RobotsRules | None:
        return self.rules.get(origin(url))

    def allowed(self, url: str) -> bool:
        """Whether robots.txt lets us fetch `url` (always, when robots are not obeyed or not known)."""
        rules = self.rules.get(origin(url)) if self.settings.obey_robots else None
        return rules is None or rules.allowed(url)

    def crawl_delay(self, url: str) -> float:
        rules = self.rules.get(origin(url))
        delay = rules.crawl_delay() if rules is not None else None
        return min(delay or 0.0, MAX_CRAWL_DELAY)

    # requests -----------------------------------------------------------------------------------------------
    def fetch(
        self, url: str, *, max_bytes: int | None = None, headers: dict[str, str] | None = None
    ) -> FetchResult:
        """GET `url` once its host may be asked again (per-host limits, delay, Crawl-delay, pauses); `max_bytes`
        overrides the settings' size limit (a sitemap may be bigger than a page); `headers` go with the first
        request only (a recrawl's validators, Fetcher.fetch).

        robots.txt is the caller's to consult first (`allowed`): a refusal is an outcome it reports."""
        return self._fetch_in_slot(url, self.crawl_delay(url), max_bytes=max_bytes, headers=headers)

    def post_json(self, url: str, payload: object, *, headers: dict[str, str] | None = None) -> FetchResult:
        """POST `payload` as JSON to `url` under the same guard, limits and per-host spacing as a GET; `headers`
        such as a signature of the body (`json_body(payload)` is what is sent)."""
        if self.scheduler is not None:
            job = partial(self.fetcher.post_json, url, payload, headers=headers)
            return self.scheduler.submit(host_key(url), job, min_delay=self.crawl_delay(url)).result()
        with self.throttle.slot(host_key(url), self.crawl_delay(url)):
            return self.fetcher.post_json(url, payload, headers=headers)

    def submit(
        self,
        url: str,
        *,
        max_bytes: int | None = None,
        min_delay: float | None = None,
        headers: dict[str, str] | None = None,
    ) -> Future[FetchResult]:
        """Queue a GET of `url` for its host's turn (scheduled fetchers); the future holds the result. No thread
        is held meanwhile. `min_delay` defaults to the host's Crawl-delay."""
        if self.scheduler is None:
            raise RuntimeError("submit needs a scheduled PoliteFetcher")
        return self.scheduler.submit(
            host_key(url),
            partial(self.fetcher.fetch, url, max_bytes=max_bytes, headers=headers),
            min_delay=self.crawl_delay(url) if min_delay is None else min_delay,
        )

    def _fetch_in_slot(
        self,
        url: str,
        min_delay: float,
        *,
        max_bytes: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> FetchResult:
        if self.scheduler is not None:
            return self.submit(url, max_bytes=max_bytes, min_delay=min_delay, headers=headers).result()
        with self.throttle.slot(host_key(url), min_delay):
            return self.fetcher.fetch(url, max_bytes=max_bytes, headers=headers)

    # slowing down -------------------------------------------------------------------------------------------
    def pause(self, url: str, seconds: float) -> None:
        """Ask nothing of `url`'s host for `seconds`: its next request waits that long in `fetch`."""
        self.throttle.penalize(host_key(url), seconds)
        if self.scheduler is not None:
            self.scheduler.penalize(host_key(url), seconds)

    def backoff(self, url: str, result: FetchResult, attempts: int) -> float | None:
        """After a 429/503 with retries left: the seconds before asking again (the settings' exponential backoff,
        or the Retry-After if longer, capped), with the host paused that long; else None."""
        settings = self.settings
        if result.status not in SLOW_DOWN_STATUSES or attempts >= settings.retries:
            return None
        wait = settings.backoff_seconds * 2**attempts
        wait = min(settings.backoff_cap_seconds, max(result.retry_after or 0.0, wait))
        self.pause(url, wait)
        return wait

    def retry_wait(
        self,
        url: str,
        result: FetchResult,
        *,
        longest: float,
        without_retry_after: float | None,
        statuses: frozenset[int] = SLOW_DOWN_STATUSES,
        cap: bool = True,
    ) -> float | None:
        """For a caller that asks once more after a slow-down answer: the seconds to wait, with the host paused
        that long (the next `fetch` or `post_json` waits it out); None when it is not to be asked again.

        The wait is the Retry-After, else `without_retry_after` (None: no retry without one); past `longest` it
        is `longest` when `cap`, else no retry (the wait is left to a later run)."""
        if result.status not in statuses:
            return None
        wait = result.retry_after if result.retry_after is not None else without_retry_after
        if wait is None:
            return None
        if wait > longest:
            if not cap:
                return None
            wait = longest
        self.pause(url, wait)
        return wait
