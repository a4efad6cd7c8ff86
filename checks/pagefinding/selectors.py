"""Read-side queries of page finding for the job page."""

from __future__ import annotations

from django.db.models import QuerySet

from checks.models import AnalysisJob


def findpage_history(*, job: AnalysisJob, limit: int) -> QuerySet[AnalysisJob]:
    """The site's other page searches, newest first: what the job page lists under a search's result."""
    return (
        AnalysisJob.objects.filter(site=job.site, kind="findpage")
        .exclude(pk=job.pk)
        .order_by("-created_at")[:limit]
    )
