"""A crawl fetches the URL a page links to, as written, against real local servers that tell the forms apart."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Request, Response

from sites.crawler.urls import CrawlScope
from sites.models import Crawl, Link, Page
from tests.sites.sitebuilder import html, serve_site

pytestmark = pytest.mark.django_db

DOCS = {"ref/models/constraints": "Constraints reference", "topics/db": "Databases"}
NOT_FOUND = "<!doctype html><html><head><title>Docs</title></head><body>No such document.</body></html>"


def _raw_lookup(request: Request) -> Response:
    """/doc?p=VALUE answered by the raw query value, as nginx's $arg_p: `ref%2Fmodels` is not `ref/models`."""
    raw = request.query_string.decode("latin-1")
    value = raw[2:] if raw.startswith("p=") else ""
    if value in DOCS:
        body = html(DOCS[value], extra="").replace(
            "</body>",
            f"<p>{DOCS[value]}: " + "the documentation of this part, in full. " * 30 + "</p></body>",
        )
        return Response(body, content_type="text/html")
    return Response(NOT_FOUND, content_type="text/html")  # a soft 404: "not found" with 200


def _ordered_lookup(request: Request) -> Response:
    """/s answers a=1&b=2 and nothing else (a server reading its parameters in order)."""
    if request.query_string == b"a=1&b=2":
        return Response(html("Ordered search") + "<p>" + "results " * 80 + "</p>", content_type="text/html")
    return Response("wrong order", status=404)


def _serve(httpserver: HTTPServer, home_links: list[str]) -> str:
    root = serve_site(httpserver, {"/": html("Home", *home_links)}, robots="")
    httpserver.expect_request("/doc").respond_with_handler(_raw_lookup)
    httpserver.expect_request("/s").respond_with_handler(_ordered_lookup)
    return root


def _requested(httpserver: HTTPServer) -> list[str]:
    return [request.full_path.rstrip("?") for request, _ in httpserver.log]


def test_a_query_with_slashes_is_fetched_as_written_and_not_called_a_soft_404(httpserver, crawl_site):
    root = _serve(httpserver, ["/doc?p=ref/models/constraints", "/doc?p=topics/db", "/s?a=1&b=2"])
    crawl = crawl_site(root)
    assert crawl.status == Crawl.Status.FINISHED
    requested = _requested(httpserver)
    assert "/doc?p=ref/models/constraints" in requested and "/s?a=1&b=2" in requested
    assert not any("%2F" in path for path in requested)
    base = root.rstrip("/")
    for url in (f"{base}/doc?p=ref/models/constraints", f"{base}/doc?p=topics/db", f"{base}/s?a=1&b=2"):
        page = Page.objects.get(crawl=crawl, url=url)
        assert (page.status_code, page.verdict) == (200, "ok"), (url, page.verdict_reason)
    # Reports show the URL as linked.
    assert set(Link.objects.filter(crawl=crawl).values_list("target_url", flat=True)) == {
        f"{base}/doc?p=ref/models/constraints",
        f"{base}/doc?p=topics/db",
        f"{base}/s?a=1&b=2",
    }


def test_an_encoded_slash_is_fetched_encoded_and_its_not_found_page_is_a_soft_404(httpserver, crawl_site):
    root = _serve(httpserver, ["/doc?p=ref%2Fmodels%2Fconstraints", "/doc?p=topics/db"])
    crawl = crawl_site(root)
    assert "/doc?p=ref%2Fmodels%2Fconstraints" in _requested(httpserver)
    base = root.rstrip("/")
    encoded = Page.objects.get(crawl=crawl, url=f"{base}/doc?p=ref%2Fmodels%2Fconstraints")
    assert encoded.verdict == "soft404"  # this server has no document "ref%2Fmodels%2Fconstraints"
    assert Page.objects.get(crawl=crawl, url=f"{base}/doc?p=topics/db").verdict == "ok"


def test_two_orders_of_one_query_are_one_page_fetched_in_the_order_first_linked(httpserver, crawl_site):
    root = _serve(httpserver, ["/s?a=1&b=2", "/s?b=2&a=1"])
    crawl = crawl_site(root)
    requested = _requested(httpserver)
    assert requested.count("/s?a=1&b=2") == 1 and "/s?b=2&a=1" not in requested
    assert Page.objects.filter(crawl=crawl, url__contains="/s?").count() == 1
    assert Link.objects.filter(crawl=crawl, target_url__contains="/s?").count() == 2


def test_a_catastrophic_exclude_pattern_ends_the_crawl_and_runs_outside_any_transaction(
    httpserver, crawl_site, monkeypatch
):
    hostile = "/" + "a" * 40 + "!"
    root = serve_site(
        httpserver, {"/": html("Home", hostile, "/b"), "/b": html("B", "/"), hostile: html("A")}
    )
    depths: list[int] = []
    baseline = len(connection.atomic_blocks)
    contains = CrawlScope.contains

    def watched(scope, url):
        depths.append(len(connection.atomic_blocks) - baseline)
        return contains(scope, url)

    monkeypatch.setattr(CrawlScope, "contains", watched)
    started = time.monotonic()
    crawl = crawl_site(root, site_settings={"exclude_patterns": "(a+)+$"})
    assert crawl.status == Crawl.Status.FINISHED
    assert time.monotonic() - started < 30  # Python's re took minutes on this pattern and URL
    assert Page.objects.filter(crawl=crawl, url__endswith="a!").exists()  # not excluded: it ends in "!"
    assert depths and set(depths) == {0}
