"""External link verdicts reused across crawls of one owner's sites for a while (lychee's --cache), against real
local servers: a re-audit an hour later requests no external target; an expired, foreign or failing verdict is
checked again; the report and the dashboard say which verdicts came from the cache and how old they were."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from pytest_httpserver import HTTPServer

from sites.models import Crawl, ExternalCheck, Page
from sites.services.crawls import crawl_run, crawl_start
from sites.services.reports import iter_report_pages, link_as_report, report_links
from sites.services.sites import site_create
from tests.sites.sitebuilder import html, requested_paths, serve_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def elsewhere():
    """The external host: one page that answers, one that is gone, one whose server is failing."""
    server = HTTPServer(host="127.0.0.2")
    server.start()
    serve_site(server, {"/ok": html("Elsewhere")}, robots="User-agent: *\nAllow: /\n")
    server.expect_request("/down").respond_with_data("busy", status=503)
    yield server
    server.clear()
    server.stop()


@pytest.fixture
def site_url(httpserver, elsewhere):
    targets = [elsewhere.url_for(path) for path in ("/ok", "/gone", "/down")]
    return serve_site(
        httpserver, {"/": html("Home", *targets, "/about"), "/about": html("About", targets[0])}
    )


def audit(owner, url, **site_settings) -> Crawl:
    site = site_create(owner=owner, url=url, **site_settings)
    return crawl_run(crawl=crawl_start(site=site, requested_by=owner, enqueue=False))


def age_kept_checks(hours: float) -> None:
    """Move every kept check `hours` into the past: the next crawl runs that much later."""
    for check in ExternalCheck.objects.all():
        check.checked_at -= timedelta(hours=hours)
        check.save(update_fields=["checked_at"])


def external_pages(crawl: Crawl) -> dict[str, Page]:
    return {page.url.rsplit("/", 1)[1]: page for page in Page.objects.filter(crawl=crawl, is_internal=False)}


def test_a_reaudit_an_hour_later_requests_no_external_target_it_checked(user, site_url, elsewhere, settings):
    settings.WEBAUDIT_CRAWL_RETRIES = 0
    first = audit(user, site_url)
    asked_first = requested_paths(elsewhere)
    # One request per target however many pages link to it, plus robots.txt and /ok's probe.
    assert sorted(asked_first.count(path) for path in ("/ok", "/gone", "/down", "/robots.txt")) == [
        1,
        1,
        1,
        1,
    ]
    assert {key: page.verdict for key, page in external_pages(first).items()} == {
        "ok": "ok",
        "gone": "dead",
        "down": "failing",
    }
    age_kept_checks(1)

    elsewhere.clear_log()
    second = audit(user, site_url)
    pages = external_pages(second)
    # The failing target is checked again (its strikes need checks spaced in time); the others are not.
    assert requested_paths(elsewhere) == ["/robots.txt", "/down"]
    assert pages["ok"].verdict == "ok" and pages["gone"].verdict == "dead"
    assert pages["ok"].status_code == 200 and pages["gone"].status_code == 404
    assert pages["ok"].verdict_cached_at is not None and pages["down"].verdict_cached_at is None
    assert (second.external_done, second.external_cached) == (3, 2)

    report = {
        page["url"].rsplit("/", 1)[1]: page for page in iter_report_pages(second) if not page["internal"]
    }
    assert report["ok"]["from_cache"] and report["gone"]["from_cache"] and not report["down"]["from_cache"]
    assert 3590 <= report["ok"]["cache_age_seconds"] <= 3700
    assert report["down"]["cache_age_seconds"] is None
    links = [link_as_report(values) for values in report_links(second)]
    assert {link["target"].rsplit("/", 1)[1] for link in links if link["from_cache"]} == {"ok", "gone"}


def test_a_verdict_older_than_the_cache_time_is_checked_again(user, site_url, elsewhere, settings):
    settings.WEBAUDIT_CRAWL_RETRIES = 0
    audit(user, site_url)
    age_kept_checks(25)  # the default keeps verdicts a day
    elsewhere.clear_log()
    second = audit(user, site_url)
    assert {"/ok", "/gone", "/down"} <= set(requested_paths(elsewhere))
    assert second.external_cached == 0
    assert ExternalCheck.objects.get(url__endswith="/ok").checked_at > second.started_at


def test_a_site_that_keeps_no_verdicts_checks_every_target_every_time(user, site_url, elsewhere, settings):
    settings.WEBAUDIT_CRAWL_RETRIES = 0
    audit(user, site_url)
    elsewhere.clear_log()
    second = audit(user, site_url, external_cache_hours=0)
    assert {"/ok", "/gone"} <= set(requested_paths(elsewhere))
    assert second.external_cached == 0


def test_another_owners_verdicts_are_not_reused(user, django_user_model, site_url, elsewhere, settings):
    settings.WEBAUDIT_CRAWL_RETRIES = 0
    audit(user, site_url)
    elsewhere.clear_log()
    stranger = django_user_model.objects.create_user(username="stranger", password="pw-stranger-123")
    crawl = audit(stranger, site_url)
    assert {"/ok", "/gone"} <= set(requested_paths(elsewhere))
    assert crawl.external_cached == 0
    assert ExternalCheck.objects.filter(owner=stranger).count() == 2  # ok and gone; failing is never kept


def test_the_progress_says_how_many_external_targets_are_left_and_at_what_rate(signed_in, owner):
    site = site_create(owner=owner, url="https://example.com/")
    crawl = Crawl.objects.create(
        site=site,
        status=Crawl.Status.RUNNING,
        external_admitted=300,
        external_done=120,
        external_cached=40,
    )
    began = timezone.now()
    Crawl.objects.filter(pk=crawl.pk).update(
        started_at=began - timedelta(seconds=60),
        external_started_at=began - timedelta(seconds=40),
    )
    html_text = signed_in.get(reverse("sites:crawl", args=[crawl.pk])).content.decode()
    shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html_text))
    assert re.search(
        r"External targets120 checked \(40 from cache\), 180 left at (3\.0|2\.\d) a second", shown
    )
    summary = signed_in.get(reverse("sites:crawl_progress_json", args=[crawl.pk])).json()
    assert summary["external"]["left"] == 180 and summary["external"]["from_cache"] == 40
    # 120 targets in 40 s and however long the two requests above took (seconds on a loaded machine).
    elapsed = (timezone.now() - began).total_seconds()
    assert 120 / (40 + elapsed) - 0.01 <= summary["external"]["per_second"] <= 3.0


@pytest.mark.django_db
def test_a_new_check_of_a_target_replaces_the_kept_one_and_a_failing_one_is_not_kept(user):
    from sites.services.external_cache import external_cache_lookup, external_cache_store

    earlier, later = timezone.now() - timedelta(hours=2), timezone.now()
    ok = {"verdict": "ok", "status_code": 200, "redirects": [], "probe": {"status": 404, "kind": "probe"}}
    moved = {
        "verdict": "dead",
        "status_code": 404,
        "redirects": [{"url": "https://b.example/", "status": 301}],
    }
    external_cache_store(owner_id=user.pk, checked=[("k1", "https://a.example/", ok)], now=earlier)
    stored = external_cache_store(
        owner_id=user.pk,
        checked=[("k1", "https://a.example/x", moved), ("k2", "https://c.example/", {"verdict": "failing"})],
        now=later,
    )

    assert stored == 1  # the failing verdict is decided by strikes in time, never reused
    kept = ExternalCheck.objects.get(owner=user, url_key="k1")
    assert (kept.url, kept.checked_at, kept.fields["verdict"]) == ("https://a.example/x", later, "dead")
    assert kept.fields["redirects"] == moved["redirects"] and kept.fields["probe"] is None
    found = external_cache_lookup(owner_id=user.pk, url_keys=["k1", "k2"], max_age_hours=1, now=later)
    assert list(found) == ["k1"] and found["k1"].checked_at == later
