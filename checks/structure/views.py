"""Dashboard of structural filters and page types: "pages like this", results, labels, types. Thin over
selectors (reads) and saved_filters (writes).

Every lookup goes through the sites the user may see (404 otherwise); what writes is a POST with CSRF, open to
the site's owner (and superusers) only, as for every analysis (checks.views).
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from checks.jobs import JobInputError
from checks.models import AnalysisJob
from checks.structure import selectors
from checks.structure.results import ROWS_PER_PAGE
from checks.structure.saved_filters import (
    structure_filter_create_and_start,
    structure_filter_label,
    structure_filter_start,
)
from checks.structure.similarity import RELATIONS
from sites.access import can_manage
from sites.models import Crawl
from sites.services.dashboard import crawls_visible_to


class StructureFilterForm(forms.Form):
    name = forms.CharField(required=False, max_length=200)
    templates = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), help_text="Template page URLs, one a line."
    )
    relation = forms.ChoiceField(
        choices=[(r, "default (ours)" if r == "default" else r.upper()) for r in RELATIONS], initial="default"
    )
    attributes = forms.CharField(
        required=False, help_text="RPSA's attributes, as tag.attribute, space-separated (div.class div.id …)."
    )
    tags = forms.CharField(
        required=False, label="Node kinds", help_text="Tags, space-separated; empty for the relation's own."
    )
    threshold = forms.FloatField(
        required=False, min_value=0, max_value=1, help_text="Empty: calibrated (default) or the paper's."
    )
    combine = forms.ChoiceField(choices=[("mean", "mean (the paper's)"), ("max", "max")], initial="mean")
    target_pattern = forms.CharField(
        required=False, label="Targets (URL regex)", help_text="Label pages by URL to get PR and RR."
    )


def _crawl(request: HttpRequest, crawl_id: int) -> Crawl:
    return get_object_or_404(crawls_visible_to(request.user), pk=crawl_id)


def _job(request: HttpRequest, job_id: int, kind: str) -> AnalysisJob:
    jobs = AnalysisJob.objects.visible_to(request.user).filter(kind=kind).select_related("site", "crawl")
    return get_object_or_404(jobs, pk=job_id)


@login_required
@require_http_methods(["GET", "POST"])
def filter_new(request: HttpRequest, crawl_id: int) -> HttpResponse:
    """Create and run a filter; `?page=ID` (the "pages like this" link of a page row) fills in the template."""
    crawl = _crawl(request, crawl_id)
    if not can_manage(request.user, crawl.site):
        raise PermissionDenied("Only the site's owner can run analyses.")
    if request.method == "POST":
        form = StructureFilterForm(request.POST)
        if form.is_valid():
            try:
                job = structure_filter_create_and_start(
                    crawl=crawl, data=form.cleaned_data, created_by=request.user
                )
            except JobInputError as exc:
                form.add_error(None, str(exc))
            else:
                return redirect("checks:job", job.pk)
    else:
        initial = {}
        page = selectors.crawl_page(crawl=crawl, page_id=request.GET.get("page"))
        if page is not None:
            initial = {"templates": page.url, "name": f"Pages like {page.url}"}
        form = StructureFilterForm(initial=initial)
    filters = selectors.site_filters(site=crawl.site)
    return render(
        request, "checks/structure/filter_new.html", {"crawl": crawl, "form": form, "filters": filters}
    )


@login_required
@require_POST
def filter_rerun(request: HttpRequest, crawl_id: int, filter_id: int) -> HttpResponse:
    """Run a saved filter again, over this crawl."""
    crawl = _crawl(request, crawl_id)
    saved = selectors.site_filter(site=crawl.site, filter_id=filter_id)
    if saved is None:
        raise Http404("No such filter on this site.")
    if not can_manage(request.user, crawl.site):
        raise PermissionDenied("Only the site's owner can run analyses.")
    try:
        job = structure_filter_start(crawl=crawl, saved=saved, requested_by=request.user)
    except JobInputError as exc:
        messages.error(request, f"Structural filter: {exc}")
        return redirect("checks:structure-new", crawl.pk)
    return redirect("checks:job", job.pk)


@login_required
@require_POST
def filter_label(request: HttpRequest, job_id: int) -> HttpResponse:
    """Mark a page of a filter's result as a target or not; the saved filter keeps the label and runs again."""
    job = _job(request, job_id, "filter")
    if not can_manage(request.user, job.site):
        raise PermissionDenied("Only the site's owner can label pages.")
    saved = selectors.job_saved_filter(job=job)
    if saved is None:
        messages.error(request, "This run was not from a saved filter; create one to label pages.")
        return redirect("checks:job", job.pk)
    try:
        structure_filter_label(saved=saved, url=request.POST.get("url", ""), label=request.POST.get("label"))
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("checks:job", job.pk)
    try:
        new = structure_filter_start(crawl=job.crawl, saved=saved, requested_by=request.user)
    except JobInputError as exc:
        messages.error(request, f"Structural filter: {exc}")
        return redirect("checks:job", job.pk)
    messages.success(request, "Label saved; the filter runs again with it.")
    return redirect("checks:job", new.pk)


@login_required
def pagetype_pages(request: HttpRequest, job_id: int, index: int) -> HttpResponse:
    """The crawl's report, narrowed to the pages of one page type."""
    job = _job(request, job_id, "pagetypes")
    types = job.result.get("types", [])
    entry = next((t for t in types if t["index"] == index), None)
    if entry is None:
        raise Http404(f"Job #{job.pk} has no page type {index}.")
    broken_only = request.GET.get("broken") == "on"
    pages = selectors.pagetype_pages(job=job, index=index, broken_only=broken_only)
    return render(
        request,
        "checks/structure/pagetype_pages.html",
        {
            "job": job,
            "entry": entry,
            "pages": Paginator(pages, ROWS_PER_PAGE).get_page(request.GET.get("page")),
            "broken_only": broken_only,
            "can_manage": can_manage(request.user, job.site),
        },
    )
