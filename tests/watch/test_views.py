"""The watch panel on the site page, its forms, and the "What changed" page."""

from __future__ import annotations

import re

import pytest

from sites.models import Crawl
from sites.services.crawls import crawl_run, crawl_start
from sites.services.sites import site_create, site_share
from tests.sites.factories import make_crawl, make_user
from tests.sites.recrawl_site import ValidatingSite
from tests.sites.sitebuilder import html
from watch.models import AlertSubscription, Schedule

pytestmark = pytest.mark.django_db


@pytest.fixture
def site(owner):
    return site_create(owner=owner, url="http://127.0.0.1:9/")


def test_the_site_page_shows_the_schedule_and_alert_forms_to_its_owner(signed_in, site):
    page = signed_in.get(f"/sites/{site.pk}/").content.decode()
    assert 'id="watch"' in page and "Save schedule" in page and "Save alerts" in page
    assert "Trends and" in page


def _checkbox(page: str, name: str) -> str:
    return re.search(rf'<input type="checkbox" name="{name}"[^>]*>', page).group(0)


def test_a_site_never_scheduled_shows_its_schedule_and_the_users_alerts_off(signed_in, site):
    page = signed_in.get(f"/sites/{site.pk}/").content.decode()
    assert "Not re-crawled on a schedule" in page
    assert "checked" not in _checkbox(page, "enabled")
    assert "checked" not in _checkbox(page, "email")
    assert "You get no alerts for this site" in page


def test_a_saved_schedule_and_alerts_show_as_saved(signed_in, site):
    signed_in.post(
        f"/watch/sites/{site.pk}/schedule",
        {"enabled": "on", "frequency": "daily", "hour": "4", "minute": "30", "weekday": "0"},
    )
    signed_in.post(f"/watch/sites/{site.pk}/alerts", {"email": "on"})
    page = signed_in.get(f"/sites/{site.pk}/").content.decode()
    assert "checked" in _checkbox(page, "enabled") and "checked" in _checkbox(page, "email")
    assert "You get no alerts" not in page


def test_saving_a_schedule_left_off_says_how_to_turn_it_on(signed_in, site):
    answer = signed_in.post(
        f"/watch/sites/{site.pk}/schedule",
        {"frequency": "weekly", "hour": "4", "minute": "30", "weekday": "2"},
        follow=True,
    )
    assert (
        "Schedule saved: off (tick &quot;Re-crawl on this schedule&quot; to turn it on)"
        in answer.content.decode()
    )


def test_the_owner_schedules_a_site_daily_and_a_bad_cron_is_refused_clearly(signed_in, site):
    answer = signed_in.post(
        f"/watch/sites/{site.pk}/schedule",
        {
            "enabled": "on",
            "frequency": "daily",
            "hour": "4",
            "minute": "30",
            "weekday": "0",
            "analyses": "on",
        },
    )
    assert answer.status_code == 302
    schedule = Schedule.objects.get(site=site)
    assert (schedule.frequency, schedule.hour, schedule.minute) == ("daily", 4, 30)
    assert schedule.next_run_at.hour == 4 and schedule.next_run_at.minute == 30
    answer = signed_in.post(
        f"/watch/sites/{site.pk}/schedule",
        {
            "enabled": "on",
            "frequency": "cron",
            "hour": "4",
            "minute": "30",
            "weekday": "0",
            "cron": "* * * * *",
        },
        follow=True,
    )
    assert "The schedule was not saved: Cron expression: " in answer.content.decode()
    assert "once an hour" in answer.content.decode()
    assert Schedule.objects.get(site=site).frequency == "daily"


def test_a_refused_schedule_or_alert_comes_back_as_typed_with_its_error(signed_in, site):
    signed_in.post(
        f"/watch/sites/{site.pk}/schedule",
        {
            "enabled": "on",
            "frequency": "cron",
            "hour": "4",
            "minute": "30",
            "weekday": "0",
            "cron": "* * * * *",
        },
    )
    signed_in.post(f"/watch/sites/{site.pk}/alerts", {"email": "on", "webhook_url": "ftp://hooks.example/"})
    page = signed_in.get(f"/sites/{site.pk}/").content.decode()
    assert 'value="* * * * *"' in page and "checked" in _checkbox(page, "enabled")
    assert 'value="ftp://hooks.example/"' in page and "A webhook URL is an http://" in page
    assert not Schedule.objects.exists() and not AlertSubscription.objects.exists()


