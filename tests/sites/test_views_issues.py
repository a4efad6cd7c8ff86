"""The crawl page leads with the issues overview and groups broken pages with who links to them; every section
follows a running crawl; a link the address guard refused is shown as not checked."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from sites.models import Crawl
from tests.sites.factories import make_crawl, make_link, make_page, make_site

pytestmark = pytest.mark.django_db

SITE = "https://example.com"


@pytest.fixture
def crawl(owner):
    crawl = make_crawl(make_site(owner=owner, url=SITE + "/"))
    sources = [make_page(crawl, f"{SITE}/doc{n}") for n in range(3)]
    changelog = make_page(crawl, SITE + "/whatsnew/changelog.html", 404, depth=1)
    for source in sources:
        for _ in range(7):
            make_link(source, changelog)
    return crawl


def _page(client, crawl, query: str = "") -> str:
    response = client.get(reverse("sites:crawl", args=[crawl.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_issues_overview_comes_before_every_table(signed_in, crawl):
    html = _page(signed_in, crawl)
    assert html.index('id="issues"') < html.index('id="broken-targets"') < html.index('id="pages"')
    assert "Broken internal pages" in html
    assert re.search(r"Health</span>\s*<strong[^>]*>\d+</strong>", html)
    assert "How health is computed" in html


def test_a_broken_page_linked_21_times_from_3_pages_is_one_row(signed_in, crawl):
    html = _page(signed_in, crawl)
    table = html[html.index('id="broken-targets-table"') : html.index('id="pages"')]
    assert table.count(SITE + "/whatsnew/changelog.html") == 1
    assert '<td class="num">21</td>' in table and '<td class="num">3</td>' in table
    assert "<summary>3 pages</summary>" in table
    assert all(f"{SITE}/doc{n}" in table for n in range(3))


def test_each_issue_links_to_a_list_that_shows_it(signed_in, crawl):
    make_page(crawl, SITE + "/slow", response_ms=5000)
    html = _page(signed_in, crawl)
    assert 'href="?issue=slow#pages"' in html
    listed = _page(signed_in, crawl, "?issue=slow")
    table = listed[listed.index('id="pages-table"') :]
    assert SITE + "/slow" in table and SITE + "/doc0" not in table.split('id="soft404"')[0]


def test_an_unknown_issue_or_sort_is_ignored_not_an_error(signed_in, crawl):
    assert _page(signed_in, crawl, "?issue=abc&tsort=evil&targets=nope&tpage=abc")


def test_broken_targets_sort_by_inlinks_both_ways(signed_in, crawl):
    source = crawl.pages.get(url=SITE + "/doc0")
    lonely = make_page(crawl, SITE + "/gone", 410)
    make_link(source, lonely)
    descending = _page(signed_in, crawl, "?tsort=-inlinks")
    ascending = _page(signed_in, crawl, "?tsort=inlinks")
    assert descending.index("/whatsnew/changelog.html") < descending.index(SITE + "/gone<")
    assert ascending.index(SITE + "/gone<") < ascending.index("/whatsnew/changelog.html")


def test_every_section_of_a_running_crawl_refreshes_itself(signed_in, owner):
    running = make_crawl(make_site(owner=owner), status=Crawl.Status.RUNNING)
    html = _page(signed_in, running, "?page=1")
    poller = re.search(r'<div id="crawl-live"[^>]*>', html).group(0)
    assert 'hx-trigger="every 3s"' in poller and "?page=1" in poller
    regions = re.search(r'hx-select-oob="([^"]+)"', poller).group(1).split(",")
    for region in regions:
        assert f'id="{region[1:]}"' in html, region
    assert {
        "#issues",
        "#pages-table",
        "#soft404-table",
        "#broken-targets-table",
        "#broken-links-table",
    } <= set(regions)


def test_a_finished_crawl_does_not_poll(signed_in, crawl):
    assert 'id="crawl-live"' not in _page(signed_in, crawl)


def test_a_link_the_address_guard_refused_is_not_checked_rather_than_dead(signed_in, crawl):
    source = crawl.pages.get(url=SITE + "/doc0")
    refused = make_page(crawl, "http://10.1.2.3/", None, is_internal=False, error_kind="blocked_address")
    make_link(source, refused)
    html = _page(signed_in, crawl, "?scope=external")
    row = html[html.index('id="pages-table"') :]
    assert "not checked" in row and "address not allowed" in row
    links = html[html.index('id="broken-links-table"') :]
    assert "10.1.2.3" not in links
    targets = html[html.index('id="broken-targets-table"') : html.index('id="pages"')]
    assert "10.1.2.3" not in targets


def test_a_target_the_address_guard_refused_is_counted_as_no_verdict_and_not_marked_broken(signed_in, crawl):
    source = crawl.pages.get(url=SITE + "/doc0")
    make_link(
        source, make_page(crawl, "http://10.1.2.3/", None, is_internal=False, error_kind="blocked_address")
    )
    before = _page(signed_in, crawl)
    chip = re.compile(r'href="\?(verdict=dead|status=error)#pages"[^>]*>[^<]*<strong>(\d+)</strong>')
    counts = dict(chip.findall(before))
    assert set(counts) == {"verdict=dead", "status=error"}
    dead = _page(signed_in, crawl, "?verdict=dead")
    assert "10.1.2.3" not in dead[dead.index('id="pages-table"') :]
    errors = _page(signed_in, crawl, "?status=error")
    assert "10.1.2.3" not in errors[errors.index('id="pages-table"') :]
    listed = _page(signed_in, crawl, "?issue=not_checked")
    row = re.search(
        r"<tr[^>]*>\s*<td class=\"url\"><a href=\"http://10\.1\.2\.3/\".*?</tr>", listed, re.S
    ).group(0)
    assert not row.startswith('<tr class="row-broken"') and ">not asked</span>" in row
    make_page(crawl, "http://10.1.2.4/", None, is_internal=False, error_kind="blocked_address")
    assert dict(chip.findall(_page(signed_in, crawl))) == counts  # a second refused target changes no count


def test_the_reports_call_a_link_to_a_refused_address_not_checked_rather_than_broken(signed_in, crawl):
    import json

    source = crawl.pages.get(url=SITE + "/doc0")
    refused = make_page(
        crawl,
        "http://10.1.2.3/",
        None,
        is_internal=False,
        error_kind="blocked_address",
        fetch_error="Address 10.1.2.3 is private; not fetched",
    )
    make_link(source, refused)

    def links(choice: str) -> list[dict]:
        response = signed_in.get(reverse("sites:crawl_report_json", args=[crawl.pk]), {"links": choice})
        return json.loads(b"".join(response.streaming_content))["links"]

    link = next(link for link in links("all") if link["target"] == "http://10.1.2.3/")
    assert (link["checked"], link["broken"]) == (False, False)
    assert "is private" in link["error"]
    broken = {link["target"] for link in links("broken")}
    assert broken == {SITE + "/whatsnew/changelog.html"}
