"""Check a list of URLs dead / soft-404 / ok outside a crawl, with a crawl's politeness, robots and probe cache."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from django.conf import settings
from django.utils import timezone

from sites.crawler.config import CrawlConfig
from sites.crawler.fetching import CrawlSession, FetchJob, PageOutcome
from sites.crawler.reading import shared_reader
from sites.crawler.soft404.verdict import FINAL_ERRORS, PageVerdict
from sites.crawler.urls import normalize_url
from sites.services.soft404 import url_health_clear, url_health_record


@dataclass
class UrlCheck:
    url: str
    verdict: str
    reason: str
    soft404_probability: float | None = None
    probe: dict | None = None
    status: int | None = None
    final_url: str | None = None
    redirects: list[dict] = field(default_factory=list)
    error: str | None = None
    strikes: int = 0
    failing_since: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def _as_check(url: str, outcome: PageOutcome, now) -> UrlCheck:
    if outcome.robots_failure is not None:
        error_kind, message = outcome.robots_failure
        return UrlCheck(url, "", f"not checked: {error_kind}", error=message)
    if outcome.blocked_by_robots or outcome.result is None:
        return UrlCheck(url, "", "not checked: disallowed by robots.txt")
    result, judgement = outcome.result, outcome.judgement
    verdict = judgement.verdict
    check = UrlCheck(
        url=url,
        verdict=verdict.verdict,
        reason=verdict.reason,
        soft404_probability=judgement.probability,
        probe=judgement.probe_evidence(),
        status=result.status,
        final_url=result.final_url,
        redirects=[asdict(hop) for hop in result.redirects],
        error=result.error or None,
    )
    if verdict.transient:
        # Strikes are kept by normalized URL, as the crawl keeps them, so both count the same failures.
        health = url_health_record(url=outcome.job.url, verdict=verdict, now=now)
        check.verdict, check.reason, check.strikes = health.verdict, health.reason, health.strikes
        check.failing_since = health.failing_since.isoformat() if health.failing_since else None
    return check


def urls_check(
    *,
    urls: Iterable[str],
    concurrency: int | None = None,
    delay: float | None = None,
    obey_robots: bool | None = None,
    on_result: Callable[[UrlCheck], None] | None = None,
) -> list[UrlCheck]:
    """Check every URL concurrently (per-host politeness, one probe per directory); results in input order."""
    urls = list(urls)
    normalized = {url: normalize_url(url) for url in urls}
    valid = [url for url in urls if normalized[url]]
    results: dict[str, UrlCheck] = {
        url: UrlCheck(
            url, PageVerdict.DEAD, FINAL_ERRORS["invalid_url"], error="not an http(s) URL with a host"
        )
        for url in urls
        if not normalized[url]
    }
    if on_result:
        for check in results.values():
            on_result(check)
    if valid:
        config = CrawlConfig.from_settings(
            settings,
            start_url=normalized[valid[0]],
            concurrency=concurrency,
            delay=delay,
            obey_robots=obey_robots,
        )
        session = CrawlSession(config, shared_reader(settings.WEBAUDIT_PAGE_READERS))
        try:
            session.fetch_robots(session.origins_missing_robots([normalized[url] for url in valid]))
            jobs = [
                FetchJob(0, normalized[url], is_internal=False, attempts=config.fetch.retries)
                for url in valid
            ]
            now = timezone.now()
            outcomes = session.fetch_batch(jobs)
            for url, outcome in zip(valid, outcomes, strict=True):
                results[url] = _as_check(url, outcome, now)
                if on_result:
                    on_result(results[url])
            # A URL that answered, or failed for good, forgets its strikes; one not fetched (robots) keeps them.
            url_health_clear(
                urls=[
                    job.url
                    for job, outcome in zip(jobs, outcomes, strict=True)
                    if outcome.judgement and not outcome.judgement.verdict.transient
                ]
            )
        finally:
            session.close()
    return [results[url] for url in urls]