def test_a_refused_schedule_names_each_field_as_the_form_labels_it(signed_in, site):
    answer = signed_in.post(
        f"/watch/sites/{site.pk}/schedule",
        {"enabled": "on", "frequency": "daily", "hour": "25", "minute": "0", "weekday": "0"},
        follow=True,
    )
    assert "The schedule was not saved: Hour: " in answer.content.decode()


def test_a_user_the_site_is_shared_with_chooses_alerts_but_cannot_change_the_schedule(client, site):
    member = make_user("member")
    site_share(site=site, username="member")
    client.force_login(member)
    answer = client.post(
        f"/watch/sites/{site.pk}/schedule", {"frequency": "daily", "hour": "1", "minute": "0"}
    )
    assert answer.status_code == 403
    answer = client.post(
        f"/watch/sites/{site.pk}/alerts", {"email": "on", "webhook_url": "https://hooks.example/x"}
    )
    assert answer.status_code == 302
    subscription = AlertSubscription.objects.get(site=site, user=member)
    assert subscription.webhook_url == "https://hooks.example/x" and len(subscription.webhook_secret) == 64
    answer = client.post(f"/watch/sites/{site.pk}/alerts", {"webhook_url": "ftp://x/"}, follow=True)
    assert "http:// or https://" in answer.content.decode()


def test_a_stranger_sees_nothing_of_a_site_it_cannot_see(client, site):
    client.force_login(make_user("stranger"))
    for url in (f"/watch/sites/{site.pk}/changes", f"/watch/sites/{site.pk}/alerts"):
        method = client.get if url.endswith("changes") else client.post
        assert method(url).status_code == 404


def test_what_changed_with_one_finished_crawl_offers_no_comparison_and_says_what_to_do(signed_in, site):
    make_crawl(site)
    page = signed_in.get(f"/watch/sites/{site.pk}/changes").content.decode()
    assert "Compare" not in page and 'name="old"' not in page
    assert "it has one" in page and f'href="/sites/{site.pk}/"' in page


def test_what_changed_compares_the_newest_crawl_with_the_one_before_or_any_two(signed_in, owner, httpserver):
    served = ValidatingSite(httpserver, {"/": html("Home", "/a"), "/a": html("A", "/")})
    site = site_create(owner=owner, url=served.root)
    crawls = []
    for _ in range(3):
        crawls.append(crawl_run(crawl=crawl_start(site=site, requested_by=owner, enqueue=False)))
        if len(crawls) == 1:
            del served.pages["/a"]
    page = signed_in.get(f"/watch/sites/{site.pk}/changes").content.decode()
    assert f"Crawl #{crawls[1].pk} → crawl #{crawls[2].pk}" in page
    assert "None." in page
    page = signed_in.get(
        f"/watch/sites/{site.pk}/changes?old={crawls[0].pk}&new={crawls[2].pk}"
    ).content.decode()
    assert f"Crawl #{crawls[0].pk} → crawl #{crawls[2].pk}" in page
    assert served.root.rstrip("/") + "/a" in page
    answer = signed_in.get(f"/watch/sites/{site.pk}/changes?old={crawls[2].pk}&new={crawls[0].pk}")
    assert answer.status_code == 400 and "give the older one first" in answer.content.decode()
    answer = signed_in.get(f"/watch/sites/{site.pk}/changes?old=abc")
    assert answer.status_code == 400
    other = Crawl.objects.create(site=site_create(owner=owner, url="http://127.0.0.1:8/"), status="finished")
    assert signed_in.get(f"/watch/sites/{site.pk}/changes?old={other.pk}").status_code == 400
    detail = signed_in.get(f"/sites/{site.pk}/").content.decode()
    assert "<svg" in detail and "Broken targets" in detail
