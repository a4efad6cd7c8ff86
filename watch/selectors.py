"""Read-side queries of watching a site, for its views and its panel on the site page. Writes are in
watch.services."""

from __future__ import annotations

from django.db.models import QuerySet

from sites.access import can_manage
from sites.models import Crawl, Site
from watch.models import AlertSubscription, Schedule, WebhookDelivery


def site_schedule(*, site: Site) -> Schedule | None:
    return Schedule.objects.filter(site=site).first()


def alert_subscription(*, site: Site, user) -> AlertSubscription | None:
    """The user's own alerts for the site, if they asked for any."""
    return AlertSubscription.objects.filter(site=site, user=user).first()


def webhook_deliveries(*, site: Site, user, limit: int) -> list[WebhookDelivery]:
    """The site's newest webhook deliveries the user may see: every one for who manages the site, else their own."""
    deliveries = WebhookDelivery.objects.filter(site=site)
    if not can_manage(user, site):
        deliveries = deliveries.filter(subscription__user=user)
    return list(deliveries.select_related("subscription__user")[:limit])


def finished_crawls(*, site: Site) -> QuerySet[Crawl]:
    """The site's finished crawls, newest first."""
    return Crawl.objects.filter(site=site).finished()
