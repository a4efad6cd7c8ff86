"""The watch panel on a site's page (schedule, alerts, deliveries, trends), without the sites app importing it."""

from __future__ import annotations

from django import template

from watch.forms import AlertForm, ScheduleForm
from watch.models import AlertSubscription, Schedule, WebhookDelivery
from watch.services.trends import site_trend, trend_charts

register = template.Library()

DELIVERIES_LISTED = 10


@register.inclusion_tag("watch/partials/site_watch.html", takes_context=True)
def site_watch(context, site) -> dict:
    request = context["request"]
    user = request.user
    can_manage = user.is_superuser or site.owner_id == user.pk
    schedule = Schedule.objects.filter(site=site).first()
    subscription = AlertSubscription.objects.filter(site=site, user=user).first()
    deliveries = WebhookDelivery.objects.filter(site=site)
    if not can_manage:
        deliveries = deliveries.filter(subscription__user=user)
    trend = site_trend(site=site)
    return {
        "request": request,
        "csrf_token": context.get("csrf_token"),
        "site": site,
        "can_manage": can_manage,
        "schedule": schedule,
        "schedule_form": ScheduleForm(instance=schedule) if can_manage else None,
        "alert_form": AlertForm(instance=subscription),
        "subscription": subscription,
        "deliveries": list(deliveries.select_related("subscription__user")[:DELIVERIES_LISTED]),
        "charts": trend_charts(trend) if len(trend) > 1 else [],
        "crawls_compared": len(trend),
    }
