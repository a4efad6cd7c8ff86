"""After a scheduled crawl: its analyses, and telling each subscriber what got worse since the crawl before.

`watch_crawl_finished` is a crawl-finished hook (WEBAUDIT_CRAWL_FINISHED_HOOKS) that starts the schedule's
analyses; the alert waits for them (WaitingAlert) and goes out from `watch_job_ended`, a job-ended hook
(WEBAUDIT_JOB_ENDED_HOOKS), when the last has ended, with beat's `alerts_send_waiting` as the safety net.
Email goes through Django's email backend; a webhook is a JSON POST through the project's HTTP client (its address guard, timeout and size
caps), signed with HMAC-SHA256 of the exact body in the X-Webaudit-Signature header ("sha256=<hex>"), retried
by watch.tasks.webhook_deliver with backoff; every attempt's answer is kept on its WebhookDelivery.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.core.mail import send_mail
from django.db.models import Q
from django.utils import timezone

from checks.compare import CrawlComparison, crawl_compare, crawl_compare_default
from checks.jobs.context import JobInputError
from checks.jobs.services import job_enqueue, job_start
from checks.models import AnalysisJob
from sites.http import FetchResult, FetchSettings, PoliteFetcher, json_body
from sites.models import Crawl, Site
from watch.models import AlertSubscription, Schedule, WaitingAlert, WebhookDelivery
from watch.selectors import alert_subscription
from watch.services.schedules import crawl_was_scheduled

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Webaudit-Signature"
# Analyses started after each scheduled crawl (content extracts of MWIM sites follow every crawl already).
SCHEDULED_ANALYSES = ("decay", "pagetypes")
# What a webhook's answer keeps of its body, and reads at most.
ANSWER_KEPT = 2000
ANSWER_READ = 64_000
# URLs listed per section in an alert; the counts are complete.
ALERT_LIST_CAP = 50
# How long an alert waits for its crawl's analyses at most. Decay takes minutes on the test bed's sites; a job
# that has not ended in this time has failed in a way nobody saw, and a late alert beats none.
ALERT_WAIT_LIMIT = timedelta(hours=6)


def watch_crawl_finished(*, crawl: Crawl) -> None:
    """The crawl-finished hook: after a scheduled crawl, start its analyses; its alerts go out when they have
    all ended, so that they tell decay before and after (at once when the schedule runs none)."""
    if not crawl_was_scheduled(crawl):
        return
    schedule = Schedule.objects.get(last_crawl=crawl)
    WaitingAlert.objects.get_or_create(crawl=crawl)
    started = []
    for kind in SCHEDULED_ANALYSES if schedule.analyses else ():
        try:
            started.append(job_start(kind=kind, crawl=crawl, parameters={}, enqueue=False))
        except JobInputError as exc:
            log.warning("scheduled %s of crawl %s not started: %s", kind, crawl.pk, exc)
    # Handed to the workers once all exist: the first to end must not find the others missing and send early.
    for job in started:
        job_enqueue(job=job)
    alert_send_when_analysed(crawl=crawl)


def alerts_save(*, site: Site, user, **fields) -> AlertSubscription:
    """Create or change the user's alerts for the site (its webhook secret is made on the first save)."""
    subscription = alert_subscription(site=site, user=user) or AlertSubscription(site=site, user=user)
    for name, value in fields.items():
        setattr(subscription, name, value)
    subscription.save()
    return subscription


def watch_job_ended(*, job: AnalysisJob) -> None:
    """The job-ended hook: the end of a scheduled analysis may be the last its crawl's alert waits for."""
    if job.crawl is not None and job.kind in SCHEDULED_ANALYSES:
        alert_send_when_analysed(crawl=job.crawl)


def alert_send_when_analysed(*, crawl: Crawl) -> bool:
    """Send the crawl's waiting alert if none of its scheduled analyses is still queued or running; True when
    this call sent it. Exactly one caller sends it: the one whose delete removed the waiting row."""
    busy = AnalysisJob.objects.active().filter(crawl=crawl, kind__in=SCHEDULED_ANALYSES)
    if busy.exists() or not WaitingAlert.objects.filter(crawl=crawl).delete()[0]:
        return False
    alerts_send(crawl=crawl)
    return True


def alerts_send_waiting(*, now: datetime | None = None) -> list[int]:
    """Send the waiting alerts whose analyses have all ended without a hook sending them (a worker that died
    between a job's end and its hook), or that have waited ALERT_WAIT_LIMIT (an analysis that never ends must
    not silence its alert); return their crawls' ids. Beat calls it once a minute."""
    now = now or timezone.now()
    sent = []
    for crawl_id, created_at in WaitingAlert.objects.values_list("crawl_id", "created_at"):
        crawl = Crawl.objects.select_related("site").filter(pk=crawl_id).first()
        if crawl is None:
            continue  # deleted meanwhile, and its waiting alert with it
        if now - created_at >= ALERT_WAIT_LIMIT and WaitingAlert.objects.filter(crawl=crawl).delete()[0]:
            log.warning(
                "alert of crawl %s sent before its analyses ended: waited %s", crawl_id, ALERT_WAIT_LIMIT
            )
            alerts_send(crawl=crawl)
            sent.append(crawl_id)
        elif alert_send_when_analysed(crawl=crawl):
            sent.append(crawl_id)
    return sent


