"""Decay adds its kind to a crawl's issues overview through WEBAUDIT_CRAWL_ISSUE_PROVIDERS."""

from __future__ import annotations

import pytest
from django.utils import timezone

from checks.models import AnalysisJob, DecayScore
from sites.services.issues import crawl_issues
from tests.sites.factories import make_crawl, make_page

pytestmark = pytest.mark.django_db


def test_pages_with_high_decay_are_an_issue_once_a_decay_job_finished():
    crawl = make_crawl()
    pages = [make_page(crawl) for _ in range(4)]
    assert "high_decay" not in {issue.kind for issue in crawl_issues(crawl=crawl, with_empty=True)}
    job = AnalysisJob.objects.create(
        kind="decay",
        site=crawl.site,
        crawl=crawl,
        parameters={"sigmas": [0.1, 0.5]},
        status=AnalysisJob.Status.FINISHED,
        finished_at=timezone.now(),
    )
    for page, decay in zip(pages, (0.9, 0.5, 0.2, 0.0), strict=True):
        DecayScore.objects.create(job=job, page=page, sigma=0.1, decay=decay)
        DecayScore.objects.create(job=job, page=page, sigma=0.5, decay=0.95)  # another σ: not counted
    issue = next(issue for issue in crawl_issues(crawl=crawl) if issue.kind == "high_decay")
    assert issue.count == 2 and issue.severity == "warning" and issue.anchor == "decay-pages"
