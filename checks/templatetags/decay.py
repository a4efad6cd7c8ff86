"""The decay section of a crawl's page: the latest finished decay job's charts, tables and fix-first list."""

from __future__ import annotations

from django import template

from checks.decay.dashboard import decay_latest_job, decay_panel_context

register = template.Library()


@register.inclusion_tag("checks/decay/panel.html", takes_context=True)
def decay_panel(context, crawl) -> dict:
    job = decay_latest_job(crawl=crawl)
    if job is None:
        return {"decay_job": None}
    return {"request": context["request"], **decay_panel_context(job=job, request=context["request"])}


@register.filter
def percent(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


@register.filter
def score(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"
