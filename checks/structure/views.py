"""Dashboard of structural filters and page types: "pages like this", results, labels, types. Thin over services.

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
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from checks.jobs import JobInputError, job_start
from checks.models import AnalysisJob
from checks.structure.models import PageSimilarity, PageTypeMember, StructureFilter
from checks.structure.plot import distribution_svg
from checks.structure.similarity import RELATIONS
from checks.views import can_manage
from sites.models import Crawl, Page, Site

ROWS_PER_PAGE = 100


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
    crawls = Crawl.objects.filter(site__in=Site.objects.visible_to(request.user)).select_related("site")
    return get_object_or_404(crawls, pk=crawl_id)


def _job(request: HttpRequest, job_id: int, kind: str) -> AnalysisJob:
    jobs = AnalysisJob.objects.visible_to(request.user).filter(kind=kind).select_related("site", "crawl")
    return get_object_or_404(jobs, pk=job_id)


def _start(request: HttpRequest, crawl: Crawl, saved: StructureFilter) -> AnalysisJob:
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
    return job_start(kind="filter", crawl=crawl, parameters=parameters, requested_by=request.user)


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
            data = form.cleaned_data
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
                created_by=request.user,
            )
            try:
                saved.save()
                job = _start(request, crawl, saved)
            except JobInputError as exc:
                saved.delete()
                form.add_error(None, str(exc))
            else:
                return redirect("checks:job", job.pk)
    else:
        initial = {}
        page = Page.objects.filter(crawl=crawl, pk=request.GET.get("page") or 0).first()
        if page is not None:
            initial = {"templates": page.url, "name": f"Pages like {page.url}"}
        form = StructureFilterForm(initial=initial)
    filters = StructureFilter.objects.filter(site=crawl.site)[:20]
    return render(
        request, "checks/structure/filter_new.html", {"crawl": crawl, "form": form, "filters": filters}
    )


@login_required
@require_POST
def filter_rerun(request: HttpRequest, crawl_id: int, filter_id: int) -> HttpResponse:
    """Run a saved filter again, over this crawl."""
    crawl = _crawl(request, crawl_id)
    saved = get_object_or_404(StructureFilter, pk=filter_id, site=crawl.site)
    if not can_manage(request.user, crawl.site):
        raise PermissionDenied("Only the site's owner can run analyses.")
    try:
        job = _start(request, crawl, saved)
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
    saved = StructureFilter.objects.filter(pk=job.parameters.get("filter_id"), site=job.site).first()
    if saved is None:
        messages.error(request, "This run was not from a saved filter; create one to label pages.")
        return redirect("checks:job", job.pk)
    url, label = request.POST.get("url", ""), request.POST.get("label")
    if label not in ("target", "non_target") or not url:
        messages.error(request, "Choose target or non-target for a page.")
        return redirect("checks:job", job.pk)
    targets = [u for u in saved.targets if u != url]
    non_targets = [u for u in saved.non_targets if u != url]
    (targets if label == "target" else non_targets).append(url)
    saved.targets, saved.non_targets = targets, non_targets
    saved.save(update_fields=["targets", "non_targets"])
    try:
        new = _start(request, job.crawl, saved)
    except JobInputError as exc:
        messages.error(request, f"Structural filter: {exc}")
        return redirect("checks:job", job.pk)
    messages.success(request, "Label saved; the filter runs again with it.")
    return redirect("checks:job", new.pk)


def filter_result_context(job: AnalysisJob, request: HttpRequest) -> dict:
    result = job.result
    rows = PageSimilarity.objects.filter(job=job).select_related("page").order_by("-similarity", "page_id")
    if request.GET.get("match") == "1":
        rows = rows.filter(match=True)
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
        "saved_filter": StructureFilter.objects.filter(pk=job.parameters.get("filter_id")).first(),
    }


def pagetypes_result_context(job: AnalysisJob, request: HttpRequest) -> dict:
    return {"types": job.result.get("types", [])}


@login_required
def pagetype_pages(request: HttpRequest, job_id: int, index: int) -> HttpResponse:
    """The crawl's report, narrowed to the pages of one page type."""
    job = _job(request, job_id, "pagetypes")
    types = job.result.get("types", [])
    entry = next((t for t in types if t["index"] == index), None)
    if entry is None:
        raise Http404(f"Job #{job.pk} has no page type {index}.")
    members = PageTypeMember.objects.filter(job=job, type_index=index).values("page_id")
    pages = Page.objects.filter(pk__in=members).order_by("depth", "id")
    if request.GET.get("broken") == "on":
        pages = pages.broken()
    return render(
        request,
        "checks/structure/pagetype_pages.html",
        {
            "job": job,
            "entry": entry,
            "pages": Paginator(pages, ROWS_PER_PAGE).get_page(request.GET.get("page")),
            "broken_only": request.GET.get("broken") == "on",
            "can_manage": can_manage(request.user, job.site),
        },
    )
