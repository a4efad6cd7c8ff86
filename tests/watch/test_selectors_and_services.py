"""What the watch panel reads (the webhook deliveries a user may see, the finished crawls newest first) and how a
user's alerts are saved."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from sites.models import Crawl
from tests.sites.factories import make_crawl, make_site, make_user
from watch.models import AlertSubscription, WebhookDelivery
from watch.selectors import finished_crawls, webhook_deliveries
from watch.services.alerts import alerts_save

pytestmark = pytest.mark.django_db


def _delivery(site, user) -> WebhookDelivery:
    subscription = AlertSubscription.objects.create(
        site=site, user=user, webhook_url="https://hooks.example/"
    )
    return WebhookDelivery.objects.create(
        subscription=subscription, site=site, url="https://hooks.example/", payload={}
    )


def test_who_manages_the_site_sees_every_delivery_and_another_user_only_their_own():
    owner, reader = make_user(), make_user()
    site = make_site(owner=owner)
    owners, readers = _delivery(site, owner), _delivery(site, reader)
    assert set(webhook_deliveries(site=site, user=owner, limit=10)) == {owners, readers}
    assert webhook_deliveries(site=site, user=reader, limit=10) == [readers]
    superuser = get_user_model().objects.create_superuser("root", "root@example.org", "x")
    assert len(webhook_deliveries(site=site, user=superuser, limit=1)) == 1


def test_the_finished_crawls_come_newest_first_without_the_others():
    site = make_site()
    older, newer = make_crawl(site), make_crawl(site)
    make_crawl(site, status=Crawl.Status.RUNNING)
    assert list(finished_crawls(site=site)) == [newer, older]


def test_saving_alerts_makes_one_subscription_per_user_and_site_with_a_secret_kept_across_changes():
    user, site = make_user(), make_site()
    first = alerts_save(site=site, user=user, email=False, webhook_url="https://hooks.example/a")
    again = alerts_save(site=site, user=user, webhook_url="https://hooks.example/b")
    assert again.pk == first.pk and AlertSubscription.objects.filter(site=site).count() == 1
    assert len(again.webhook_secret) == 64 and again.webhook_secret == first.webhook_secret
    assert (again.email, again.webhook_url) == (False, "https://hooks.example/b")
