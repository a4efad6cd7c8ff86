"""Alerts after scheduled crawls, webhook deliveries, and the trend they show up on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail

from checks.models import AnalysisJob
from sites.models import Crawl
from sites.services.crawls import crawl_run
from sites.services.sites import site_create, site_share
from tests.sites.factories import make_user
from tests.sites.recrawl_site import ValidatingSite
from tests.sites.sitebuilder import html
from watch.models import AlertSubscription, WaitingAlert, WebhookDelivery
from watch.services.alerts import ALERT_WAIT_LIMIT, alerts_send_waiting, webhook_attempt
from watch.services.schedules import schedule_save, schedules_run_due
from watch.services.trends import site_trend, trend_charts

pytestmark = pytest.mark.django_db

DAY1 = datetime(2026, 11, 2, tzinfo=UTC)


@pytest.fixture
def watched(httpserver, user, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    served = ValidatingSite(
        httpserver,
        {
            "/": html("Home", "/a", "/b", "/c"),
            "/a": html("A", "/", "/c"),
            "/b": html("B", "/c", "/c"),
            "/c": html("C", "/"),
        },
    )
    user.email = "owner@example.org"
    user.save()
    site = site_create(owner=user, url=served.root)
    schedule_save(site=site, frequency="daily", hour=3, minute=0, now=DAY1)
    return served, site


def scheduled_day(day: int, *, analysed: bool = True) -> Crawl:
    """Beat's tick on `day` at 03:00:30, the crawl it starts run to its end, and (unless `analysed` is False)
    the analyses its end queued."""
    (crawl_id,) = schedules_run_due(now=DAY1 + timedelta(days=day, hours=3, seconds=30))
    crawl = crawl_run(crawl=Crawl.objects.get(pk=crawl_id))
    if analysed:
        analyses_run(crawl)
    return crawl


def analyses_run(crawl: Crawl, kinds: tuple[str, ...] = ("decay", "pagetypes")) -> None:
    """Run the crawl's queued analyses of `kinds` as a worker does: each job's Celery task, which enqueues its
    next step until the job ends (eager_tasks runs them here)."""
    from checks.tasks import analysis_step

    for job_id in AnalysisJob.objects.filter(crawl=crawl, kind__in=kinds, status="queued").values_list(
        "pk", flat=True
    ):
        analysis_step.delay(job_id)


def test_removing_a_page_between_two_scheduled_crawls_sends_one_email_and_one_signed_webhook_and_shows_on_the_trend(
    watched, user, webhook_receiver, eager_tasks
):
    served, site = watched
    mine = AlertSubscription.objects.create(
        site=site, user=user, email=True, webhook_url=webhook_receiver.url
    )
    # A user the site is shared with chose no alerts; one it is no longer shared with chose them all.
    site_share(site=site, username=make_user("quiet", email="quiet@example.org").username)
    gone = make_user("former", email="former@example.org")
    AlertSubscription.objects.create(site=site, user=gone, email=True, webhook_url=webhook_receiver.url)

    first = scheduled_day(0)
    assert mail.outbox == [] and webhook_receiver.received == []  # nothing to compare with yet
    del served.pages["/c"]
    second = scheduled_day(1)

    base = served.root.rstrip("/")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["owner@example.org"]
    assert "1 new broken target" in message.subject
    assert f"{base}/c (dead): 4 link(s) from 3 page(s)" in message.body

    (payload,) = webhook_receiver.verified(mine.webhook_secret)
    assert len(webhook_receiver.received) == 1
    assert payload["old"] == first.pk and payload["new"] == second.pk
    assert payload["new_broken_targets"] == [
        {"url": f"{base}/c", "verdict": "dead", "inlinks": 4, "unique_inlinks": 3}
    ]
    (delivery,) = WebhookDelivery.objects.all()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("delivered", 1, 200)

    # The scheduled crawls' analyses were started as analysis jobs.
    kinds = sorted(AnalysisJob.objects.filter(crawl=second).values_list("kind", flat=True))
    assert kinds == ["decay", "pagetypes"]

    trend = site_trend(site=site)
    assert [(p.crawl_id, p.broken_targets, p.pages) for p in trend] == [(first.pk, 0, 4), (second.pk, 1, 4)]
    assert trend[0].health == 100 and trend[1].health < 100
    charts = dict(trend_charts(trend))
    assert f"#{second.pk}: 1" in charts["Broken targets"]


def test_no_alert_when_nothing_got_worse_unless_asked(watched, user, eager_tasks, webhook_receiver):
    _, site = watched
    asked = make_user("curious", email="curious@example.org")
    site_share(site=site, username=asked.username)
    AlertSubscription.objects.create(site=site, user=user, email=True)
    AlertSubscription.objects.create(
        site=site, user=asked, email=True, webhook_url=webhook_receiver.url, even_when_unchanged=True
    )
    scheduled_day(0)
    scheduled_day(1)
    assert [message.to for message in mail.outbox] == [["curious@example.org"]]
    assert "nothing new broken" in mail.outbox[0].subject
    assert len(webhook_receiver.received) == 1


def test_a_crawl_started_by_hand_sends_no_alert(watched, user, crawl_site):
    served, site = watched
    AlertSubscription.objects.create(site=site, user=user, email=True, even_when_unchanged=True)
    from sites.services.crawls import crawl_start

    for _ in range(2):
        crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False))
    assert mail.outbox == []


def test_the_alert_waits_for_the_scheduled_analyses_and_tells_decay_before_and_after(
    watched, user, webhook_receiver, eager_tasks
):
    served, site = watched
    mine = AlertSubscription.objects.create(
        site=site, user=user, email=True, webhook_url=webhook_receiver.url
    )
    first = scheduled_day(0)
    assert AnalysisJob.objects.filter(crawl=first, status="finished").count() == 2
    del served.pages["/c"]
    second = scheduled_day(1, analysed=False)

    # The crawl has ended; its decay and page types are queued: nothing is sent yet.
    assert sorted(AnalysisJob.objects.filter(crawl=second).values_list("kind", "status")) == [
        ("decay", "queued"),
        ("pagetypes", "queued"),
    ]
    assert mail.outbox == [] and webhook_receiver.received == []
    assert WaitingAlert.objects.filter(crawl=second).exists()
    analyses_run(second, kinds=("decay",))
    assert mail.outbox == [] and webhook_receiver.received == []  # page types still running
    analyses_run(second, kinds=("pagetypes",))

    assert len(mail.outbox) == 1 and not WaitingAlert.objects.exists()
    (payload,) = webhook_receiver.verified(mine.webhook_secret)
    before, after = payload["mean_decay"]
    assert before is not None and after is not None and after != before
    base = served.root.rstrip("/")
    assert [raiser["url"] for raiser in payload["decay_raisers"]] == [f"{base}/c"]
    assert payload["decay_raisers"][0]["gain"] > 0 and payload["decay_raisers"][0]["inlinks"] == 4
    assert f"Mean decay: {before:.3f} → {after:.3f}." in mail.outbox[0].body
    assert (
        f"  {base}/c: total decay +{payload['decay_raisers'][0]['gain']:.3f} (4 link(s))"
        in mail.outbox[0].body
    )
    # Beat's safety net finds nothing left to send: the alert went out once.
    assert alerts_send_waiting() == [] and len(mail.outbox) == 1 and len(webhook_receiver.received) == 1


def test_an_analysis_that_fails_or_is_cancelled_does_not_hold_the_alert(watched, user, eager_tasks):
    from checks.jobs.services import job_cancel, job_fail

    served, site = watched
    AlertSubscription.objects.create(site=site, user=user, email=True)
    scheduled_day(0)
    del served.pages["/c"]
    second = scheduled_day(1, analysed=False)
    decay, pagetypes = AnalysisJob.objects.filter(crawl=second).order_by("kind")
    job_fail(job_id=decay.pk, error="the solver gave up")
    assert mail.outbox == []
    job_cancel(job=pagetypes)
    assert len(mail.outbox) == 1
    assert "Mean decay: " in mail.outbox[0].body and " → not measured." in mail.outbox[0].body


def test_an_alert_whose_analyses_never_end_is_sent_by_beat_after_the_wait_limit(watched, user, eager_tasks):
    served, site = watched
    AlertSubscription.objects.create(site=site, user=user, email=True)
    scheduled_day(0)
    del served.pages["/c"]
    second = scheduled_day(1, analysed=False)  # its jobs' worker is gone: they stay queued
    waited = WaitingAlert.objects.get(crawl=second).created_at
    assert alerts_send_waiting(now=waited + ALERT_WAIT_LIMIT - timedelta(minutes=1)) == []
    assert mail.outbox == []
    assert alerts_send_waiting(now=waited + ALERT_WAIT_LIMIT) == [second.pk]
    assert len(mail.outbox) == 1 and "1 new broken target" in mail.outbox[0].subject
    assert alerts_send_waiting(now=waited + 2 * ALERT_WAIT_LIMIT) == [] and len(mail.outbox) == 1


def delivery_to(url: str, user, site) -> WebhookDelivery:
    subscription = AlertSubscription.objects.create(site=site, user=user, webhook_url=url)
    return WebhookDelivery.objects.create(subscription=subscription, site=site, url=url, payload={"n": 1})


def test_a_webhook_that_fails_is_retried_with_backoff_until_it_answers(
    watched, user, webhook_receiver, eager_tasks
):
    from watch.tasks import webhook_deliver

    _, site = watched
    webhook_receiver.answers = [503, 500]
    delivery = delivery_to(webhook_receiver.url, user, site)
    webhook_deliver.apply_async((delivery.pk,))
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("delivered", 3, 200)
    assert len(webhook_receiver.verified(delivery.subscription.webhook_secret)) == 3


def test_a_webhook_refused_for_good_is_not_retried_and_the_answer_is_kept(watched, user, webhook_receiver):
    _, site = watched
    webhook_receiver.answers = [410]
    delivery = delivery_to(webhook_receiver.url, user, site)
    assert webhook_attempt(delivery=delivery) is True
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("failed", 1, 410)
    assert '"ok": false' in delivery.response_body


def test_a_webhook_to_a_private_address_is_refused_by_the_address_guard(watched, user, settings):
    _, site = watched
    settings.WEBAUDIT_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    delivery = delivery_to("http://10.0.0.1/hook", user, site)
    assert webhook_attempt(delivery=delivery) is True
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.response_status is None
    assert "10.0.0.1" in delivery.error
