"""Decay's kind in a crawl's issues overview (sites.services.issues, through WEBAUDIT_CRAWL_ISSUE_PROVIDERS)."""

from __future__ import annotations

from checks.decay.dashboard import decay_latest_job
from checks.models import DecayScore
from sites.models import Crawl
from sites.services.issues import CrawlIssue, Severity

# A page whose decay reaches this is one from which a visitor following links at random meets a dead page more
# often than not (decay is that probability, docs/decay.md): the page's neighbourhood is rotten.
HIGH_DECAY = 0.5


def decay_issues(crawl: Crawl) -> list[CrawlIssue]:
    """Pages with high decay at the first σ of the crawl's latest finished decay job; nothing without one."""
    job = decay_latest_job(crawl=crawl)
    if job is None:
        return []
    count = DecayScore.objects.filter(
        job=job, sigma=job.parameters["sigmas"][0], decay__gte=HIGH_DECAY
    ).count()
    return [
        CrawlIssue(
            kind="high_decay",
            severity=Severity.WARNING,
            count=count,
            title="Pages with high decay",
            explanation=(
                f"Pages from which a visitor clicking links at random meets a dead page more often than not "
                f"(decay {HIGH_DECAY:g} or more): their part of the site is rotting."
            ),
            filter=f"dmin={HIGH_DECAY:g}&dsort=decay",
            anchor="decay-pages",
        )
    ]
