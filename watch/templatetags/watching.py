"""The watch panel on a site's page (schedule, alerts, deliveries, trends), without the sites app importing it."""

from __future__ import annotations

from django import template

from sites.access import can_manage
from sites.kept_input import input_take
from watch.forms import AlertForm, ScheduleForm, alerts_input_key, schedule_input_key
from watch.selectors import alert_subscription, site_schedule, webhook_deliveries
from watch.services.trends import site_trend, trend_charts

register = template.Library()

DELIVERIES_LISTED = 10


@register.inclusion_tag("watch/partials/site_watch.html", takes_context=True)
def site_watch(context, site) -> dict:
    request = context["request"]
    user = request.user
    manages = can_manage(user, site)
    schedule = site_schedule(site=site)
    subscription = alert_subscription(site=site, user=user)
    trend = site_trend(site=site)
    return {
        "request": request,
        "csrf_token": context.get("csrf_token"),
        "site": site,
        "can_manage": manages,
        "schedule": schedule,
        "schedule_form": (
            ScheduleForm(input_take(request, schedule_input_key(site)), instance=schedule)
            if manages
            else None
        ),
        "alert_form": AlertForm(input_take(request, alerts_input_key(site)), instance=subscription),
        "subscription": subscription,
        "deliveries": webhook_deliveries(site=site, user=user, limit=DELIVERIES_LISTED),
        "charts": trend_charts(trend) if len(trend) > 1 else [],
        "crawls_compared": len(trend),
    }
