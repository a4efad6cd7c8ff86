"""Decay's columns in a crawl's report: every page's decay and fraction of dead links from the latest decay job."""

from __future__ import annotations

from checks.decay.dashboard import decay_latest_job
from checks.models import DecayScore
from sites.models import Crawl


def page_decay(crawl: Crawl) -> dict[int, dict]:
    """{page id: {"decay", "dead_link_fraction"}} at the first σ of the crawl's latest finished decay job."""
    job = decay_latest_job(crawl=crawl)
    if job is None:
        return {}
    rows = DecayScore.objects.filter(job=job, sigma=job.parameters["sigmas"][0]).values_list(
        "page_id", "decay", "dead_link_fraction"
    )
    return {page_id: {"decay": decay, "dead_link_fraction": fraction} for page_id, decay, fraction in rows}


page_decay.columns = ("decay", "dead_link_fraction")  # type: ignore[attr-defined]
