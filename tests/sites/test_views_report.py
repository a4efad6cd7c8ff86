"""A crawl's report on the dashboard: the page table and its filters, broken links, and the downloads."""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape

import pytest
from django.urls import reverse

from sites.models import Page
from sites.services.reports import CSV_LINK_COLUMNS, csv_page_columns
from sites.views import ROWS_PER_PAGE
from tests.sites.factories import body, make_crawl, make_link, make_page, make_site

pytestmark = pytest.mark.django_db


# Report tables


@pytest.fixture
def report_crawl(owner):
    """One crawl with a page of every kind, keyed by what it is."""
    crawl = make_crawl(make_site(owner=owner, url="https://example.com/"))
    pages = {
        "ok": make_page(crawl, "https://example.com/", title="Home"),
        "redirected": make_page(
            crawl,
            "https://example.com/old",
            depth=1,
            final_url="https://example.com/new",
            redirects=[
                {"url": "https://example.com/old", "status": 301, "location": "https://example.com/mid"},
                {"url": "https://example.com/mid", "status": 302, "location": "https://example.com/new"},
            ],
        ),
        "missing": make_page(crawl, "https://example.com/missing", 404, depth=1),
        "server_error": make_page(crawl, "https://example.com/crash", 503, depth=1),
        "timeout": make_page(
            crawl,
            "https://example.com/slow",
            None,
            depth=1,
            error_kind="timeout",
            fetch_error="No answer within 10 s.",
        ),
        "robots": make_page(crawl, "https://example.com/private/", None, depth=1, error_kind="robots"),
        "external_missing": make_page(crawl, "https://other.example/gone", 410, depth=1, is_internal=False),
        "pending": make_page(crawl, "https://example.com/later", None, depth=2, state=Page.State.QUEUED),
    }
    return crawl, pages


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            {},
            {
                "ok",
                "redirected",
                "missing",
                "server_error",
                "timeout",
                "robots",
                "external_missing",
                "pending",
            },
        ),
        ({"status": "2xx"}, {"ok", "redirected"}),
        ({"status": "3xx"}, {"redirected"}),
        ({"status": "4xx"}, {"missing", "external_missing"}),
        ({"status": "5xx"}, {"server_error"}),
        ({"status": "error"}, {"timeout"}),
        ({"status": "robots"}, {"robots"}),
        ({"status": "pending"}, {"pending"}),
        ({"scope": "external"}, {"external_missing"}),
        ({"scope": "internal", "status": "4xx"}, {"missing"}),
        ({"broken": "on"}, {"missing", "server_error", "timeout", "external_missing"}),
        ({"q": "EXAMPLE.com/MI"}, {"missing"}),
        ({"q": "/crash", "broken": "on"}, {"server_error"}),
    ],
)
def test_each_page_filter_returns_exactly_the_matching_pages(signed_in, report_crawl, query, expected):
    crawl, pages = report_crawl

    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]), query)

    shown = {page.pk for page in response.context["pages"]}
    assert shown == {pages[name].pk for name in expected}


def test_the_status_chips_count_each_class_and_the_broken_pages(signed_in, report_crawl):
    crawl, _ = report_crawl

    counts = signed_in.get(reverse("sites:crawl", args=[crawl.pk])).context["counts"]

    assert (counts["2xx"], counts["3xx"], counts["4xx"], counts["5xx"], counts["error"]) == (2, 1, 2, 1, 1)
    assert counts["broken"] == 4


def test_the_page_table_shows_a_redirect_chain_hop_by_hop(signed_in, report_crawl):
    crawl, _ = report_crawl

    html = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk]), {"status": "3xx"}))

    chain = html.split('<ol class="chain">')[1].split("</ol>")[0]
    assert chain.index(">301<") < chain.index("https://example.com/mid") < chain.index(">302<")
    assert chain.index(">302<") < chain.index("https://example.com/new")


def test_the_page_table_shows_the_fetch_error(signed_in, report_crawl):
    crawl, _ = report_crawl

    html = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk]), {"status": "error"}))

    assert "timeout" in html and "No answer within 10 s." in html


def test_the_page_table_is_paginated_fifty_rows_a_page_keeping_the_filters(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner))
    for number in range(120):
        make_page(crawl, f"https://example.com/p{number:03d}", 404 if number % 2 else 200, depth=number)

    first = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))
    third = signed_in.get(reverse("sites:crawl", args=[crawl.pk]), {"page": 3})
    filtered = signed_in.get(reverse("sites:crawl", args=[crawl.pk]), {"status": "4xx", "page": 2})

    assert len(first.context["pages"]) == 50
    assert [page.url for page in third.context["pages"]][0] == "https://example.com/p100"
    assert len(third.context["pages"]) == 20
    assert len(filtered.context["pages"]) == 10
    assert "status=4xx&amp;page=1" in body(filtered)


