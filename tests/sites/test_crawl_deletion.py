"""Deleting crawls: from the dashboard (the owner only), from the admin (counted, not listed), and by retention."""

from __future__ import annotations

import json
import zlib

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from checks.models import AnalysisJob
from sites.models import (
    Crawl,
    DirectoryProbe,
    Link,
    Page,
    PageBody,
    PageExtract,
    RobotsFile,
    Sitemap,
    SitemapUrl,
)
from sites.services.crawls import crawl_cancel, crawl_finish
from sites.services.retention import CrawlActiveError, crawl_delete, crawls_prune, deletion_summary
from tests.sites.factories import body, make_crawl, make_link, make_page, make_site, make_user

pytestmark = pytest.mark.django_db


def crawl_with_rows(site=None, links: int = 3, **fields) -> Crawl:
    crawl = make_crawl(site, **fields)
    home = make_page(crawl, title="Home")
    PageBody.objects.create(page=home, data=zlib.compress(b"<title>Home</title>"))
    targets = [make_page(crawl, depth=1) for _ in range(links)]
    for target in targets:
        make_link(home, target)
    RobotsFile.objects.create(crawl=crawl, origin=crawl.site.url.rstrip("/"), text="")
    DirectoryProbe.objects.create(
        crawl=crawl, directory=crawl.site.url, directory_key="k", url=crawl.site.url + "xyz", status=404
    )
    PageExtract.objects.create(page=home, name="dom", data=b"keys")
    Sitemap.objects.create(crawl=crawl, url=crawl.site.url + "sitemap.xml", declared_in="/sitemap.xml")
    SitemapUrl.objects.create(crawl=crawl, url=home.url, url_key=home.url_key)
    AnalysisJob.objects.create(kind="decay", site=crawl.site, crawl=crawl)
    return crawl


def rows_of(crawl: Crawl) -> dict[str, int]:
    return deletion_summary(crawl_ids=[crawl.pk])


# The service


def test_deleting_a_crawl_removes_everything_it_found_and_nothing_else():
    doomed, kept = crawl_with_rows(), crawl_with_rows()
    assert rows_of(doomed) == {
        "crawls": 1,
        "pages": 4,
        "page bodies": 1,
        "page extracts": 1,
        "links": 3,
        "robots.txt files": 1,
        "directory probes": 1,
        "sitemaps": 1,
        "sitemap URLs": 1,
        "analysis jobs": 1,
    }

    crawl_delete(crawl=doomed)

    assert set(rows_of(doomed).values()) == {0}
    assert rows_of(kept)["links"] == 3 and rows_of(kept)["pages"] == 4


def test_a_running_crawl_is_not_deleted():
    crawl = crawl_with_rows(status=Crawl.Status.RUNNING)

    with pytest.raises(CrawlActiveError, match="cancel it"):
        crawl_delete(crawl=crawl)
    assert rows_of(crawl)["links"] == 3


def test_retention_keeps_the_newest_ended_crawls_of_a_site_and_never_an_active_one():
    site = make_site()
    oldest, older, newer = (crawl_with_rows(site) for _ in range(3))
    running = crawl_with_rows(site, status=Crawl.Status.RUNNING)
    elsewhere = crawl_with_rows()

    assert crawls_prune(site=site, keep=2) == [oldest.pk]
    assert set(Crawl.objects.values_list("pk", flat=True)) == {older.pk, newer.pk, running.pk, elsewhere.pk}
    assert not Link.objects.filter(crawl_id=oldest.pk).exists()
    assert crawls_prune(site=site, keep=0) == []  # 0 keeps them all


def test_a_crawl_that_ends_prunes_its_site_by_the_setting(settings):
    settings.WEBAUDIT_CRAWLS_KEPT = 1
    site = make_site()
    old = crawl_with_rows(site)
    finishing, cancelled = (
        crawl_with_rows(site, status=Crawl.Status.RUNNING),
        make_crawl(site, Crawl.Status.RUNNING),
    )

    crawl_finish(crawl=finishing)
    assert not Crawl.objects.filter(pk=old.pk).exists()
    assert Crawl.objects.filter(pk=finishing.pk).exists()

    crawl_cancel(crawl=cancelled)
    assert list(Crawl.objects.filter(site=site).values_list("pk", flat=True)) == [cancelled.pk]


