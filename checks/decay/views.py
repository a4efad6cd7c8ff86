"""Dashboard view of one page's decay in a job: its score per σ, its path to death and its dead ends."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from checks.decay.dashboard import decay_page_detail
from checks.models import AnalysisJob


@login_required
@require_GET
def decay_page(request: HttpRequest, job_id: int, page_id: int) -> HttpResponse:
    jobs = AnalysisJob.objects.visible_to(request.user).filter(kind="decay").select_related("site", "crawl")
    job = get_object_or_404(jobs, pk=job_id)
    scores = decay_page_detail(job=job, page_id=page_id)
    if not scores:
        raise Http404("This page has no decay score in this job.")
    context = {"job": job, "page": scores[0].page, "primary": scores[0], "scores": scores}
    return render(request, "checks/decay/page.html", context)
