"""A crawl's issues overview: broken targets grouped with their inlinks, the health score, each issue kind counted,
and `manage.py crawl_issues`."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from sites.models import BROKEN_CHECKED, Page, Sitemap
from sites.services.issues import (
    SLOW_PAGE_MS,
    crawl_broken_targets,
    crawl_health,
    crawl_issues,
    crawl_issues_report,
    issue_pages,
    issues_broken_count,
)
from sites.services.reports import crawl_summary
from tests.sites.factories import make_crawl, make_link, make_page, make_site

pytestmark = pytest.mark.django_db

SITE = "https://example.com"


@pytest.fixture
def crawl():
    """Ten pages; a missing page linked 30 times from 3 pages, an external dead target linked once, a soft-404
    linked once, a slow page, a 3-hop redirect linked once, a noindex page linked once."""
    crawl = make_crawl(make_site(url=SITE + "/"))
    home = make_page(crawl, SITE + "/")
    sources = [make_page(crawl, f"{SITE}/doc{n}", depth=1) for n in range(3)]
    missing = make_page(crawl, SITE + "/changelog", 404, depth=2)
    for source in sources:
        for _ in range(10):
            make_link(source, missing)
    gone = make_page(crawl, "https://other.example/gone", 410, depth=2, is_internal=False)
    make_link(home, gone)
    soft = make_page(crawl, SITE + "/empty", verdict="soft404", verdict_reason="probe: same as a random URL")
    make_link(home, soft)
    make_page(crawl, SITE + "/slow", response_ms=SLOW_PAGE_MS + 1)
    hops = [{"url": f"{SITE}/r{n}", "status": 301, "location": f"{SITE}/r{n + 1}"} for n in range(3)]
    chained = make_page(crawl, SITE + "/r0", redirects=hops, final_url=SITE + "/r3")
    make_link(home, chained)
    hidden = make_page(crawl, SITE + "/hidden", noindex=True)
    make_link(home, hidden)
    make_link(home, sources[0])
    return crawl


def test_a_broken_target_is_one_row_with_its_inlinks_and_the_pages_they_are_on(crawl):
    rows = crawl_broken_targets(crawl=crawl)
    assert [(row.url, row.inlinks, row.unique_inlinks) for row in rows] == [
        (SITE + "/changelog", 30, 3),
        (SITE + "/empty", 1, 1),  # ties in URL order
        ("https://other.example/gone", 1, 1),
    ]
    assert rows[0].sources == [f"{SITE}/doc{n}" for n in range(3)]
    assert rows[0].verdict == "dead" and rows[0].reason == "HTTP 404"


def test_broken_targets_cap_their_sources_but_never_their_counts(crawl):
    top = crawl_broken_targets(crawl=crawl, sources_cap=2)[0]
    assert len(top.sources) == 2 and top.unique_inlinks == 3 and top.inlinks == 30


def test_broken_targets_are_counted_by_queries_not_one_per_target(crawl):
    with CaptureQueriesContext(connection) as queries:
        crawl_broken_targets(crawl=crawl)
    assert len(queries) <= 3


def test_broken_targets_narrow_to_a_scope_and_sort_by_inlinks(crawl):
    assert [row.url for row in crawl_broken_targets(crawl=crawl, scope="soft404")] == [SITE + "/empty"]
    assert [row.url for row in crawl_broken_targets(crawl=crawl, scope="external")] == [
        "https://other.example/gone"
    ]
    assert crawl_broken_targets(crawl=crawl, order="inlinks")[-1].url == SITE + "/changelog"
    with pytest.raises(ValueError):
        crawl_broken_targets(crawl=crawl, order="sources; drop table")


def test_a_target_the_address_guard_refused_is_not_checked_rather_than_broken(crawl):
    home = crawl.pages.get(url=SITE + "/")
    refused = make_page(crawl, "http://10.0.0.1/admin", None, is_internal=False, error_kind="blocked_address")
    make_link(home, refused)
    assert refused.url not in [row.url for row in crawl_broken_targets(crawl=crawl)]
    counts = {issue.kind: issue.count for issue in crawl_issues(crawl=crawl)}
    assert counts["not_checked"] == 1 and counts["broken_external"] == 1
    summary = crawl_summary(crawl)  # the JSON report's tally of stored verdicts says which were never asked
    assert summary["not_checked"] == 1 and summary["verdicts"]["dead"] >= 1


def test_the_overview_counts_each_kind_most_severe_first(crawl):
    issues = crawl_issues(crawl=crawl)
    counts = {issue.kind: issue.count for issue in issues}
    assert counts == {
        "broken_internal": 1,
        "soft404": 1,
        "broken_external": 1,
        "redirect_chains": 1,
        "noindex_linked": 1,
        "slow": 1,
        "links_to_redirects": 1,
    }
    severities = [issue.severity for issue in issues]
    assert severities == sorted(severities, key=["error", "warning", "notice"].index)


def test_each_kind_links_to_the_pages_it_counts(crawl):
    assert [page.url for page in issue_pages(crawl=crawl, kind="redirect_chains")] == [SITE + "/r0"]
    assert [page.url for page in issue_pages(crawl=crawl, kind="noindex_linked")] == [SITE + "/hidden"]
    assert [page.url for page in issue_pages(crawl=crawl, kind="links_to_redirects")] == [SITE + "/r0"]
    with pytest.raises(ValueError):
        issue_pages(crawl=crawl, kind="nonsense")


def test_health_takes_a_full_point_per_page_with_an_error_and_half_per_page_with_a_warning(crawl):
    health = crawl_health(crawl=crawl)
    # 9 internal pages: errors on the missing page, the soft-404, the 3 pages linking to the missing page and
    # home (links to the soft-404); warnings on the slow page and the chain.
    assert (health.pages, health.with_errors, health.with_warnings) == (9, 6, 2)
    assert health.score == round(100 * (1 - (6 + 0.5 * 2) / 9))


def test_a_link_to_a_dead_page_of_another_site_is_a_warning_not_an_error():
    crawl = make_crawl(make_site(url=SITE + "/"))
    home = make_page(crawl, SITE + "/")
    make_link(home, make_page(crawl, "https://other.example/gone", 404, is_internal=False))
    health = crawl_health(crawl=crawl)
    assert (health.with_errors, health.with_warnings, health.score) == (0, 1, 50)


def test_health_of_a_crawl_without_pages_is_unknown():
    assert crawl_health(crawl=make_crawl()).score is None


def test_health_of_a_crawl_whose_start_url_the_address_guard_refused_is_unknown():
    crawl = make_crawl(make_site(url="http://10.0.0.1/"))
    make_page(crawl, "http://10.0.0.1/", None, error_kind="blocked_address")
    assert crawl_health(crawl=crawl).score is None


def test_sitemap_kinds_appear_only_once_a_sitemap_was_read(crawl):
    assert "orphans" not in {issue.kind for issue in crawl_issues(crawl=crawl, with_empty=True)}
    Sitemap.objects.create(crawl=crawl, url=SITE + "/sitemap.xml", declared_in="well-known", urls_listed=2)
    make_page(crawl, SITE + "/lonely", in_sitemap=True)
    crawl.pages.filter(url=SITE + "/changelog").update(in_sitemap=True)
    counts = {issue.kind: issue.count for issue in crawl_issues(crawl=crawl)}
    assert counts["orphans"] == 1 and counts["sitemap_problems"] == 1
    sitemap = crawl_issues_report(crawl=crawl)["sitemap"]
    assert sitemap["urls"] == 2 and sitemap["orphans"] == [SITE + "/lonely"]
    assert sitemap["dead"] == [SITE + "/changelog"]


def test_the_command_writes_the_issue_shape(crawl, tmp_path):
    destination = tmp_path / "issues.json"
    call_command("crawl_issues", str(crawl.pk), "--json", str(destination))
    written = json.loads(destination.read_text())
    assert set(written) == {"crawl", "health", "issues", "broken_targets", "sitemap"}
    assert written["crawl"] == crawl.pk and 0 <= written["health"] <= 100
    assert set(written["issues"][0]) == {"kind", "severity", "count", "title"}
    assert written["broken_targets"][0] == {
        "url": SITE + "/changelog",
        "verdict": "dead",
        "reason": "HTTP 404",
        "inlinks": 30,
        "unique_inlinks": 3,
        "sources": [f"{SITE}/doc{n}" for n in range(3)],
    }
    assert set(written["sitemap"]) == {"urls", "dead", "soft404", "redirected", "orphans", "not_in_sitemap"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["abc"], "not a crawl number"),
        (["999999"], "no crawl"),
        (["99999999999999999999999"], "no crawl"),  # past the database's integer range: no overflow
        (["1", "--json", "/nonexistent/x.json"], "cannot write"),
    ],
)
def test_the_command_refuses_bad_input_with_exit_status_2(arguments, message):
    with pytest.raises(CommandError, match=message) as raised:
        call_command("crawl_issues", *arguments)
    assert raised.value.returncode == 2


def test_only_the_sites_own_robots_txt_makes_a_linked_page_blocked(crawl):
    home = crawl.pages.get(url=SITE + "/")
    make_link(home, make_page(crawl, SITE + "/private/", None, error_kind="robots"))
    make_link(home, make_page(crawl, "https://other.example/x", None, is_internal=False, error_kind="robots"))
    counts = {issue.kind: issue.count for issue in crawl_issues(crawl=crawl)}
    assert counts["robots_linked"] == 1


def test_the_broken_kinds_list_every_broken_page_once_so_their_sum_is_the_broken_count():
    crawl = make_crawl(make_site(url=SITE + "/"))
    for internal, host in ((True, SITE), (False, "https://other.example")):
        for path, status, fields in (
            ("/ok", 200, {}),
            ("/gone", 404, {}),
            ("/crash", 503, {}),
            ("/timeout", None, {"error_kind": "timeout"}),
            ("/empty", 200, {"verdict": "soft404"}),
            ("/private", None, {"error_kind": "robots"}),
        ):
            make_page(crawl, host + path, status, is_internal=internal, **fields)
    make_page(crawl, "http://10.0.0.1/admin", None, is_internal=False, error_kind="blocked_address")

    broken = Page.objects.filter(crawl=crawl).filter(BROKEN_CHECKED).count()

    assert broken == 8
    assert issues_broken_count(crawl_issues(crawl=crawl)) == broken
