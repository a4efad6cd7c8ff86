"""A page that could not be fetched says why: a malformed host or a robots.txt that timed out is not a refusal by
robots.txt (issue 18, item 6)."""

from __future__ import annotations

import time

import pytest
from werkzeug.wrappers import Response

from checks.checking import urls_check
from sites.http import ErrorKind, FetchSettings, PoliteFetcher
from sites.http.urls import url_problem
from sites.models import Crawl, Page, RobotsFile
from tests.sites.sitebuilder import html, serve_site

LONG_LABEL = "a" * 64


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://a..b/", "empty label"),
        (f"http://{LONG_LABEL}.example.com/", "longer than 63"),
        ("http://" + ".".join(["abcdefghij"] * 24) + "/", "longer than 253"),
    ],
)
def test_a_host_that_cannot_be_a_dns_name_is_a_malformed_url(url, reason):
    assert reason in url_problem(url)
    with PoliteFetcher(FetchSettings(allowed_networks=("127.0.0.0/8",))) as fetcher:
        result = fetcher.fetch(url)
    assert result.error_kind == ErrorKind.INVALID_URL and reason in result.error


@pytest.mark.parametrize(
    "url", ["http://example.com./", "http://127.0.0.1:8000/", "http://[::1]/", "http://xn--caf-dma.fr/"]
)
def test_ordinary_hosts_have_no_problem(url):
    assert url_problem(url) is None


@pytest.mark.django_db
def test_check_url_names_a_malformed_host_instead_of_robots_txt():
    [check] = urls_check(urls=[f"http://{LONG_LABEL}.example.com/x"])
    assert "robots" not in check.reason and "longer than 63" in check.error


def _slow_robots(request):
    time.sleep(1.5)
    return Response("User-agent: *\nAllow: /\n", content_type="text/plain")


@pytest.mark.django_db
def test_a_robots_txt_that_times_out_is_reported_as_a_timeout(httpserver, crawl_site, settings):
    settings.WEBAUDIT_FETCH_TIMEOUT = 0.5
    root = serve_site(httpserver, {"/": html("Home", "/a")})
    httpserver.expect_request("/robots.txt").respond_with_handler(_slow_robots)
    crawl = crawl_site(root)
    start = Page.objects.get(crawl=crawl, depth=0)
    assert start.error_kind == "timeout"
    assert "robots.txt could not be fetched" in start.fetch_error and "Disallowed" not in start.fetch_error
    stored = RobotsFile.objects.get(crawl=crawl)
    assert (stored.text, stored.error_kind) == (None, "timeout")  # RFC 9309: nothing fetched meanwhile
    assert crawl.status in (Crawl.Status.FINISHED, Crawl.Status.FAILED)


@pytest.mark.django_db
def test_check_url_reports_a_robots_txt_timeout_as_a_timeout(httpserver, settings):
    settings.WEBAUDIT_FETCH_TIMEOUT = 0.5
    httpserver.expect_request("/robots.txt").respond_with_handler(_slow_robots)
    httpserver.expect_request("/page").respond_with_data(html("Page"), content_type="text/html")
    [check] = urls_check(urls=[httpserver.url_for("/page")])
    assert check.reason == "not checked: timeout" and "robots.txt could not be fetched" in check.error