def alert_recipients(crawl: Crawl) -> list[AlertSubscription]:
    """The subscriptions of users who can still see the site: its owner and the users it is shared with."""
    site = crawl.site
    return list(
        AlertSubscription.objects.filter(site=site)
        .filter(Q(user=site.owner) | Q(user__in=site.shared_with.all()))
        .select_related("user")
    )


def alerts_send(*, crawl: Crawl) -> dict[str, int]:
    """Compare the crawl with the site's crawl before it and tell each subscriber who wants to hear it: one
    email and one webhook delivery each. Returns how many of each went out."""
    sent = {"email": 0, "webhook": 0}
    previous = crawl_compare_default(new=crawl)
    if previous is None:
        return sent
    comparison = crawl_compare(old=previous, new=crawl)
    for subscription in alert_recipients(crawl):
        if not comparison.got_worse and not subscription.even_when_unchanged:
            continue
        if subscription.email and subscription.user.email:
            subject, text = alert_text(comparison)
            send_mail(subject, text, settings.DEFAULT_FROM_EMAIL, [subscription.user.email])
            sent["email"] += 1
        if subscription.webhook_url:
            delivery = WebhookDelivery.objects.create(
                subscription=subscription,
                site=crawl.site,
                crawl=crawl,
                url=subscription.webhook_url,
                payload=alert_payload(comparison),
            )
            webhook_enqueue(delivery)
            sent["webhook"] += 1
    return sent


def alert_payload(comparison: CrawlComparison) -> dict:
    site = comparison.new.site
    return {
        "event": "crawl.compared",
        "site": {"id": site.pk, "url": site.url, "name": site.name},
        "got_worse": comparison.got_worse,
        "mean_decay": list(comparison.mean_decay),
        "decay_raisers": [
            {"url": raiser.url, "gain": raiser.gain, "inlinks": raiser.inlinks}
            for raiser in comparison.decay_raisers
        ],
        **comparison.as_report(),
    }


def alert_text(comparison: CrawlComparison) -> tuple[str, str]:
    """The email's subject and body: what got worse first, then what got better."""
    site, report = comparison.new.site, comparison.as_report()
    new_broken = report["new_broken_targets"]
    old_health, new_health = report["health"]
    headline = f"{len(new_broken)} new broken target(s)" if new_broken else "nothing new broken"
    subject = f"[webaudit] {site}: {headline}, health {old_health} → {new_health}"
    lines = [
        f"Crawl #{comparison.new.pk} of {site.url} compared with crawl #{comparison.old.pk}.",
        f"Health: {old_health} → {new_health} (0-100).",
        f"Mean decay: {_decay_text(comparison.mean_decay[0])} → {_decay_text(comparison.mean_decay[1])}.",
        "",
        f"New broken targets: {len(new_broken)}",
        *(
            f"  {t['url']} ({t['verdict']}): {t['inlinks']} link(s) from {t['unique_inlinks']} page(s)"
            for t in new_broken[:ALERT_LIST_CAP]
        ),
        *(["Raised the site's decay most:"] if comparison.decay_raisers else []),
        *(
            f"  {raiser.url}: total decay {raiser.gain:+.3f} ({raiser.inlinks} link(s))"
            for raiser in comparison.decay_raisers
        ),
        f"New soft-404 pages: {len(report['new_soft404'])}",
        *(f"  {url}" for url in report["new_soft404"][:ALERT_LIST_CAP]),
        f"Fixed targets: {len(report['fixed_targets'])}",
        f"Pages new: {len(report['pages_new'])}, gone: {len(report['pages_gone'])}, "
        f"content changed: {report['changed']}",
    ]
    return subject, "\n".join(lines) + "\n"


def _decay_text(mean: float | None) -> str:
    return "not measured" if mean is None else f"{mean:.3f}"


def webhook_signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def webhook_enqueue(delivery: WebhookDelivery, *, countdown: float | None = None) -> None:
    # Found in Celery's registry by name (watch/apps.py imports the tasks), since the tasks module imports this one.
    current_app.tasks["watch.tasks.webhook_deliver"].apply_async((delivery.pk,), countdown=countdown)


def webhook_attempt(*, delivery: WebhookDelivery) -> bool:
    """POST the delivery once and record the answer; True when it is settled (delivered, or refused for good
    by a 4xx other than 408/429), False when worth another try."""
    body = json_body(delivery.payload)
    headers = {SIGNATURE_HEADER: webhook_signature(delivery.subscription.webhook_secret, body)}
    with PoliteFetcher(FetchSettings.from_settings(settings), max_bytes=ANSWER_READ) as polite:
        answer: FetchResult = polite.post_json(delivery.url, delivery.payload, headers=headers)
    delivery.attempts += 1
    delivery.last_attempt_at = timezone.now()
    delivery.response_status = answer.status
    delivery.response_body = answer.body[:ANSWER_KEPT].decode("utf-8", "replace")
    delivery.error = answer.error if answer.error_kind else ""
    status = answer.status or 0
    if answer.status is not None and 200 <= status < 300 and not answer.error_kind:
        delivery.status = WebhookDelivery.Status.DELIVERED
    elif answer.error_kind == "blocked_address" or (400 <= status < 500 and status not in (408, 429)):
        delivery.status = WebhookDelivery.Status.FAILED  # asking again would get the same answer
    elif delivery.attempts >= settings.WEBAUDIT_WEBHOOK_ATTEMPTS:
        delivery.status = WebhookDelivery.Status.FAILED
    delivery.save()
    return delivery.status != WebhookDelivery.Status.PENDING
