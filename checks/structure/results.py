"""What the job page shows under a finished `filter` or `pagetypes` job (their kinds' `result_context`)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.utils.safestring import mark_safe

from checks.models import AnalysisJob
from checks.structure.plot import distribution_svg
from checks.structure.selectors import filter_similarities, job_saved_filter

ROWS_PER_PAGE = 100


def filter_result_context(job: AnalysisJob, request) -> dict:
    result = job.result
    rows = filter_similarities(job=job, matches_only=request.GET.get("match") == "1")
    plot = distribution_svg(
        result.get("histogram", []),
        threshold=result.get("threshold", 0.0),
        chance=result.get("chance_level", 0.0),
        targets=result.get("histogram_targets"),
    )
    return {
        "similarities": Paginator(rows, ROWS_PER_PAGE).get_page(request.GET.get("page")),
        "plot": mark_safe(plot),  # noqa: S308 - built from numbers only (checks.structure.plot)
        "result": result,
        "saved_filter": job_saved_filter(job=job, same_site=False),
    }


def pagetypes_result_context(job: AnalysisJob, request) -> dict:
    return {"types": job.result.get("types", [])}
