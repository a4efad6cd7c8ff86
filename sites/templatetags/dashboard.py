"""Template helpers for the dashboard: status and verdict badges, durations, pagination links, and the sections
other apps show on the sites pages."""

from __future__ import annotations

from functools import cache

from django import template
from django.apps import apps
from django.conf import settings
from django.utils.safestring import mark_safe

from sites.models import Verdict

register = template.Library()


@register.filter
def status_class(code: int | None) -> str:
    """The CSS class of an HTTP status badge: s2xx, s3xx, s4xx, s5xx, or snone when there was no answer."""
    if not code:
        return "snone"
    return f"s{min(max(code // 100, 1), 5)}xx"


@register.filter
def verdict_class(verdict: str) -> str:
    """The CSS class of a verdict badge: v-ok, v-dead, v-soft404, v-failing, or v-none when not judged."""
    return f"v-{verdict}" if verdict in Verdict.values else "v-none"


@register.filter
def hop_count(redirects: int | list | None) -> int | None:
    """The number of redirects of a probe, whether it was recorded as a count or as the hops themselves."""
    return len(redirects) if isinstance(redirects, list) else redirects


@register.filter
def duration(seconds: float | None) -> str:
    """A duration as people read it: "45 s", "3 min 05 s", "2 h 04 min"."""
    if seconds is None:
        return "–"
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


@register.simple_tag(takes_context=True)
def page_query(context, param: str, number: int) -> str:
    """The current query string with `param` set to `number`, so filters survive pagination."""
    query = context["request"].GET.copy()
    query[param] = number
    return "?" + query.urlencode()


@register.simple_tag(takes_context=True)
def sort_query(context, param: str, order: str, page_param: str) -> str:
    """The current query string with the sort `param` set to `order`, back on the table's first page."""
    query = context["request"].GET.copy()
    query[param] = order
    query.pop(page_param, None)
    return "?" + query.urlencode()


@register.filter
def severity_class(severity: str) -> str:
    """The CSS class of an issue's severity badge: sev-error, sev-warning or sev-notice."""
    return f"sev-{severity}" if severity in ("error", "warning", "notice") else "sev-notice"


# The singular of each table name deletion summaries count (sites.services.retention).
_SINGULARS = {
    "crawls": "crawl",
    "pages": "page",
    "page bodies": "page body",
    "page extracts": "page extract",
    "links": "link",
    "robots.txt files": "robots.txt file",
    "directory probes": "directory probe",
    "sitemaps": "sitemap",
    "sitemap URLs": "sitemap URL",
}


@cache
def _model_singulars() -> dict[str, str]:
    """Every model's plural name to its singular one: a deletion counts other apps' rows by their plural name."""
    return {
        str(model._meta.verbose_name_plural): str(model._meta.verbose_name) for model in apps.get_models()
    }


@register.filter
def counted(count: int, plural: str) -> str:
    """ "1 crawl", "2 crawls", "1,234 links": a count with its noun agreeing."""
    noun = (_SINGULARS.get(plural) or _model_singulars().get(plural, plural)) if count == 1 else plural
    return f"{count:,} {noun}"


@register.simple_tag(takes_context=True)
def page_sections(context, place: str) -> str:
    """What the other apps show at `place` of a sites page (WEBAUDIT_PAGE_SECTIONS[place]: templates rendered in
    order with the page's context, as an include would): the sites templates name no analysis. Blank when none
    shows anything, so that a page may make room only for something."""
    engine = context.template.engine
    parts = []
    for name in settings.WEBAUDIT_PAGE_SECTIONS[place]:
        with context.push():  # what a section sets stays in it
            parts.append(engine.get_template(name).render(context).strip())
    return mark_safe("\n".join(part for part in parts if part))  # noqa: S308 - each part is a rendered template
