"""A crawl reads the sitemaps a site declares: robots.txt's Sitemap lines, /sitemap.xml, indexes and gzip; it
reports the listed URLs that are dead or redirected, crawls the orphans, and refuses hostile XML."""

from __future__ import annotations

import gzip
import re

import pytest
from django.urls import reverse

from sites.crawler.sitemaps import NotASitemap, SitemapError, parse_sitemap, sitemaps_in_robots
from sites.models import Crawl, Page, Sitemap
from sites.services.issues import crawl_issues, crawl_issues_report
from tests.sites.sitebuilder import html, requested_paths, serve_site

pytestmark = pytest.mark.django_db

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset(*urls: str) -> bytes:
    body = "".join(f"<url><loc>{url}</loc></url>" for url in urls)
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{NS}">{body}</urlset>'.encode()


def index(*urls: str) -> bytes:
    body = "".join(f"<sitemap><loc>{url}</loc></sitemap>" for url in urls)
    return f'<?xml version="1.0"?><sitemapindex xmlns="{NS}">{body}</sitemapindex>'.encode()


# Reading one file


def test_robots_txt_declares_sitemaps_on_lines_of_their_own_in_any_case():
    robots = "User-agent: *\nDisallow: /x\nSitemap: https://a.example/s1.xml\nsitemap:https://a.example/s2.xml # c\n"
    assert sitemaps_in_robots(robots) == ["https://a.example/s1.xml", "https://a.example/s2.xml"]
    assert sitemaps_in_robots(None) == []


def test_a_urlset_an_index_a_gzipped_file_and_a_text_sitemap_are_read():
    assert parse_sitemap(urlset("https://a.example/1", "https://a.example/2")).urls == [
        "https://a.example/1",
        "https://a.example/2",
    ]
    assert parse_sitemap(index("https://a.example/s.xml")).sitemaps == ["https://a.example/s.xml"]
    assert parse_sitemap(gzip.compress(urlset("https://a.example/1"))).urls == ["https://a.example/1"]
    assert parse_sitemap(b"https://a.example/1\nhttps://a.example/2\n").urls == [
        "https://a.example/1",
        "https://a.example/2",
    ]


def test_a_file_lists_at_most_the_cap_and_says_how_many_it_left_out():
    parsed = parse_sitemap(urlset(*(f"https://a.example/{n}" for n in range(10))), max_urls=4)
    assert len(parsed.urls) == 4 and parsed.cut == 6


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>'
            b"<urlset><url><loc>&lol2;</loc></url></urlset>",
            "hostile XML",
        ),
        (b'<?xml version="1.0"?><!DOCTYPE x SYSTEM "file:///etc/passwd"><urlset/>', "hostile XML"),
        (b"<urlset><url><loc>unclosed", "not XML"),
        (b"<html><body>Not a sitemap</body></html>", "not a sitemap"),
        (b"\x1f\x8b\x08garbage", "not a gzip file"),
        (b"\x00\x01\x02binary", "neither"),
    ],
)
def test_hostile_or_broken_files_are_refused_with_a_reason(data, message):
    with pytest.raises(SitemapError, match=message):
        parse_sitemap(data)


@pytest.mark.parametrize(
    "page",
    [
        b"<!DOCTYPE html>\n<html lang='en'><head><title>Sorry, nothing here</title></head></html>",
        b"\xef\xbb\xbf  <!-- served by the CMS -->\n<!doctype HTML><html><body>Home</body></html>",
        b"<html><body>Not a sitemap</body></html>",
    ],
)
def test_an_html_page_is_not_a_sitemap_rather_than_hostile_xml(page):
    with pytest.raises(NotASitemap, match="an HTML page, not a sitemap"):
        parse_sitemap(page)


def test_a_sitemap_that_mentions_html_is_still_read():
    listed = urlset("https://a.example/index.html", "https://a.example/<html>".replace("<", "&lt;"))
    assert parse_sitemap(listed).urls[0] == "https://a.example/index.html"


def test_a_gzip_bomb_stops_at_the_cap():
    bomb = gzip.compress(b"<" + b" " * 20_000_000)
    with pytest.raises(SitemapError, match="uncompressed"):
        parse_sitemap(bomb, max_bytes=1_000_000)


# A crawl with a sitemap


