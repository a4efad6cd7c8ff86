"""The Django admin: every changelist loads with data, stays lean on big tables, its crawl actions work."""

from __future__ import annotations

import zlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from sites.admin import PageAdmin
from sites.models import Crawl, Page, PageBody, Site, Verdict
from tests.sites.factories import make_crawl, make_link, make_page, make_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def crawl_with_rows():
    crawl = make_crawl(make_site(url="https://example.com/", name="Example"), pages_done=3)
    home = make_page(crawl, "https://example.com/", title="Home")
    missing = make_page(crawl, "https://example.com/missing", 404, depth=1)
    make_page(crawl, "https://example.com/slow", None, depth=1, error_kind="timeout")
    PageBody.objects.create(page=home, data=zlib.compress(b"<html><title>Home</title></html>"))
    make_link(home, missing, text="Missing page")
    return crawl


@pytest.mark.parametrize("model", ["site", "crawl", "page", "link"])
def test_every_changelist_loads_with_data(admin_client, crawl_with_rows, model):
    response = admin_client.get(reverse(f"admin:sites_{model}_changelist"))

    assert response.status_code == 200
    assert response.context["cl"].result_count >= 1


@pytest.mark.parametrize("model", ["site", "crawl", "page", "link"])
def test_every_change_page_loads(admin_client, crawl_with_rows, model):
    obj = {
        "site": crawl_with_rows.site,
        "crawl": crawl_with_rows,
        "page": crawl_with_rows.pages.first(),
        "link": crawl_with_rows.links.first(),
    }[model]

    response = admin_client.get(reverse(f"admin:sites_{model}_change", args=[obj.pk]))

    assert response.status_code == 200


def test_the_page_changelist_filters_and_searches(admin_client, crawl_with_rows):
    url = reverse("admin:sites_page_changelist")

    by_status = admin_client.get(url, {"status_code": "404"}).context["cl"].result_list
    by_error = admin_client.get(url, {"error_kind": "timeout"}).context["cl"].result_list
    by_search = admin_client.get(url, {"q": "missing"}).context["cl"].result_list
    by_crawl = admin_client.get(url, {"crawl__id__exact": str(crawl_with_rows.pk)}).context["cl"].result_list

    assert [page.url for page in by_status] == ["https://example.com/missing"]
    assert [page.url for page in by_error] == ["https://example.com/slow"]
    assert [page.url for page in by_search] == ["https://example.com/missing"]
    assert len(by_crawl) == 3


@pytest.mark.parametrize("model", ["page", "link"])
def test_page_and_link_lists_never_load_bodies_or_count_every_row(admin_client, crawl_with_rows, model):
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(reverse(f"admin:sites_{model}_changelist"))

    sql = " ".join(query["sql"].lower() for query in queries)
    assert response.status_code == 200
    assert "sites_pagebody" not in sql
    assert response.context["cl"].show_full_result_count is False


def test_page_list_queries_do_not_grow_with_the_number_of_rows(admin_client, crawl_with_rows):
    url = reverse("admin:sites_page_changelist")
    with CaptureQueriesContext(connection) as few:
        admin_client.get(url)
    for number in range(30):
        make_page(crawl_with_rows, f"https://example.com/more-{number}")
    with CaptureQueriesContext(connection) as many:
        admin_client.get(url)

    assert len(many) == len(few)


@pytest.fixture
def judged_pages(crawl_with_rows):
    """Pages of every verdict in the crawl, keyed by verdict."""
    crawl = crawl_with_rows
    return {
        "ok": make_page(crawl, "https://example.com/fine", verdict=Verdict.OK, verdict_reason="alive"),
        "dead": make_page(
            crawl, "https://example.com/gone", 404, verdict=Verdict.DEAD, verdict_reason="HTTP 404"
        ),
        "soft404": make_page(
            crawl,
            "https://example.com/docs/old",
            verdict=Verdict.SOFT404,
            verdict_reason="probe: same final URL and number of redirects as the probe",
            soft404_probability=0.12,
            probe={
                "url": "https://example.com/docs/kxqwvbnmzlrtpsdfghjcyaeuo",
                "final_url": "https://example.com/",
                "redirects": 1,
                "status": 200,
                "resemblance": 0.875,
                "verdict": "soft404",
                "reason": "same final URL and number of redirects as the probe",
            },
        ),
        "failing": make_page(
            crawl,
            "https://example.com/busy",
            503,
            verdict=Verdict.FAILING,
            verdict_reason="HTTP 503",
            strikes=2,
        ),
    }


@pytest.mark.parametrize("verdict", ["ok", "dead", "soft404", "failing"])
def test_the_page_changelist_filters_by_verdict(admin_client, judged_pages, verdict):
    response = admin_client.get(reverse("admin:sites_page_changelist"), {"verdict__exact": verdict})

    shown = response.context["cl"].result_list
    judged = {page.pk for page in judged_pages.values()}
    assert [page.pk for page in shown if page.pk in judged] == [judged_pages[verdict].pk]
    assert {page.verdict for page in shown} == {verdict}
    assert "verdict" in response.context["cl"].list_display


