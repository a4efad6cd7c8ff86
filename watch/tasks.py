"""Celery tasks of watch/: thin wrappers over watch.services."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from watch.models import WebhookDelivery
from watch.services import alerts, schedules

# A webhook that failed is tried again 1, 2, 4 … minutes later, at most this far apart.
WEBHOOK_BACKOFF_CAP_SECONDS = 3600


@shared_task
def schedules_run_due() -> list[int]:
    """Beat, once a minute: start the crawls of the sites whose schedule has come."""
    return schedules.schedules_run_due()


@shared_task
def alerts_send_waiting() -> list[int]:
    """Beat, once a minute: send the alerts whose crawl's analyses ended unheard, or that waited too long."""
    return alerts.alerts_send_waiting()


@shared_task(bind=True)
def webhook_deliver(self, delivery_id: int) -> str:
    """POST one alert; retried with backoff (Celery retries) until delivered, refused for good or out of tries."""
    delivery = WebhookDelivery.objects.select_related("subscription").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return "gone"
    if alerts.webhook_attempt(delivery=delivery):
        return delivery.status
    raise self.retry(
        countdown=min(WEBHOOK_BACKOFF_CAP_SECONDS, 60 * 2 ** (delivery.attempts - 1)),
        max_retries=settings.WEBAUDIT_WEBHOOK_ATTEMPTS,
    )
