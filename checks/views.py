"""Dashboard views of analysis jobs: start one, watch its progress, cancel it, read and download its result.

Thin interfaces over checks.jobs. Every lookup goes through the sites the user may see (404 otherwise); starting
and cancelling are POST forms with CSRF, open to the site's owner (and superusers) only.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from checks.jobs import JobInputError, job_cancel, job_kind, job_report_json, job_start
from checks.jobs.kinds import UnknownKind
from checks.models import AnalysisJob
from sites.access import can_manage
from sites.kept_input import input_keep
from sites.models import Site
from sites.services.dashboard import crawls_visible_to


def _visible_job(request: HttpRequest, job_id: int) -> AnalysisJob:
    jobs = AnalysisJob.objects.visible_to(request.user).select_related("site", "crawl", "requested_by")
    return get_object_or_404(jobs, pk=job_id)


def _job_context(request: HttpRequest, job: AnalysisJob) -> dict:
    kind = job_kind(job.kind)
    context = {"job": job, "kind": kind, "can_manage": can_manage(request.user, job.site)}
    if job.status == AnalysisJob.Status.FINISHED and kind.result_context is not None:
        context.update(kind.result_context(job, request))
    return context


@login_required
@require_GET
def job_detail(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _visible_job(request, job_id)
    return render(request, "checks/job_detail.html", _job_context(request, job))


@never_cache
@login_required
@require_GET
def job_progress(request: HttpRequest, job_id: int) -> HttpResponse:
    """The live-progress component; once a job it showed as active has ended, the whole page reloads to show
    the result (an htmx refresh), so the component polls only while there is something to watch."""
    job = _visible_job(request, job_id)
    response = render(
        request,
        "checks/partials/job_progress.html",
        {"job": job, "can_manage": can_manage(request.user, job.site)},
    )
    if request.htmx and request.GET.get("was_active") and not job.is_active:
        response["HX-Refresh"] = "true"
    return response


@login_required
@require_POST
def job_cancel_view(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _visible_job(request, job_id)
    if not can_manage(request.user, job.site):
        raise PermissionDenied("Only the site's owner can cancel its analyses.")
    if job_cancel(job=job):
        messages.success(request, f"{job_kind(job.kind).label} job #{job.pk} cancelled.")
    else:
        messages.info(request, f"Job #{job.pk} had already {job.status}.")
    return redirect("checks:job", job.pk)


@login_required
@require_GET
def job_report(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _visible_job(request, job_id)
    if job.status != AnalysisJob.Status.FINISHED:
        raise Http404("The job has not finished; it has no report yet.")
    response = HttpResponse(job_report_json(job=job), content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{job.kind}-job-{job.pk}.json"'
    return response


@login_required
@require_POST
def job_start_view(request: HttpRequest, kind: str, target_id: int) -> HttpResponse:
    """Start a job of `kind` over crawl or site `target_id` (by the kind's scope) from the kind's form."""
    try:
        spec = job_kind(kind)
    except UnknownKind:
        raise Http404(f"No analysis called {kind!r}.") from None
    if spec.scope == "crawl":
        crawl = get_object_or_404(crawls_visible_to(request.user), pk=target_id)
        site, back = crawl.site, redirect("sites:crawl", crawl.pk)
    else:
        crawl, site = None, get_object_or_404(Site.objects.visible_to(request.user), pk=target_id)
        back = redirect("sites:detail", site.pk)
    if not can_manage(request.user, site):
        raise PermissionDenied("Only the site's owner can start analyses.")
    form = spec.form(request.POST) if spec.form is not None else None
    if form is not None and not form.is_valid():
        for field, errors in form.errors.items():
            label = form.fields[field].label if field in form.fields else ""
            messages.error(request, f"{spec.label}: {label + ': ' if label else ''}{' '.join(errors)}")
        input_keep(request, spec.form_input_key(target_id), form)
        return back
    try:
        job = job_start(
            kind=kind,
            crawl=crawl,
            site=site,
            parameters=form.cleaned_data if form is not None else {},
            requested_by=request.user,
        )
    except JobInputError as exc:
        messages.error(request, f"{spec.label}: {exc}")
        if form is not None:
            input_keep(request, spec.form_input_key(target_id), form)
        return back
    return redirect("checks:job", job.pk)