@pytest.fixture
def site_with_sitemap(httpserver):
    """Home links to /a; the sitemap index (declared in robots.txt) points to a gzipped sitemap listing /a, a dead
    page, a redirect and an orphan nobody links to; another site's URL in it is ignored."""
    root = serve_site(
        httpserver,
        {
            "/": html("Home", "/a"),
            "/a": html("A", "/"),
            "/orphan": html("Orphan", "/from-orphan"),
            "/from-orphan": html("Reached from the orphan"),
        },
        robots=f"User-agent: *\nAllow: /\nSitemap: {httpserver.url_for('/sitemap-index.xml')}\n",
    )
    base = root.rstrip("/")
    httpserver.expect_request("/sitemap-index.xml").respond_with_data(
        index(f"{base}/sitemap-1.xml.gz", f"{base}/missing-sitemap.xml"), content_type="application/xml"
    )
    listed = urlset(
        f"{base}/", f"{base}/a", f"{base}/dead", f"{base}/moved", f"{base}/orphan", "https://other.example/x"
    )
    httpserver.expect_request("/sitemap-1.xml.gz").respond_with_data(
        gzip.compress(listed), content_type="application/gzip"
    )
    httpserver.expect_request("/moved").respond_with_data("", status=301, headers={"Location": "/a"})
    return root


def test_a_crawl_reads_the_declared_sitemaps_and_crawls_their_orphans(
    httpserver, site_with_sitemap, crawl_site
):
    crawl = crawl_site(site_with_sitemap)
    assert crawl.status == Crawl.Status.FINISHED
    base = site_with_sitemap.rstrip("/")
    files = {sitemap.url.rsplit("/", 1)[1]: sitemap for sitemap in Sitemap.objects.filter(crawl=crawl)}
    assert files["sitemap-index.xml"].is_index and files["sitemap-index.xml"].declared_in == "robots.txt"
    assert files["sitemap-1.xml.gz"].urls_listed == 6 and files["sitemap-1.xml.gz"].declared_in == "index"
    assert files["missing-sitemap.xml"].error == "HTTP 404"
    orphan = Page.objects.get(crawl=crawl, url=f"{base}/orphan")
    assert orphan.in_sitemap and orphan.status_code == 200 and orphan.depth == 1
    assert Page.objects.filter(crawl=crawl, url=f"{base}/from-orphan", state=Page.State.DONE).exists()
    assert Page.objects.get(crawl=crawl, url=f"{base}/a").in_sitemap
    assert not Page.objects.filter(crawl=crawl, url="https://other.example/x").exists()
    assert requested_paths(httpserver).count("/orphan") == 1

    sitemap = crawl_issues_report(crawl=crawl)["sitemap"]
    assert sitemap["urls"] == 5
    assert sitemap["dead"] == [f"{base}/dead"]
    assert sitemap["redirected"] == [f"{base}/moved"]
    # Listed and linked from no page: the dead URL and the redirect are orphans too.
    assert sitemap["orphans"] == [f"{base}/dead", f"{base}/moved", f"{base}/orphan"]
    assert sitemap["not_in_sitemap"] == 1  # /from-orphan
    kinds = {issue.kind: issue.count for issue in crawl_issues(crawl=crawl)}
    assert kinds["sitemap_problems"] == 3  # the dead URL, the redirect, the unreadable sitemap


def test_the_crawl_page_marks_the_orphan_pages_it_crawled_from_the_sitemap(
    client, user, site_with_sitemap, crawl_site
):
    crawl = crawl_site(site_with_sitemap)
    base = site_with_sitemap.rstrip("/")
    client.force_login(user)
    html = client.get(reverse("sites:crawl", args=[crawl.pk])).content.decode()
    table = html.split('id="pages-table"')[1].split('id="soft404"')[0]
    rows = {
        re.search(r'<td class="url"><a href="([^"]+)"', row).group(1): row
        for row in re.findall(r"<tr[^>]*>\s*<td class=\"url\">.*?</tr>", table, re.S)
    }
    marked = {url for url, row in rows.items() if ">orphan</span>" in row}
    assert marked == {f"{base}/orphan", f"{base}/dead", f"{base}/moved"}
    assert f"{base}/a" in rows and f"{base}/from-orphan" in rows  # listed and linked; linked only


