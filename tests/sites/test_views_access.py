"""The dashboard as a signed-in user meets it: who may see what, forms, crawl actions, live progress."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from sites.models import Crawl, Site
from tests.sites.factories import body, make_crawl, make_page, make_site, make_user

pytestmark = pytest.mark.django_db

SITE_GET_URLS = ["sites:detail"]
SITE_POST_URLS = ["sites:crawl_start", "sites:share"]
CRAWL_GET_URLS = [
    "sites:crawl",
    "sites:crawl_progress_json",
    "sites:crawl_report_json",
    "sites:crawl_pages_csv",
    "sites:crawl_links_csv",
]
CRAWL_POST_URLS = ["sites:crawl_cancel", "sites:crawl_delete"]


# Access


@pytest.mark.parametrize("name", ["sites:list", "sites:add"])
def test_dashboard_pages_send_an_anonymous_visitor_to_the_login_page(client, name):
    response = client.get(reverse(name))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


@pytest.mark.parametrize("name", SITE_GET_URLS + SITE_POST_URLS + CRAWL_GET_URLS + CRAWL_POST_URLS)
def test_site_and_crawl_urls_send_an_anonymous_visitor_to_the_login_page(client, name):
    crawl = make_crawl()
    arg = crawl.site_id if name in SITE_GET_URLS + SITE_POST_URLS else crawl.pk
    method = client.post if name in SITE_POST_URLS + CRAWL_POST_URLS else client.get

    response = method(reverse(name, args=[arg]))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", SITE_GET_URLS + SITE_POST_URLS)
def test_someone_elses_site_is_not_found_on_every_site_url(signed_in, name):
    stranger_site = make_site(owner=make_user("mallory"))
    method = signed_in.post if name in SITE_POST_URLS else signed_in.get

    response = method(reverse(name, args=[stranger_site.pk]), {"username": "olivia"})

    assert response.status_code == 404
    assert not Crawl.objects.filter(site=stranger_site).exists()
    assert not stranger_site.shared_with.exists()


@pytest.mark.parametrize("name", CRAWL_GET_URLS + CRAWL_POST_URLS)
def test_someone_elses_crawl_is_not_found_on_every_crawl_url(signed_in, name):
    crawl = make_crawl(make_site(owner=make_user("mallory")), status=Crawl.Status.RUNNING)
    method = signed_in.post if name in CRAWL_POST_URLS else signed_in.get

    response = method(reverse(name, args=[crawl.pk]))

    assert response.status_code == 404
    crawl.refresh_from_db()
    assert crawl.status == Crawl.Status.RUNNING


def test_a_user_the_site_is_shared_with_sees_the_site_and_its_crawls(client, owner):
    site = make_site(owner=owner, name="Docs")
    crawl = make_crawl(site)
    auditor = make_user("sam")
    site.shared_with.add(auditor)
    client.force_login(auditor)

    assert "Docs" in body(client.get(reverse("sites:list")))
    assert client.get(reverse("sites:detail", args=[site.pk])).status_code == 200
    assert client.get(reverse("sites:crawl", args=[crawl.pk])).status_code == 200
    assert client.get(reverse("sites:crawl_report_json", args=[crawl.pk])).status_code == 200


def test_the_site_list_shows_only_visible_sites_with_their_last_crawl_status(signed_in, owner):
    mine = make_site(owner=owner, name="Mine")
    make_crawl(mine, status=Crawl.Status.FAILED)
    make_crawl(mine, status=Crawl.Status.RUNNING)  # the latest
    make_site(owner=make_user("mallory"), name="Theirs")

    response = signed_in.get(reverse("sites:list"))

    sites = list(response.context["page_obj"])
    assert [site.name for site in sites] == ["Mine"]
    assert sites[0].last_crawl_status == Crawl.Status.RUNNING
    assert "Theirs" not in body(response)
    assert 'class="badge badge-running"' in body(response)


def test_the_site_list_is_paginated(signed_in, owner):
    for number in range(27):
        make_site(owner=owner, name=f"Site {number:02d}")

    first = signed_in.get(reverse("sites:list"))
    second = signed_in.get(reverse("sites:list"), {"page": 2})

    assert len(first.context["page_obj"]) == 25
    assert [site.name for site in second.context["page_obj"]] == ["Site 25", "Site 26"]


# Adding and sharing sites


def test_adding_a_site_saves_its_settings_and_redirects_to_it(signed_in, owner):
    response = signed_in.post(
        reverse("sites:add"),
        {
            "url": "https://Docs.Example.com/start",
            "name": "Docs",
            "max_pages": "50",
            "concurrency": "2",
            "exclude_patterns": "/private/",
            "obey_robots": "on",
        },
    )

    site = Site.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("sites:detail", args=[site.pk])
    assert (site.owner, site.url, site.name) == (owner, "https://docs.example.com/start", "Docs")
    assert (site.max_pages, site.concurrency, site.max_depth) == (50, 2, None)
    assert site.obey_robots is True and site.check_external is False


@pytest.mark.parametrize("url", ["ftp://x", "not a url", "http://"])
def test_adding_a_site_with_an_invalid_url_shows_the_error_and_creates_nothing(signed_in, url):
    response = signed_in.post(reverse("sites:add"), {"url": url, "obey_robots": "on"})

    assert response.status_code == 200
    assert "http:// or https:// URL with a host name" in body(response)
    assert 'aria-invalid="true"' in body(response)
    assert not Site.objects.exists()


def test_adding_a_site_with_a_bad_pattern_shows_the_line_and_creates_nothing(signed_in):
    response = signed_in.post(
        reverse("sites:add"),
        {
            "url": "https://example.com/",
            "include_patterns": "^https://example.com/\n(unclosed",
        },
    )

    assert "line 2" in body(response)
    assert "(unclosed" in body(response)
    assert not Site.objects.exists()


def test_the_owner_shares_a_site_by_username(signed_in, owner):
    site = make_site(owner=owner)
    auditor = make_user("sam")

    response = signed_in.post(reverse("sites:share", args=[site.pk]), {"username": "sam"})

    assert response.status_code == 302
    assert list(site.shared_with.all()) == [auditor]


def test_sharing_with_an_unknown_username_shows_the_error(signed_in, owner):
    site = make_site(owner=owner)

    response = signed_in.post(reverse("sites:share", args=[site.pk]), {"username": "nobody"})

    assert response.status_code == 400
    assert "There is no user named" in body(response)
    assert not site.shared_with.exists()


def test_a_user_the_site_is_shared_with_cannot_share_it_further(client, owner):
    site = make_site(owner=owner)
    auditor = make_user("sam")
    site.shared_with.add(auditor)
    make_user("eve")
    client.force_login(auditor)

    response = client.post(reverse("sites:share", args=[site.pk]), {"username": "eve"})

    assert response.status_code == 403
    assert list(site.shared_with.all()) == [auditor]


# Starting and cancelling crawls


def test_start_crawl_creates_a_crawl_and_redirects_to_its_page(signed_in, owner):
    site = make_site(owner=owner, url="https://example.com/")

    response = signed_in.post(reverse("sites:crawl_start", args=[site.pk]))

    crawl = Crawl.objects.get(site=site)
    assert response.status_code == 302
    assert response["Location"] == reverse("sites:crawl", args=[crawl.pk])
    assert crawl.status == Crawl.Status.QUEUED
    assert crawl.requested_by == owner
    assert crawl.pages.get().url == "https://example.com/"


def test_a_user_the_site_is_shared_with_can_start_a_crawl(client, owner):
    site = make_site(owner=owner)
    auditor = make_user("sam")
    site.shared_with.add(auditor)
    client.force_login(auditor)

    client.post(reverse("sites:crawl_start", args=[site.pk]))

    assert Crawl.objects.get(site=site).requested_by == auditor


def test_start_crawl_by_get_changes_nothing(signed_in, owner):
    site = make_site(owner=owner)

    response = signed_in.get(reverse("sites:crawl_start", args=[site.pk]))

    assert response.status_code == 405
    assert not Crawl.objects.exists()


def test_start_crawl_without_the_csrf_token_is_refused(owner):
    site = make_site(owner=owner)
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)

    response = client.post(reverse("sites:crawl_start", args=[site.pk]))

    assert response.status_code == 403
    assert not Crawl.objects.exists()


def test_the_start_button_is_a_post_form_with_a_csrf_token(signed_in, owner):
    site = make_site(owner=owner)

    html = body(signed_in.get(reverse("sites:detail", args=[site.pk])))

    start = html.split(f'action="{reverse("sites:crawl_start", args=[site.pk])}"')[0].rsplit("<form", 1)[1]
    assert 'method="post"' in start
    assert "csrfmiddlewaretoken" in html


def test_cancel_stops_an_active_crawl(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner), status=Crawl.Status.RUNNING)

    response = signed_in.post(reverse("sites:crawl_cancel", args=[crawl.pk]))

    crawl.refresh_from_db()
    assert response.status_code == 302
    assert crawl.status == Crawl.Status.CANCELLED
    assert crawl.finished_at is not None


def test_cancel_by_get_leaves_the_crawl_running(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner), status=Crawl.Status.RUNNING)

    response = signed_in.get(reverse("sites:crawl_cancel", args=[crawl.pk]))

    crawl.refresh_from_db()
    assert response.status_code == 405
    assert crawl.status == Crawl.Status.RUNNING


def test_cancelling_an_ended_crawl_keeps_its_status(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner), status=Crawl.Status.FINISHED)

    signed_in.post(reverse("sites:crawl_cancel", args=[crawl.pk]))

    crawl.refresh_from_db()
    assert crawl.status == Crawl.Status.FINISHED


# Live progress


def _progress_card(html: str) -> str:
    return html[html.index('<section id="crawl-progress"') :].split("</section>")[0]


def test_the_progress_of_an_active_crawl_follows_the_page_s_live_poll_and_offers_cancel(signed_in, owner):
    crawl = make_crawl(
        make_site(owner=owner),
        status=Crawl.Status.RUNNING,
        pages_done=7,
        pages_queued=12,
        pages_failed=2,
        links_found=140,
        requests_made=9,
    )
    for _ in range(2):
        make_page(crawl, status_code=404)

    html = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))

    poller = re.search(r'<div id="crawl-live"[^>]*>', html).group(0)
    assert 'hx-trigger="every 3s"' in poller and "#crawl-progress,#issues," in poller
    card = _progress_card(html)
    assert "hx-get" not in card  # no poll of its own: it comes with the issues overview
    assert reverse("sites:crawl_cancel", args=[crawl.pk]) in card
    shown = dict(re.findall(r"<dt>([^<]+)</dt><dd[^>]*>([^<]+)", card))
    assert shown.pop("Elapsed").startswith("1 min 1")  # started 75 s ago
    assert shown == {
        "Site pages done": "7",
        "Queued": "12",
        "Broken": "2 ",
        "Links found": "140",
        "Requests": "9 ",
    }
    assert "(1.29 a page)" in card


def test_the_crawl_page_without_javascript_offers_a_reload_link_while_active(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner), status=Crawl.Status.QUEUED)

    html = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))

    assert "<noscript>" in html
    assert f'href="{reverse("sites:crawl", args=[crawl.pk])}">Reload' in html
    assert "django_htmx/htmx-2.min.js" in html


def test_the_page_of_an_ended_crawl_stops_polling_and_hides_cancel(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner), status=Crawl.Status.FINISHED, pages_done=30)

    html = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))

    assert "hx-trigger" not in html and "hx-get" not in html
    assert reverse("sites:crawl_cancel", args=[crawl.pk]) not in html
    assert ">30</dd>" in _progress_card(html)


def test_the_last_poll_after_the_crawl_ends_reloads_the_page_once(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner), status=Crawl.Status.FINISHED)
    still_running = make_crawl(crawl.site, status=Crawl.Status.RUNNING)

    ended = signed_in.get(reverse("sites:crawl", args=[crawl.pk]), headers={"HX-Request": "true"})
    running = signed_in.get(reverse("sites:crawl", args=[still_running.pk]), headers={"HX-Request": "true"})
    opened = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))

    assert ended["HX-Refresh"] == "true"
    assert "HX-Refresh" not in running and "HX-Refresh" not in opened
    assert "no-cache" in ended["Cache-Control"]


def test_the_json_progress_reflects_the_crawl_counters(signed_in, owner):
    crawl = make_crawl(
        make_site(owner=owner),
        status=Crawl.Status.RUNNING,
        pages_done=5,
        pages_queued=3,
        pages_failed=1,
        links_found=44,
        requests_made=6,
    )

    response = signed_in.get(reverse("sites:crawl_progress_json", args=[crawl.pk]))

    data = response.json()
    assert "no-cache" in response["Cache-Control"]
    assert (data["id"], data["status"]) == (crawl.pk, "running")
    assert (data["pages_done"], data["pages_queued"], data["pages_failed"]) == (5, 3, 1)
    assert (data["links_found"], data["requests"]) == (44, 6)


def test_progress_json_gives_the_sites_own_pages_beside_the_counters_that_hold_external_targets(
    signed_in, owner
):
    crawl = make_crawl(
        make_site(owner=owner),
        status=Crawl.Status.RUNNING,
        pages_done=5,
        pages_queued=3,
        external_admitted=3,
        external_done=2,
    )
    data = signed_in.get(reverse("sites:crawl_progress_json", args=[crawl.pk])).json()
    assert (data["pages_done"], data["pages_queued"]) == (5, 3)  # every URL, as pipelines read them
    assert (data["site_pages_done"], data["site_pages_queued"]) == (3, 2)  # less 2 external done, 1 left
