"""The Django admin: every changelist loads with data, stays lean on big tables, its crawl actions work."""

from __future__ import annotations

import zlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from sites.models import Crawl, PageBody, Site
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


def test_the_site_action_starts_a_crawl(admin_client, admin_user):
    site = make_site(url="https://example.com/")

    response = admin_client.post(
        reverse("admin:sites_site_changelist"),
        {"action": "start_crawl", "_selected_action": [site.pk]},
        follow=True,
    )

    crawl = Crawl.objects.get(site=site)
    assert crawl.status == Crawl.Status.QUEUED and crawl.requested_by == admin_user
    assert f"Started 1 crawl(s): #{crawl.pk}." in response.content.decode()


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
    assert "1 crawl(s) had already ended." in response.content.decode()


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