def test_a_site_without_a_sitemap_costs_one_request_and_reports_none(httpserver, crawl_site):
    root = serve_site(httpserver, {"/": html("Home")}, robots="User-agent: *\nAllow: /\n")
    crawl = crawl_site(root)
    assert not Sitemap.objects.filter(crawl=crawl).exists()
    assert requested_paths(httpserver).count("/sitemap.xml") == 1
    assert "orphans" not in {issue.kind for issue in crawl_issues(crawl=crawl, with_empty=True)}


@pytest.mark.parametrize("answer", ["soft-404 page", "redirect home"])
def test_a_site_answering_every_url_has_no_sitemap_rather_than_a_broken_one(httpserver, crawl_site, answer):
    # The test bed's postgres docs answer /sitemap.xml with their 200 "sorry" page, its django docs with a
    # redirect home: neither has a sitemap, so none of its pages is missing from one.
    root = serve_site(httpserver, {"/": html("Home", "/a"), "/a": html("A")}, robots="")
    if answer == "soft-404 page":
        httpserver.expect_request("/sitemap.xml").respond_with_data(
            html("Sorry, nothing here"), content_type="text/html"
        )
    else:
        httpserver.expect_request("/sitemap.xml").respond_with_data("", status=302, headers={"Location": "/"})
    crawl = crawl_site(root)
    assert not Sitemap.objects.filter(crawl=crawl).exists()
    kinds = {issue.kind for issue in crawl_issues(crawl=crawl, with_empty=True)}
    assert "not_in_sitemap" not in kinds and "orphans" not in kinds
    assert crawl_issues_report(crawl=crawl)["sitemap"]["not_in_sitemap"] == 0
    assert "sitemap_problems" not in {issue.kind for issue in crawl_issues(crawl=crawl)}


def test_a_declared_sitemap_that_is_an_html_page_is_a_problem_but_lists_nothing_missing(
    httpserver, crawl_site
):
    root = serve_site(
        httpserver,
        {"/": html("Home", "/a"), "/a": html("A"), "/map": html("Site map")},
        robots=f"Sitemap: {httpserver.url_for('/map')}\n",
    )
    crawl = crawl_site(root)
    assert Sitemap.objects.get(crawl=crawl, url=root + "map").error == "an HTML page, not a sitemap"
    counts = {issue.kind: issue.count for issue in crawl_issues(crawl=crawl)}
    assert counts["sitemap_problems"] == 1
    assert "not_in_sitemap" not in counts  # no sitemap was read: no page is "missing" from it


def test_orphans_stay_within_the_page_cap(httpserver, crawl_site):
    root = serve_site(httpserver, {"/": html("Home"), "/o1": html("O1"), "/o2": html("O2")}, robots="")
    base = root.rstrip("/")
    httpserver.expect_request("/sitemap.xml").respond_with_data(urlset(f"{base}/o1", f"{base}/o2"))
    crawl = crawl_site(root, site_settings={"max_pages": 2})
    assert Page.objects.filter(crawl=crawl, is_internal=True).count() == 2


def test_a_hostile_sitemap_is_recorded_as_refused_and_the_crawl_goes_on(httpserver, crawl_site):
    root = serve_site(httpserver, {"/": html("Home")}, robots="")
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><urlset><url><loc>&a;</loc></url></urlset>'
    )
    crawl = crawl_site(root)
    assert crawl.status == Crawl.Status.FINISHED
    assert "hostile XML" in Sitemap.objects.get(crawl=crawl).error


def test_a_crawl_does_not_finish_while_another_step_still_reads_its_sitemaps(httpserver, user):
    from datetime import timedelta

    from django.utils import timezone

    from sites.services.crawls import crawl_start, crawl_step
    from sites.services.sitemaps import READING
    from sites.services.sites import site_create

    root = serve_site(httpserver, {"/": html("Home")}, robots="")
    crawl = crawl_start(site=site_create(owner=user, url=root), requested_by=user, enqueue=False)
    Crawl.objects.filter(pk=crawl.pk).update(sitemap_phase=READING, started_at=timezone.now())
    result = crawl_step(crawl_id=crawl.pk, budget_seconds=0.5)
    crawl.refresh_from_db()
    assert result.more and crawl.is_active and crawl.pages_done == 1
    # A reader that died does not hold the crawl forever.
    Crawl.objects.filter(pk=crawl.pk).update(started_at=timezone.now() - timedelta(hours=1))
    crawl_step(crawl_id=crawl.pk, budget_seconds=0.5)
    crawl.refresh_from_db()
    assert crawl.status == Crawl.Status.FINISHED
