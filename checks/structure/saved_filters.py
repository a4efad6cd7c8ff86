"""Saved structural filters: create one from the dashboard's form, run it over a crawl, label its pages."""

from __future__ import annotations

from checks.jobs import JobInputError, job_start
from checks.models import AnalysisJob
from checks.structure.models import StructureFilter
from sites.models import Crawl

LABELS = ("target", "non_target")


def structure_filter_start(*, crawl: Crawl, saved: StructureFilter, requested_by=None) -> AnalysisJob:
    """Start a `filter` job over `crawl` with the saved filter's settings; raises JobInputError."""
    parameters = {
        "templates": saved.templates,
        "relation": saved.relation,
        "attributes": saved.attributes,
        "tags": saved.tags,
        "threshold": saved.threshold,
        "combine": saved.combine,
        "target_pattern": saved.target_pattern,
        "targets": saved.targets,
        "non_targets": saved.non_targets,
        "filter_id": saved.pk,
    }
    return job_start(kind="filter", crawl=crawl, parameters=parameters, requested_by=requested_by)


def structure_filter_create_and_start(*, crawl: Crawl, data: dict, created_by=None) -> AnalysisJob:
    """Save a filter for the crawl's site from the form's cleaned data and start it over the crawl. Raises
    JobInputError (the job's parameters were refused) and then keeps no filter."""
    saved = StructureFilter(
        site=crawl.site,
        name=data["name"],
        templates=data["templates"].split(),
        relation=data["relation"],
        attributes=data["attributes"].split(),
        tags=data["tags"].split(),
        threshold=data["threshold"],
        combine=data["combine"],
        target_pattern=data["target_pattern"].strip(),
        created_by=created_by,
    )
    try:
        saved.save()
        return structure_filter_start(crawl=crawl, saved=saved, requested_by=created_by)
    except JobInputError:
        saved.delete()
        raise


def structure_filter_label(*, saved: StructureFilter, url: str, label: str) -> None:
    """Mark `url` as a target or a non-target of the saved filter (the latest label wins)."""
    if label not in LABELS or not url:
        raise ValueError("Choose target or non-target for a page.")
    targets = [u for u in saved.targets if u != url]
    non_targets = [u for u in saved.non_targets if u != url]
    (targets if label == "target" else non_targets).append(url)
    saved.targets, saved.non_targets = targets, non_targets
    saved.save(update_fields=["targets", "non_targets"])
