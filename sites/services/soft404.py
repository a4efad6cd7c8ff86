"""Soft-404 verdict services of the crawl: strikes for transient failures, and the directory probes a crawl shares."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from sites.crawler.soft404.probing import ProbeAnswer
from sites.crawler.soft404.verdict import PageVerdict, VerdictResult
from sites.models import Crawl, DirectoryProbe, UrlHealth, url_key


@dataclass(frozen=True)
class Health:
    verdict: str
    reason: str
    strikes: int = 0
    failing_since: datetime | None = None


def url_health_record(*, url: str, verdict: VerdictResult, now: datetime) -> Health:
    """Count a transient failure as a strike (one per spacing at most); dead once the strikes add up."""
    spacing = timedelta(seconds=settings.WEBAUDIT_DEAD_STRIKE_SPACING_SECONDS)
    with transaction.atomic():
        health, created = UrlHealth.objects.select_for_update().get_or_create(
            url_key=url_key(url),
            defaults={
                "url": url,
                "strikes": 1,
                "failing_since": now,
                "last_strike_at": now,
                "last_reason": verdict.reason,
            },
        )
        if not created and now - health.last_strike_at >= spacing:
            health.strikes += 1
            health.last_strike_at = now
            health.last_reason = verdict.reason
            health.save(update_fields=["strikes", "last_strike_at", "last_reason"])
    if health.strikes >= settings.WEBAUDIT_DEAD_STRIKES:
        reason = (
            f"{verdict.reason}, on {health.strikes} checks since {health.failing_since:%Y-%m-%d %H:%M} UTC"
        )
        return Health(PageVerdict.DEAD, reason, health.strikes, health.failing_since)
    return Health(PageVerdict.FAILING, verdict.reason, health.strikes, health.failing_since)


def url_health_clear(*, urls: list[str]) -> None:
    """Forget the strikes of URLs that answered (or failed for good) this time."""
    keys = [url_key(url) for url in urls]
    for start in range(0, len(keys), 900):
        UrlHealth.objects.filter(url_key__in=keys[start : start + 900]).delete()


def probes_load(*, crawl: Crawl, directories: list[str]) -> list[ProbeAnswer]:
    keys = [url_key(directory) for directory in directories]
    rows = DirectoryProbe.objects.filter(crawl=crawl, directory_key__in=keys)
    return [
        ProbeAnswer(
            row.directory, row.url, row.final_url, row.redirects, row.status, row.error_kind, row.text
        )
        for row in rows
    ]


def probes_save(*, crawl: Crawl, answers: list[ProbeAnswer]) -> None:
    DirectoryProbe.objects.bulk_create(
        [
            DirectoryProbe(
                crawl=crawl,
                directory=answer.directory,
                directory_key=url_key(answer.directory),
                url=answer.url,
                final_url=answer.final_url,
                redirects=answer.redirects,
                status=answer.status,
                error_kind=answer.error_kind,
                text=answer.text,
                body=answer.compressed_body,
            )
            for answer in answers
        ],
        ignore_conflicts=True,
    )
