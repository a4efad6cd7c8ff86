"""Template tags that put the analyses of a crawl or a site on its page, without the sites app importing them."""

from __future__ import annotations

from django import template

from checks.jobs import job_kinds
from checks.models import AnalysisJob
from checks.views import can_manage

register = template.Library()

JOBS_LISTED = 10  # the newest jobs of a crawl or site shown on its page; older ones are in the admin


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
        "kinds": [(kind, kind.form() if kind.form else None) for kind in kinds],
        "can_manage": can_manage(request.user, site),
        "startable": scope == "site" or target.status == "finished",
    }


@register.inclusion_tag("checks/partials/analyses.html", takes_context=True)
def crawl_analyses(context, crawl) -> dict:
    return _analyses(context, "crawl", AnalysisJob.objects.filter(crawl=crawl), crawl)


@register.inclusion_tag("checks/partials/analyses.html", takes_context=True)
def site_analyses(context, site) -> dict:
    return _analyses(context, "site", AnalysisJob.objects.filter(site=site, crawl__isnull=True), site)


@register.filter
def job_label(job: AnalysisJob) -> str:
    from checks.jobs import job_kind
    from checks.jobs.kinds import UnknownKind

    try:
        return job_kind(job.kind).label
    except UnknownKind:
        return job.kind