def test_without_the_setting_every_crawl_is_kept():
    site = make_site()
    crawls = [crawl_with_rows(site) for _ in range(3)]
    crawl_finish(crawl=crawl_with_rows(site, status=Crawl.Status.RUNNING))
    assert Crawl.objects.filter(site=site).count() == len(crawls) + 1


# The dashboard


@pytest.fixture
def owner():
    return make_user("olivia")


def test_the_owner_confirms_then_deletes_a_crawl(client, owner):
    crawl = crawl_with_rows(make_site(owner=owner), links=5)
    client.force_login(owner)

    confirm = client.get(reverse("sites:crawl_delete", args=[crawl.pk]))
    assert (
        confirm.status_code == 200 and "5 links" in body(confirm) and "csrfmiddlewaretoken" in body(confirm)
    )
    assert Crawl.objects.filter(pk=crawl.pk).exists()  # GET changes nothing

    response = client.post(reverse("sites:crawl_delete", args=[crawl.pk]))
    assert response.status_code == 302 and response["Location"] == reverse(
        "sites:detail", args=[crawl.site_id]
    )
    assert not Crawl.objects.filter(pk=crawl.pk).exists() and not Page.objects.exists()


def test_the_crawl_page_offers_delete_to_the_owner_of_an_ended_crawl_only(client, owner):
    site = make_site(owner=owner)
    ended, running = make_crawl(site), make_crawl(site, Crawl.Status.RUNNING)
    auditor = make_user("sam")
    site.shared_with.add(auditor)

    client.force_login(owner)
    assert reverse("sites:crawl_delete", args=[ended.pk]) in body(
        client.get(reverse("sites:crawl", args=[ended.pk]))
    )
    assert "Delete crawl" not in body(client.get(reverse("sites:crawl", args=[running.pk])))
    client.force_login(auditor)
    assert "Delete crawl" not in body(client.get(reverse("sites:crawl", args=[ended.pk])))


def test_a_user_the_site_is_shared_with_cannot_delete_its_crawls(client, owner):
    site = make_site(owner=owner)
    crawl = make_crawl(site)
    auditor = make_user("sam")
    site.shared_with.add(auditor)
    client.force_login(auditor)

    assert client.post(reverse("sites:crawl_delete", args=[crawl.pk])).status_code == 403
    assert Crawl.objects.filter(pk=crawl.pk).exists()


def test_deleting_a_running_crawl_from_the_dashboard_asks_to_cancel_it_first(client, owner):
    crawl = make_crawl(make_site(owner=owner), Crawl.Status.RUNNING)
    client.force_login(owner)

    response = client.post(reverse("sites:crawl_delete", args=[crawl.pk]), follow=True)
    assert "cancel it before deleting it" in body(response)
    assert Crawl.objects.filter(pk=crawl.pk).exists()


def test_deleting_without_the_csrf_token_is_refused(owner):
    crawl = make_crawl(make_site(owner=owner))
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)

    assert client.post(reverse("sites:crawl_delete", args=[crawl.pk])).status_code == 403
    assert Crawl.objects.filter(pk=crawl.pk).exists()


# The admin


@pytest.mark.parametrize("model", ["crawl", "site"])
def test_the_admin_confirms_a_deletion_with_counts_in_a_few_queries(admin_client, model):
    crawl = crawl_with_rows(links=200)
    obj = crawl if model == "crawl" else crawl.site

    with CaptureQueriesContext(connection) as queries:
        confirm = admin_client.get(reverse(f"admin:sites_{model}_delete", args=[obj.pk]))
    assert confirm.status_code == 200
    assert "Links: 200" in body(confirm) and "Pages: 201" in body(confirm)
    assert "/page-" not in body(confirm)  # no row listed one by one, as Django's default confirmation does
    assert len(queries) < 30  # not one row per link, as Django's default listing loads

    admin_client.post(reverse(f"admin:sites_{model}_delete", args=[obj.pk]), {"post": "yes"})
    assert not Crawl.objects.filter(pk=crawl.pk).exists() and not Link.objects.exists()


