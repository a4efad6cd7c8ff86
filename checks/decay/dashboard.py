"""Read-side queries of decay for the dashboard: the latest job of a crawl, its charts, tables and a page's detail,
and the job's sections on the crawl page and its own page."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.utils.safestring import mark_safe

from checks.decay.charts import distributions_svg, scatter_svg
from checks.models import AnalysisJob, DecayFix, DecayScore
from sites.models import Crawl

ROWS_PER_PAGE = 50
FIXES_LISTED = 20
MOST_DECAYED = 10
# A scatter of more dots than this draws a sample (every k-th page by id): the SVG stays under ~100 KB.
SCATTER_POINTS = 2000
SORTS = {
    "decay": "-decay",
    "-decay": "decay",
    "fraction": "-dead_link_fraction",
    "-fraction": "dead_link_fraction",
    "url": "page__url",
}


@dataclass(frozen=True)
class DecayTableFilter:
    sort: str = "decay"
    min_decay: float | None = None
    search: str = ""
    error: str = ""  # a filter value refused, said to the user (the table is then shown unfiltered by it)
    raw_min: str = ""

    @classmethod
    def from_query(cls, query) -> DecayTableFilter:
        sort = query.get("dsort", "decay")
        raw = query.get("dmin", "").strip()[:40]
        minimum, error = None, ""
        if raw:
            try:
                minimum = float(raw)
            except ValueError:
                minimum = None
            if minimum is None or not 0.0 <= minimum <= 1.0:  # nan fails both comparisons
                minimum, error = (
                    None,
                    f"“Decay at least” must be a number from 0 to 1, not “{raw}”: not applied.",
                )
        return cls(sort if sort in SORTS else "decay", minimum, query.get("dq", "").strip()[:200], error, raw)


def decay_latest_job(*, crawl: Crawl) -> AnalysisJob | None:
    return (
        AnalysisJob.objects.filter(crawl=crawl, kind="decay", status=AnalysisJob.Status.FINISHED)
        .order_by("-finished_at", "-id")
        .first()
    )


def decay_scores(*, job: AnalysisJob, sigma: float, table: DecayTableFilter) -> QuerySet[DecayScore]:
    scores = DecayScore.objects.filter(job=job, sigma=sigma).select_related("page")
    if table.min_decay is not None:
        scores = scores.filter(decay__gte=table.min_decay)
    if table.search:
        scores = scores.filter(page__url__icontains=table.search)
    return scores.only(
        "id", "decay", "dead_link_fraction", "error_bound", "page__id", "page__url", "page__verdict"
    ).order_by(SORTS[table.sort], "page_id")


def decay_charts(*, job: AnalysisJob) -> dict[str, str]:
    sigmas = job.parameters["sigmas"]
    # The paper's Figure 1 population: live pages with at least one outlink (F is empty for a page without any).
    rows = DecayScore.objects.filter(
        job=job, page__verdict="ok", dead_link_fraction__isnull=False
    ).values_list("sigma", "decay", "dead_link_fraction")
    by_sigma: dict[float, list[float]] = {sigma: [] for sigma in sigmas}
    fractions: list[float] = []
    points: list[tuple[float, float]] = []
    for sigma, decay, fraction in rows.iterator(chunk_size=5000):
        by_sigma.setdefault(sigma, []).append(decay)
        if sigma == sigmas[0] and fraction is not None:
            fractions.append(fraction)
            points.append((fraction, decay))
    step = max(1, len(points) // SCATTER_POINTS)
    return {
        "distributions": mark_safe(  # noqa: S308 - built from numbers and escaped labels only
            distributions_svg(
                by_sigma, fractions, "Distribution of decay D (per σ) and of the fraction of dead links F"
            )
        ),
        "scatter": mark_safe(  # noqa: S308
            scatter_svg(points[::step], f"Decay against fraction of dead links, σ = {sigmas[0]:g}")
        ),
        "live_pages": len(fractions),
    }


def decay_panel_context(*, job: AnalysisJob, request, anchor: str = "decay") -> dict:
    sigma = job.parameters["sigmas"][0]
    table = DecayTableFilter.from_query(request.GET)
    scores = Paginator(decay_scores(job=job, sigma=sigma, table=table), ROWS_PER_PAGE).get_page(
        request.GET.get("dpage")
    )
    decayed = list(
        DecayScore.objects.filter(job=job, sigma=sigma, decay__lt=1.0, decay__gt=0.0)
        .select_related("page")
        .order_by("-decay", "page_id")[:MOST_DECAYED]
    )
    return {
        "decay_job": job,
        "sigma": sigma,
        "charts": decay_charts(job=job),
        "scores": scores,
        "table": table,
        "most_decayed": decayed,
        "fixes": Paginator(DecayFix.objects.filter(job=job).order_by("rank"), FIXES_LISTED).get_page(
            request.GET.get("fpage")
        ),
        "mean_decay": (job.result or {}).get("mean_decay", {}),
        "paper_means": (job.result or {}).get("paper_means") or {},
        "external": (job.result or {}).get("external") or {},
        "anchor": anchor,
    }


def decay_page_detail(*, job: AnalysisJob, page_id: int) -> list[DecayScore]:
    """A page's scores in the job, one per σ, first σ first (with its path and dead ends)."""
    return sorted(
        DecayScore.objects.filter(job=job, page_id=page_id).select_related("page"),
        key=lambda score: job.parameters["sigmas"].index(score.sigma)
        if score.sigma in job.parameters["sigmas"]
        else 99,
    )


def decay_result_context(job: AnalysisJob, request) -> dict:
    return decay_panel_context(job=job, request=request)


def decay_crawl_panel(crawl, request) -> dict | None:
    """The crawl page's decay section: the latest finished decay job's charts, tables and fix-first list."""
    job = decay_latest_job(crawl=crawl)
    return None if job is None else decay_panel_context(job=job, request=request)


# Fixes listed beside the broken pages; the decay section below has them all, paged.
FIXES_BESIDE_TARGETS = 8


def decay_targets_panel(crawl, request) -> dict | None:
    """Beside the crawl page's broken pages: the broken links whose repair lowers the site's decay the most."""
    job = decay_latest_job(crawl=crawl)
    if job is None:
        return None
    fixes = DecayFix.objects.filter(job=job)
    return {
        "decay_job": job,
        "sigma": job.parameters["sigmas"][0],
        "fixes": list(fixes[:FIXES_BESIDE_TARGETS]),
        "fix_count": fixes.count(),
    }
