"""Decay's columns in a crawl's report: every page's decay and fraction of dead links from the latest decay job."""

from __future__ import annotations

from collections.abc import Collection

from checks.decay.dashboard import decay_latest_job
from checks.models import DecayScore
from sites.models import Crawl


def page_decay(crawl: Crawl, page_ids: Collection[int] | None = None) -> dict[int, dict]:
    """{page id: {"decay", "dead_link_fraction"}} at the first σ of the crawl's latest finished decay job, for
    every page or only those of `page_ids` (a page of the dashboard's table)."""
    job = decay_latest_job(crawl=crawl)
    if job is None:
        return {}
    scores = DecayScore.objects.filter(job=job, sigma=job.parameters["sigmas"][0])
    if page_ids is not None:
        scores = scores.filter(page_id__in=page_ids)
    rows = scores.values_list("page_id", "decay", "dead_link_fraction")
    return {page_id: {"decay": decay, "dead_link_fraction": fraction} for page_id, decay, fraction in rows}


page_decay.columns = ("decay", "dead_link_fraction")  # type: ignore[attr-defined]
# The dashboard's page table heads these columns with the paper's letters (docs/decay.md).
page_decay.headings = {  # type: ignore[attr-defined]
    "decay": ("D", "Decay: the chance a random walk from the page reaches a dead page"),
    "dead_link_fraction": ("F", "The fraction of the page's links that are dead"),
}