def test_the_page_change_page_shows_the_probe_evidence(admin_client, judged_pages):
    soft = admin_client.get(reverse("admin:sites_page_change", args=[judged_pages["soft404"].pk]))
    dead = admin_client.get(reverse("admin:sites_page_change", args=[judged_pages["dead"].pk]))

    evidence = soft.content.decode().split("Probe evidence")[1].split("</table>")[0]
    assert (
        "<th scope='row'>Probe URL</th><td>https://example.com/docs/kxqwvbnmzlrtpsdfghjcyaeuo</td>"
        in evidence
    )
    assert "<th scope='row'>Probe final URL</th><td>https://example.com/</td>" in evidence
    assert "<th scope='row'>Redirects</th><td>1</td>" in evidence
    assert "<th scope='row'>Resemblance</th><td>0.875</td>" in evidence
    assert "Not probed" in dead.content.decode()


def test_the_page_change_page_shows_every_field_but_the_claim_token():
    shown = {name for _, options in PageAdmin.fieldsets for name in options["fields"]}
    fields = {field.name for field in Page._meta.concrete_fields if field.editable} - {"id", "claim_token"}

    assert fields - shown == {"probe"}  # shown as "probe_evidence"
    assert "in_sitemap" in shown
    assert "probe_evidence" in shown


def test_the_link_changelist_shows_and_filters_by_the_targets_verdict(admin_client, judged_pages):
    home = judged_pages["ok"]
    to_soft = make_link(home, judged_pages["soft404"], text="Old docs")
    make_link(home, judged_pages["dead"], text="Gone")
    url = reverse("admin:sites_link_changelist")

    everything = admin_client.get(url)
    soft_only = admin_client.get(url, {"target_verdict": "soft404"})

    assert [link.pk for link in soft_only.context["cl"].result_list] == [to_soft.pk]
    html = everything.content.decode()
    assert '<td class="field-target_verdict">Soft-404</td>' in html
    assert '<td class="field-target_verdict">Dead</td>' in html


def test_link_list_queries_do_not_grow_with_the_number_of_rows(admin_client, judged_pages):
    url = reverse("admin:sites_link_changelist")
    with CaptureQueriesContext(connection) as few:
        admin_client.get(url)
    for number in range(30):
        target = make_page(
            judged_pages["ok"].crawl, f"https://example.com/t{number}", verdict=Verdict.SOFT404
        )
        make_link(judged_pages["ok"], target)
    with CaptureQueriesContext(connection) as many:
        admin_client.get(url)

    assert len(many) == len(few)


def test_the_site_action_starts_a_crawl(admin_client, admin_user):
    site = make_site(url="https://example.com/")

    response = admin_client.post(
        reverse("admin:sites_site_changelist"),
        {"action": "start_crawl", "_selected_action": [site.pk]},
        follow=True,
    )

    crawl = Crawl.objects.get(site=site)
    assert crawl.status == Crawl.Status.QUEUED and crawl.requested_by == admin_user
    assert f"Started 1 crawl: #{crawl.pk}." in response.content.decode()


def test_the_crawl_action_cancels_active_crawls_and_leaves_ended_ones(admin_client):
    running = make_crawl(status=Crawl.Status.RUNNING)
    finished = make_crawl(status=Crawl.Status.FINISHED)

    response = admin_client.post(
        reverse("admin:sites_crawl_changelist"),
        {"action": "cancel", "_selected_action": [running.pk, finished.pk]},
        follow=True,
    )

    running.refresh_from_db()
    finished.refresh_from_db()
    assert running.status == Crawl.Status.CANCELLED
    assert finished.status == Crawl.Status.FINISHED
    assert "Cancelled 1 crawl." in response.content.decode()
    assert "1 crawl had already ended." in response.content.decode()


def test_the_admin_names_decay_fixes_in_plain_english(admin_client):
    index = admin_client.get(reverse("admin:index")).content.decode()
    assert "Decay fixes" in index and "Decay fixs" not in index


def test_the_crawl_action_starts_one_new_crawl_per_site(admin_client):
    site = make_site(url="https://example.com/")
    first, second = make_crawl(site), make_crawl(site, status=Crawl.Status.FAILED)

    admin_client.post(
        reverse("admin:sites_crawl_changelist"),
        {"action": "start_again", "_selected_action": [first.pk, second.pk]},
    )

    new = Crawl.objects.exclude(pk__in=[first.pk, second.pk])
    assert [(crawl.site_id, crawl.status) for crawl in new] == [(site.pk, Crawl.Status.QUEUED)]


def test_crawl_counters_are_read_only_in_the_admin(admin_client):
    crawl = make_crawl(pages_done=5)

    form = admin_client.get(reverse("admin:sites_crawl_change", args=[crawl.pk])).context["adminform"].form

    assert not {"pages_done", "pages_failed", "pages_queued", "requests_made", "status"} & set(form.fields)


def test_the_admin_site_form_rejects_an_invalid_url(admin_client, admin_user):
    response = admin_client.post(
        reverse("admin:sites_site_add"),
        {
            "url": "ftp://x",
            "name": "",
            "owner": admin_user.pk,
            "obey_robots": "on",
        },
    )

    assert response.status_code == 200
    assert "http:// or https:// URL with a host name" in response.content.decode()
    assert not Site.objects.exists()
