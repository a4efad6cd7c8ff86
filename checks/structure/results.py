"""What the job page shows under a finished `filter` or `pagetypes` job (their kinds' `result_context`)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.utils.safestring import mark_safe

from checks.models import AnalysisJob
from checks.structure.plot import distribution_svg
from checks.structure.selectors import filter_similarities, job_saved_filter
from checks.structure.services import labels
from checks.structure.similarity import RELATION_LABELS

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
    similarities = Paginator(rows, ROWS_PER_PAGE).get_page(request.GET.get("page"))
    similarities.object_list = _with_labels(job, list(similarities.object_list))
    return {
        "similarities": similarities,
        "plot": mark_safe(plot),  # noqa: S308 - built from numbers only (checks.structure.plot)
        "result": result,
        "relation_label": RELATION_LABELS.get(job.parameters.get("relation"), job.parameters.get("relation")),
        "saved_filter": job_saved_filter(job=job, same_site=False),
    }


def _with_labels(job: AnalysisJob, rows: list) -> list:
    """Set `label` on each row: "target" or "non_target" as this run labelled its page (marked by hand, or by the
    target URL pattern), "" when unlabelled; the label buttons show it."""
    page_urls = {row.page_id: row.page.url for row in rows}
    targets, non_targets = labels(crawl=job.crawl, parameters=job.parameters, page_urls=page_urls)
    for row in rows:
        row.label = "target" if row.page_id in targets else "non_target" if row.page_id in non_targets else ""
    return rows


def pagetypes_result_context(job: AnalysisJob, request) -> dict:
    return {"types": job.result.get("types", [])}
