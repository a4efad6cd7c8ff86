"""Filters of the decay templates (the crawl page's decay section comes through `JobKind.crawl_panel`)."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def percent(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


@register.filter
def score(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"
