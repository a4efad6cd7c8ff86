"""Comparing two crawls of a site (checks.compare) and `manage.py crawl_diff`."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from checks.compare import CompareError, crawl_compare, crawl_compare_default
from sites.models import Crawl
from sites.services.crawls import crawl_run, crawl_start
from sites.services.sites import site_create
from tests.sites.recrawl_site import ValidatingSite
from tests.sites.sitebuilder import html

pytestmark = pytest.mark.django_db


def crawl_once(site, user):
    return crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False, probe=False))


@pytest.fixture
def two_crawls(httpserver, user):
    """A small site crawled, then changed (a page removed, one rewritten, one added, one redirected), crawled."""
    served = ValidatingSite(
        httpserver,
        {
            "/": html("Home", "/a", "/b", "/c", "/old"),
            "/a": html("A", "/", "/b", "/c"),
            "/b": html("B", "/a", "/c"),
            "/c": html("C", "/"),
            "/old": html("Old", "/"),
        },
    )
    site = site_create(owner=user, url=served.root)
    old = crawl_once(site, user)
    del served.pages["/c"]  # linked from /, /a and /b: a new broken target with 3 inlinks from 3 pages
    served.pages["/b"] = html("B rewritten", "/a", "/c", "/c", "/d")  # /c twice: 4 links from 3 pages
    served.pages["/d"] = html("D", "/")
    served.redirects["/old"] = "/d"
    new = crawl_once(site, user)
    return served, old, new


def test_a_removed_page_is_a_new_broken_target_with_its_exact_inlinks(two_crawls):
    served, old, new = two_crawls
    base = served.root.rstrip("/")
    comparison = crawl_compare(old=old, new=new)
    report = comparison.as_report()
    assert report["new_broken_targets"] == [
        {"url": f"{base}/c", "verdict": "dead", "inlinks": 4, "unique_inlinks": 3}
    ]
    assert report["fixed_targets"] == []
    assert report["pages_new"] == [f"{base}/d"]
    assert report["pages_gone"] == []
    # /b's body changed; /c's too (a 404 page now); / and /a answered 304 and kept theirs.
    assert sorted(comparison.content_changed) == [f"{base}/b", f"{base}/c", f"{base}/old"]
    assert [(c.url, c.old, c.new) for c in comparison.redirects_changed] == [(f"{base}/old", "", f"{base}/d")]
    old_health, new_health = report["health"]
    assert new_health < old_health == 100
    assert comparison.got_worse
    assert set(report) == {
        "old",
        "new",
        "new_broken_targets",
        "fixed_targets",
        "new_soft404",
        "pages_new",
        "pages_gone",
        "changed",
        "health",
    }


def test_a_target_that_answers_again_is_reported_fixed_and_nothing_got_worse(httpserver, user):
    served = ValidatingSite(httpserver, {"/": html("Home", "/a", "/later"), "/a": html("A", "/")})
    site = site_create(owner=user, url=served.root)
    old = crawl_once(site, user)
    served.pages["/later"] = html("Later", "/")
    new = crawl_once(site, user)
    comparison = crawl_compare(old=old, new=new)
    assert comparison.fixed_targets == [served.root.rstrip("/") + "/later"]
    assert comparison.new_broken_targets == [] and not comparison.got_worse
    assert crawl_compare_default(new=new) == old


def test_crawl_diff_writes_the_issue_json_to_a_file_and_to_standard_output(two_crawls, tmp_path, capsys):
    _, old, new = two_crawls
    destination = tmp_path / "diff.json"
    call_command("crawl_diff", str(old.pk), str(new.pk), "--json", str(destination))
    written = json.loads(destination.read_text())
    assert written["old"] == old.pk and written["new"] == new.pk and written["changed"] == 3
    call_command("crawl_diff", str(old.pk), str(new.pk), "--json", "-")
    assert json.loads(capsys.readouterr().out) == written


@pytest.mark.parametrize(
    "problem", ["unknown", "not a number", "other site", "unfinished", "reversed", "same"]
)
def test_crawl_diff_refuses_bad_input_with_exit_status_2(two_crawls, user, problem, tmp_path):
    _, old, new = two_crawls
    other = Crawl.objects.create(site=site_create(owner=user, url="http://127.0.0.1:9/"), status="finished")
    unfinished = Crawl.objects.create(site=old.site, status="running")
    ids = {
        "unknown": (old.pk, 999_999),
        "not a number": (old.pk, "x"),
        "other site": (old.pk, other.pk),
        "unfinished": (old.pk, unfinished.pk),
        "reversed": (new.pk, old.pk),
        "same": (old.pk, old.pk),
    }[problem]
    destination = tmp_path / "diff.json"
    with pytest.raises(CommandError) as raised:
        call_command("crawl_diff", *map(str, ids), "--json", str(destination), stdout=io.StringIO())
    assert raised.value.returncode == 2
    assert not destination.exists()


def test_crawl_diff_checks_the_json_path_before_comparing(two_crawls, tmp_path):
    _, old, new = two_crawls
    with pytest.raises(CommandError) as raised:
        call_command("crawl_diff", str(old.pk), "999999", "--json", str(tmp_path / "missing" / "x.json"))
    assert raised.value.returncode == 2 and "not a writable folder" in str(raised.value)


def test_comparing_crawls_of_two_sites_is_refused(two_crawls, user):
    _, old, _ = two_crawls
    other = Crawl.objects.create(site=site_create(owner=user, url="http://127.0.0.1:9/"), status="finished")
    with pytest.raises(CompareError, match="different sites"):
        crawl_compare(old=old, new=other)