def test_deleting_a_running_crawl_in_the_admin_cancels_it_first(admin_client, monkeypatch):
    crawl = crawl_with_rows(status=Crawl.Status.RUNNING)
    cancelled = []

    def cancel_and_note(*, crawl):
        cancelled.append(crawl.pk)
        return crawl_cancel(crawl=crawl)

    monkeypatch.setattr("sites.admin.crawl_cancel", cancel_and_note)
    admin_client.post(reverse("admin:sites_crawl_delete", args=[crawl.pk]), {"post": "yes"})

    assert cancelled == [crawl.pk]
    assert not Crawl.objects.filter(pk=crawl.pk).exists()


# The command


def test_prune_crawls_keeps_the_newest_per_site_and_reports_json(capsys):
    site, other = make_site(), make_site()
    old, new = crawl_with_rows(site), crawl_with_rows(site)
    only = crawl_with_rows(other)

    call_command("prune_crawls", "--keep", "1", "--dry-run", "--json", "-")
    planned = json.loads(capsys.readouterr().out)
    assert planned["dry_run"] and planned["sites"] == [{"id": site.pk, "url": site.url, "crawls": [old.pk]}]
    assert planned["deleted"]["links"] == 3 and Crawl.objects.filter(pk=old.pk).exists()

    call_command("prune_crawls", "--keep", "1", "--site", site.url)
    assert set(Crawl.objects.values_list("pk", flat=True)) == {new.pk, only.pk}
    assert "Deleted 1 crawls" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--keep", "0"], "must be between 1 and 1,000,000"),
        (["--keep", "many"], "'many' is not a whole number"),
        (["--keep", "2", "--site", "https://nowhere.example/"], "No site"),
        (["--keep", "2", "--site", "999999"], "No site"),
        (["--keep", "2", "--site", "99999999999999999999999"], "No site"),
    ],
)
def test_prune_crawls_rejects_bad_arguments_with_a_clear_error_and_exit_status_2(arguments, message):
    with pytest.raises(CommandError, match=message) as raised:
        call_command("prune_crawls", *arguments)
    assert raised.value.returncode == 2


def test_prune_crawls_deletes_nothing_when_its_report_cannot_be_written(tmp_path):
    site = make_site()
    old, _ = crawl_with_rows(site), crawl_with_rows(site)

    with pytest.raises(CommandError, match="nothing was deleted"):
        call_command("prune_crawls", "--keep", "1", "--json", str(tmp_path / "missing-dir" / "out.json"))
    assert Crawl.objects.filter(pk=old.pk).exists()


def test_prune_crawls_writes_its_report_to_a_file(tmp_path):
    site = make_site()
    old, _ = crawl_with_rows(site), crawl_with_rows(site)
    report = tmp_path / "pruned.json"

    call_command("prune_crawls", "--keep", "1", "--json", str(report))
    assert json.loads(report.read_text())["sites"][0]["crawls"] == [old.pk]
    assert not Crawl.objects.filter(pk=old.pk).exists()


def test_deleting_a_crawl_deletes_its_links_by_crawl_and_source_without_nulling_targets_one_by_one():
    doomed, kept = crawl_with_rows(links=5), crawl_with_rows(links=2)

    with CaptureQueriesContext(connection) as queries:
        crawl_delete(crawl=doomed)

    on_links = [query["sql"] for query in queries if '"sites_link"' in query["sql"]]
    assert on_links and all(sql.startswith("DELETE") for sql in on_links)
    assert not Link.objects.filter(crawl=doomed).exists()
    assert Link.objects.filter(crawl=kept).count() == 2
    assert all(link.target.crawl_id == kept.pk for link in Link.objects.filter(crawl=kept))


def test_links_have_no_index_or_constraint_on_their_target_and_pages_none_on_the_crawl_alone():
    with connection.cursor() as cursor:
        link = connection.introspection.get_constraints(cursor, Link._meta.db_table)
        page = connection.introspection.get_constraints(cursor, Page._meta.db_table)

    assert ["crawl_id", "id"] in [c["columns"] for c in link.values() if c["index"]]
    assert not [name for name, c in link.items() if "target_id" in c["columns"]]
    assert not [name for name, c in page.items() if c["columns"] == ["crawl_id"] and c["index"]]
