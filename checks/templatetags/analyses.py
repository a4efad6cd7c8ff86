"""Template tags that put the analyses of a crawl or a site on its page, without the sites app importing them."""

from __future__ import annotations

from django import template
from django.utils.safestring import mark_safe

from checks.jobs import job_kind, job_kinds
from checks.jobs.kinds import UnknownKind
from checks.models import AnalysisJob
from sites.access import can_manage
from sites.kept_input import input_take

register = template.Library()

JOBS_LISTED = 10  # the newest jobs of a crawl or site shown on its page; older ones are in the admin


def _start_form(request, kind, target):
    """The kind's start form, bound again to the input a refused start left (checks.views.job_start_view)."""
    if kind.form is None:
        return None
    kept = input_take(request, kind.form_input_key(target.pk))
    return kind.form(kept) if kept is not None else kind.form()


def _analyses(context, scope: str, jobs, target) -> dict:
    request = context["request"]
    site = target if scope == "site" else target.site
    kinds = [kind for kind in job_kinds(scope) if kind.offered is None or kind.offered(target)]
    return {
        "request": request,
        "csrf_token": context.get("csrf_token"),
        "scope": scope,
        "target": target,
        "jobs": list(jobs.select_related("requested_by")[:JOBS_LISTED]),
        "kinds": [(kind, _start_form(request, kind, target)) for kind in kinds],
        "can_manage": can_manage(request.user, site),
        "startable": scope == "site" or target.status == "finished",
    }


@register.inclusion_tag("checks/partials/analyses.html", takes_context=True)
def crawl_analyses(context, crawl) -> dict:
    return _analyses(context, "crawl", AnalysisJob.objects.filter(crawl=crawl), crawl)


@register.inclusion_tag("checks/partials/analyses.html", takes_context=True)
def site_analyses(context, site) -> dict:
    return _analyses(context, "site", AnalysisJob.objects.filter(site=site, crawl__isnull=True), site)


@register.simple_tag(takes_context=True)
def crawl_panels(context, crawl, slot: str = "") -> str:
    """The sections the crawl-scoped kinds add to a crawl's page (`JobKind.crawl_panel`), in the kinds' order:
    the sites app's template names no analysis. `slot` "broken-targets" gives instead what they show beside the
    broken pages (`JobKind.targets_panel`)."""
    request = context["request"]
    parts = []
    for kind in job_kinds("crawl"):
        build, template = (
            (kind.targets_panel, kind.targets_panel_template)
            if slot == "broken-targets"
            else (kind.crawl_panel, kind.crawl_panel_template)
        )
        if build is None:
            continue
        panel = build(crawl, request)
        if panel is None:
            continue
        # Rendered as an inclusion tag renders its template: a fresh context over the page's (no processors).
        panel_context = context.new({"request": request, **panel})
        if "csrf_token" in context:
            panel_context["csrf_token"] = context["csrf_token"]
        parts.append(context.template.engine.get_template(template).render(panel_context))
    return mark_safe("".join(parts))  # noqa: S308 - each part is a rendered (autoescaped) template


@register.filter
def job_label(job: AnalysisJob) -> str:
    try:
        return job_kind(job.kind).label
    except UnknownKind:
        return job.kind
