"""Decay's reports: a decay job's own (the JSON the CLI writes and the dashboard offers), and decay's columns in a
crawl's report, every page's decay and fraction of dead links from the latest decay job."""

from __future__ import annotations

from collections.abc import Collection

from checks.decay.dashboard import decay_latest_job
from checks.models import AnalysisJob, DecayFix, DecayScore
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


def decay_report(job: AnalysisJob) -> dict:
    """`{"method", "sigma", "sigmas", "fetches", "seconds", "mean_decay", "paper_means", "external", "pages": [...],
    "fix_first": [...]}`: each page's "decay" at the first σ and "decay_by_sigma" for every σ the job computed."""
    result = job.result or {}
    sigmas = job.parameters["sigmas"]
    sigma = sigmas[0]
    by_page: dict[int, dict[str, float]] = {}
    for page_id, other, decay in DecayScore.objects.filter(job=job).values_list("page_id", "sigma", "decay"):
        by_page.setdefault(page_id, {})[str(other)] = decay
    scores = (
        DecayScore.objects.filter(job=job, sigma=sigma)
        .order_by("-decay", "page_id")
        .values_list("page_id", "page__url", "decay", "error_bound", "dead_link_fraction")
    )
    return {
        "method": job.parameters["method"],
        "sigma": sigma,
        "sigmas": sigmas,
        "external_depth": job.parameters.get("external_depth", 0),
        "fetches": result.get("fetches", 0),
        "seconds": result.get("seconds", 0.0),
        "mean_decay": result.get("mean_decay", {}),
        "paper_means": result.get("paper_means", {}),
        "external": result.get("external", {}),
        "pages": [
            {
                "url": url,
                "decay": decay,
                "decay_by_sigma": by_page.get(page_id, {}),
                "error_bound": bound,
                "dead_link_fraction": fraction,
            }
            for page_id, url, decay, bound, fraction in scores.iterator(chunk_size=5000)
        ],
        "fix_first": [
            {"target": target, "gain": gain, "linked_from": linked_from}
            for target, gain, linked_from in DecayFix.objects.filter(job=job).values_list(
                "target", "gain", "linked_from"
            )
        ],
    }