def test_the_broken_links_table_lists_links_to_broken_pages_with_source_and_text(signed_in, report_crawl):
    crawl, pages = report_crawl
    broken = make_link(pages["ok"], pages["missing"], text="Our old pricing page")
    make_link(pages["ok"], pages["redirected"], text="Fine after redirects")
    make_link(pages["ok"], pages["robots"], text="Not fetched, not broken")
    make_link(pages["ok"], None, target_url="https://unchecked.example/", text="Never checked")

    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))

    assert [link.pk for link in response.context["broken_links"]] == [broken.pk]
    table = body(response).split('id="broken-links"')[1]
    assert "Our old pricing page" in table and "https://example.com/missing" in table and ">404<" in table
    assert "Fine after redirects" not in table


def test_the_broken_links_table_is_paginated(signed_in, report_crawl):
    crawl, pages = report_crawl
    for number in range(55):
        make_link(pages["ok"], pages["missing"], text=f"link {number}")

    second = signed_in.get(reverse("sites:crawl", args=[crawl.pk]), {"lpage": 2})

    assert [link.text for link in second.context["broken_links"]] == [f"link {n}" for n in range(50, 55)]


# Downloads


def test_the_pages_csv_streams_the_report_columns_and_escapes_formulas(signed_in, report_crawl):
    crawl, pages = report_crawl
    Page.objects.filter(pk=pages["ok"].pk).update(title='=HYPERLINK("http://evil.example","x")')

    response = signed_in.get(reverse("sites:crawl_pages_csv", args=[crawl.pk]))

    assert response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == f'attachment; filename="webaudit-crawl-{crawl.pk}-pages.csv"'
    rows = list(csv.DictReader(io.StringIO(body(response))))
    assert tuple(rows[0].keys()) == csv_page_columns()
    assert len(rows) == len(pages)
    home = next(row for row in rows if row["url"] == "https://example.com/")
    assert home["title"] == '\'=HYPERLINK("http://evil.example","x")'
    redirected = next(row for row in rows if row["url"] == "https://example.com/old")
    assert redirected["redirects"] == "301 https://example.com/mid -> 302 https://example.com/new"


def _pages_csv_link(html: str) -> tuple[str, str]:
    """The href and text of the pages table's download link."""
    link = re.search(r'<a id="pages-csv" href="([^"]*)"[^>]*>([^<]*)</a>', html)
    assert link, "the pages table offers no download"
    return unescape(link.group(1)), link.group(2)


def test_the_pages_csv_of_a_filtered_table_holds_every_page_it_lists_and_no_other(signed_in, report_crawl):
    crawl, pages = report_crawl
    # More than one table page of matches (the external 410 does not match the search): the download takes
    # every one of them.
    for number in range(ROWS_PER_PAGE + 5):
        make_page(crawl, f"https://example.com/gone/{number}", 404, depth=2)
    query = {"status": "4xx", "q": "example.com/", "page": 2}

    table = signed_in.get(reverse("sites:crawl", args=[crawl.pk]), query)
    listed = table.context["pages"].paginator.count
    href, text = _pages_csv_link(table.content.decode())
    assert text == f"Download the {listed} matching pages (CSV)"
    assert "page=" not in href  # every page of the table, not the one shown

    response = signed_in.get(href)
    assert response["Content-Disposition"].endswith('pages-filtered.csv"')
    urls = [row["url"] for row in csv.DictReader(io.StringIO(body(response)))]
    assert len(urls) == listed == ROWS_PER_PAGE + 6
    assert set(urls) == {page.url for page in table.context["pages"].paginator.object_list}
    assert pages["missing"].url in urls and pages["ok"].url not in urls


def test_the_pages_csv_of_the_unfiltered_table_says_it_holds_all_pages(signed_in, report_crawl):
    crawl, pages = report_crawl
    href, text = _pages_csv_link(signed_in.get(reverse("sites:crawl", args=[crawl.pk])).content.decode())
    assert text == f"Download all {len(pages)} pages (CSV)"
    assert href == reverse("sites:crawl_pages_csv", args=[crawl.pk])


def test_the_links_csv_streams_the_link_columns(signed_in, report_crawl):
    crawl, pages = report_crawl
    make_link(pages["ok"], pages["missing"], text="+1 the old page")

    response = signed_in.get(reverse("sites:crawl_links_csv", args=[crawl.pk]))

    assert response.streaming
    assert response["Content-Disposition"].endswith('links.csv"')
    rows = list(csv.DictReader(io.StringIO(body(response))))
    assert tuple(rows[0].keys()) == CSV_LINK_COLUMNS
    assert (rows[0]["source"], rows[0]["target"], rows[0]["text"]) == (
        "https://example.com/",
        "https://example.com/missing",
        "'+1 the old page",
    )


def test_the_json_download_is_the_report_as_an_attachment(signed_in, report_crawl):
    crawl, pages = report_crawl
    make_link(pages["ok"], pages["missing"], text="old")

    response = signed_in.get(reverse("sites:crawl_report_json", args=[crawl.pk]))

    assert response["Content-Disposition"] == f'attachment; filename="webaudit-crawl-{crawl.pk}-report.json"'
    report = json.loads(body(response))
    assert set(report) == {"site", "crawl", "pages", "links"}
    assert report["site"]["id"] == crawl.site_id and report["crawl"]["id"] == crawl.pk
    assert {page["url"] for page in report["pages"]} == {page.url for page in pages.values()}
    assert report["links"][0]["status"] == 404 and report["links"][0]["text"] == "old"
