"""The crawl engine end to end against real local HTTP servers, crawling in-process."""

from __future__ import annotations

import gzip
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Response

from sites.models import Crawl, Link, Page
from sites.services.crawls import CrawlError, crawl_cancel, crawl_start, crawl_step, crawls_resume_stalled
from sites.services.frontier import frontier_claim
from sites.services.sites import site_create
from tests.sites.sitebuilder import html, requested_paths, serve_site

pytestmark = pytest.mark.django_db


def urls_of(crawl: Crawl) -> set[str]:
    return set(Page.objects.filter(crawl=crawl).values_list("url", flat=True))


def test_crawl_finds_each_linked_page_once_whatever_form_its_links_take(httpserver, crawl_site):
    root = serve_site(
        httpserver,
        {
            "/": html("Home", "/a", "/a#top", "./a", "/b/../a", "b/", "/b/?y=2&x=1"),
            "/a": html("A", "/", "/b/"),
            "/b/": html("B", "/a", "/b/?x=1&y=2", "/missing"),
        },
    )
    crawl = crawl_site(root)
    assert crawl.status == Crawl.Status.FINISHED
    base = root.rstrip("/")
    # The query's two orders are one page, kept (and fetched) as the first link wrote it.
    assert urls_of(crawl) == {f"{base}/", f"{base}/a", f"{base}/b/", f"{base}/b/?y=2&x=1", f"{base}/missing"}
    assert sorted(requested_paths(httpserver)).count("/a") == 1
    assert Page.objects.get(crawl=crawl, url=f"{base}/a").depth == 1
    assert Page.objects.get(crawl=crawl, url=f"{base}/missing").status_code == 404


def test_crawl_records_page_details_and_broken_links_with_their_text(httpserver, crawl_site):
    root = serve_site(httpserver, {"/": html("Welcome home", "/gone")}, robots="")
    crawl = crawl_site(root)
    home = Page.objects.get(crawl=crawl, depth=0)
    assert (home.status_code, home.title, home.content_type) == (200, "Welcome home", "text/html")
    assert home.size == len(html("Welcome home", "/gone").encode()) and home.response_ms is not None
    assert len(home.content_hash) == 64 and home.body.content.startswith(b"<!doctype html>")
    link = Link.objects.get(crawl=crawl)
    assert (link.source, link.text, link.target.status_code) == (home, "link to /gone", 404)
    assert crawl.pages_failed == 1 and crawl.links_found == 1


def test_redirects_are_recorded_hop_by_hop(httpserver, crawl_site):
    serve_site(httpserver, {"/final": html("Final")})
    httpserver.expect_request("/").respond_with_data("", status=301, headers={"Location": "/step"})
    httpserver.expect_request("/step").respond_with_data("", status=302, headers={"Location": "/final"})
    crawl = crawl_site(httpserver.url_for("/"))
    start = Page.objects.get(crawl=crawl, depth=0)
    base = httpserver.url_for("").rstrip("/")
    assert start.redirects == [
        {"url": f"{base}/", "status": 301, "location": f"{base}/step"},
        {"url": f"{base}/step", "status": 302, "location": f"{base}/final"},
    ]
    assert (start.final_url, start.status_code, start.title) == (f"{base}/final", 200, "Final")


def test_external_targets_are_checked_but_never_crawled(httpserver, crawl_site):
    other = HTTPServer(host="127.0.0.1")
    other.start()
    try:
        external_root = serve_site(other, {"/ok": html("Elsewhere", "/deeper")})
        root = serve_site(httpserver, {"/": html("Home", external_root + "ok", external_root + "dead")})
        crawl = crawl_site(root)
        external = {page.url: page for page in Page.objects.filter(crawl=crawl, is_internal=False)}
        assert {url.rsplit("/", 1)[1] for url in external} == {"ok", "dead"}
        assert external[external_root + "ok"].status_code == 200
        assert external[external_root + "dead"].status_code == 404
        assert "/deeper" not in requested_paths(other)
        assert Link.objects.filter(crawl=crawl, is_internal=False).count() == 2
    finally:
        other.clear()
        other.stop()


def test_external_targets_are_not_checked_when_the_site_says_so(httpserver, crawl_site):
    root = serve_site(httpserver, {"/": html("Home", "http://127.0.0.2:9/elsewhere")})
    crawl = crawl_site(root, site_settings={"check_external": False})
    assert not Page.objects.filter(crawl=crawl, is_internal=False).exists()
    assert Link.objects.get(crawl=crawl).target is None


def test_robots_txt_disallow_rules_are_obeyed(httpserver, crawl_site):
    root = serve_site(
        httpserver,
        {"/": html("Home", "/private/secret", "/public")},
        robots="User-agent: *\nDisallow: /private/\n",
    )
    httpserver.expect_request("/public").respond_with_data(html("Public"), content_type="text/html")
    crawl = crawl_site(root)
    blocked = Page.objects.get(crawl=crawl, url__endswith="/private/secret")
    assert blocked.error_kind == "robots" and blocked.status_code is None and not blocked.is_broken
    assert "/private/secret" not in requested_paths(httpserver)
    assert requested_paths(httpserver).count("/robots.txt") == 1


def test_robots_txt_is_ignored_when_the_site_says_so(httpserver, crawl_site):
    root = serve_site(
        httpserver,
        {"/": html("Home", "/private/x"), "/private/x": html("X")},
        robots="User-agent: *\nDisallow: /\n",
    )
    crawl = crawl_site(root, site_settings={"obey_robots": False})
    assert Page.objects.get(crawl=crawl, url__endswith="/private/x").status_code == 200


def test_robots_crawl_delay_spaces_requests_to_the_host(httpserver, crawl_site):
    arrivals: list[float] = []

    def page(body: str):
        def handler(request):
            arrivals.append(time.monotonic())
            return Response(body, content_type="text/html")

        return handler

    serve_site(httpserver, {}, robots="User-agent: *\nCrawl-delay: 0.4\n")
    for path, body in {"/": html("Home", "/a", "/b"), "/a": html("A"), "/b": html("B")}.items():
        httpserver.expect_request(path).respond_with_handler(page(body))
    crawl_site(httpserver.url_for("/"), concurrency=4)
    gaps = [later - earlier for earlier, later in zip(arrivals, arrivals[1:], strict=False)]
    assert len(arrivals) == 3 and min(gaps) >= 0.35


def test_a_429_with_retry_after_is_retried_and_not_reported_broken(httpserver, crawl_site):
    serve_site(httpserver, {})
    answers = iter(
        [
            Response("slow down", status=429, headers={"Retry-After": "1"}),
            Response(html("Finally"), content_type="text/html"),
        ]
    )
    httpserver.expect_request("/").respond_with_handler(lambda request: next(answers))
    started = time.monotonic()
    crawl = crawl_site(httpserver.url_for("/"))
    page = Page.objects.get(crawl=crawl)
    assert (page.status_code, page.title, page.attempts, page.is_broken) == (200, "Finally", 1, False)
    assert time.monotonic() - started >= 1.0  # Retry-After was honoured
    assert crawl.status == Crawl.Status.FINISHED


def test_a_503_that_never_recovers_is_reported_after_its_retries(httpserver, crawl_site, settings):
    settings.WEBAUDIT_CRAWL_RETRIES = 2
    settings.WEBAUDIT_CRAWL_BACKOFF_SECONDS = 0.05
    serve_site(httpserver, {})
    httpserver.expect_request("/").respond_with_data("down", status=503)
    crawl = crawl_site(httpserver.url_for("/"))
    page = Page.objects.get(crawl=crawl)
    assert (page.status_code, page.attempts, page.is_broken) == (503, 2, True)
    assert requested_paths(httpserver).count("/") == 3


def test_max_pages_and_max_depth_bound_the_crawl(httpserver, crawl_site):
    chain = {f"/p{i}": html(f"P{i}", f"/p{i + 1}", f"/q{i}") for i in range(10)}
    root = serve_site(httpserver, {"/": html("Home", "/p0"), **chain})
    by_pages = crawl_site(root, max_pages=4)
    assert Page.objects.filter(crawl=by_pages, is_internal=True).count() == 4
    httpserver.log.clear()
    by_depth = crawl_site(root, max_depth=2)
    assert max(Page.objects.filter(crawl=by_depth).values_list("depth", flat=True)) == 2


def test_include_and_exclude_patterns_choose_what_is_crawled(httpserver, crawl_site):
    root = serve_site(
        httpserver,
        {
            "/": html("Home", "/docs/a", "/docs/private/b", "/blog/c"),
            "/docs/a": html("A"),
            "/docs/private/b": html("B"),
            "/blog/c": html("C"),
        },
    )
    crawl = crawl_site(root, site_settings={"include_patterns": "/docs/", "exclude_patterns": "private"})
    assert {url.split("/", 3)[3] for url in urls_of(crawl)} == {"", "docs/a"}
    assert Link.objects.filter(crawl=crawl, target__isnull=True).count() == 2


def test_meta_robots_nofollow_keeps_links_recorded_but_not_followed(httpserver, crawl_site):
    root = serve_site(
        httpserver,
        {
            "/": html("Home", "/a", extra='<meta name="robots" content="noindex, nofollow">'),
            "/a": html("A"),
        },
    )
    crawl = crawl_site(root)
    home = Page.objects.get(crawl=crawl, depth=0)
    assert home.noindex and home.nofollow
    assert Link.objects.filter(crawl=crawl).count() == 1
    assert "/a" not in requested_paths(httpserver)


def test_an_unreachable_start_url_fails_the_crawl_with_a_readable_error(user, crawl_site, closed_port):
    crawl = crawl_site(f"http://127.0.0.1:{closed_port}/")
    assert crawl.status == Crawl.Status.FAILED
    assert f"127.0.0.1:{closed_port}" in crawl.error and "could not be fetched" in crawl.error


def test_a_start_url_on_a_private_address_is_refused_when_not_allowed(crawl_site, settings, httpserver):
    settings.WEBAUDIT_ALLOWED_NETWORKS = []
    root = serve_site(httpserver, {"/": html("Home")})
    crawl = crawl_site(root)
    assert crawl.status == Crawl.Status.FAILED
    assert Page.objects.get(crawl=crawl).error_kind == "blocked_address"
    assert httpserver.log == []


def test_a_target_the_address_guard_refused_is_not_counted_broken(httpserver, crawl_site, client):
    # 10.0.0.1 is outside the allowed 127.0.0.0/8: never asked, so neither broken nor fine ("not checked").
    root = serve_site(httpserver, {"/": html("Home", "http://10.0.0.1/admin", "/missing")})
    crawl = crawl_site(root)
    refused = Page.objects.get(crawl=crawl, url="http://10.0.0.1/admin")
    assert refused.error_kind == "blocked_address"
    assert crawl.pages_failed == 1  # /missing only
    client.force_login(crawl.site.owner)
    progress = client.get(reverse("sites:crawl", args=[crawl.pk])).content.decode()
    assert '<dt>Broken</dt><dd class="text-bad">1 <small' in progress


def test_bad_pages_are_recorded_on_the_page_and_the_crawl_finishes(httpserver, crawl_site, settings):
    settings.WEBAUDIT_FETCH_MAX_BYTES = 100_000
    bomb = gzip.compress(b"\0" * 20_000_000)
    root = serve_site(
        httpserver,
        {
            "/": html("Home", "/malformed", "/binary", "/huge", "/bomb", "/loop", "/empty"),
            "/malformed": "<html><head><title>Broken<body><a href='/x'>x</a><<<>>><table><tr><td></div>",
            "/empty": "",
        },
    )
    httpserver.expect_request("/binary").respond_with_data(bytes(range(256)) * 100, content_type="text/html")
    httpserver.expect_request("/huge").respond_with_data("<p>" + "x" * 300_000, content_type="text/html")
    httpserver.expect_request("/bomb").respond_with_data(
        bomb, content_type="text/html", headers={"Content-Encoding": "gzip"}
    )
    httpserver.expect_request("/loop").respond_with_data("", status=302, headers={"Location": "/loop2"})
    httpserver.expect_request("/loop2").respond_with_data("", status=302, headers={"Location": "/loop"})
    crawl = crawl_site(root)
    assert crawl.status == Crawl.Status.FINISHED
    pages = {page.url.rsplit("/", 1)[1]: page for page in Page.objects.filter(crawl=crawl)}
    assert pages["malformed"].title.startswith("Broken") and pages["malformed"].status_code == 200
    assert pages["binary"].status_code == 200
    assert pages["huge"].error_kind == "too_large" and pages["bomb"].error_kind == "too_large"
    assert pages["bomb"].size <= 100_000
    assert pages["loop"].error_kind == "redirect_loop" and "loop" in pages["loop"].fetch_error.lower()
    assert pages["empty"].status_code == 200 and pages["empty"].error_kind == ""


def test_a_slow_server_is_recorded_as_a_timeout(httpserver, crawl_site, settings):
    settings.WEBAUDIT_FETCH_TIMEOUT = 0.5

    def slow(request):
        time.sleep(1.5)
        return Response("late", content_type="text/html")

    root = serve_site(httpserver, {"/": html("Home", "/slow")})
    httpserver.expect_request("/slow").respond_with_handler(slow)
    crawl = crawl_site(root)
    assert Page.objects.get(crawl=crawl, url__endswith="/slow").error_kind == "timeout"
    assert crawl.status == Crawl.Status.FINISHED


def test_a_cancelled_crawl_stops_and_keeps_what_it_found(httpserver, user):
    root = serve_site(httpserver, {"/": html("Home", *[f"/p{i}" for i in range(50)])})
    site = site_create(owner=user, url=root)
    crawl = crawl_start(site=site, enqueue=False, concurrency=1)
    assert crawl_cancel(crawl=crawl)
    assert crawl_step(crawl_id=crawl.pk).more is False
    crawl.refresh_from_db()
    assert crawl.status == Crawl.Status.CANCELLED and crawl.finished_at is not None
    assert not crawl_cancel(crawl=crawl)


def test_a_result_from_a_worker_whose_claim_went_stale_is_not_written(httpserver, user):
    root = serve_site(httpserver, {"/": html("Home")})
    crawl = crawl_start(site=site_create(owner=user, url=root), enqueue=False)
    first_token, first = frontier_claim(crawl=crawl, size=10, lease_seconds=60)
    assert frontier_claim(crawl=crawl, size=10, lease_seconds=60)[1] == []  # a live claim is respected
    time.sleep(0.01)
    second_token, second = frontier_claim(crawl=crawl, size=10, lease_seconds=0)  # the first went stale
    assert [page.pk for page in second] == [page.pk for page in first] and second_token != first_token
    assert Page.objects.get(pk=first[0].pk).claim_token == second_token


def test_stalled_crawls_are_resumed_and_live_ones_left_alone(httpserver, user, settings):
    settings.WEBAUDIT_CRAWL_LEASE_SECONDS = 60
    root = serve_site(httpserver, {"/": html("Home")})
    stalled = crawl_start(site=site_create(owner=user, url=root), enqueue=False)
    live = crawl_start(site=site_create(owner=user, url=root), enqueue=False)
    Crawl.objects.filter(pk=stalled.pk).update(
        status="running", heartbeat_at=timezone.now() - timedelta(minutes=5)
    )
    Crawl.objects.filter(pk=live.pk).update(status="running", heartbeat_at=timezone.now())
    assert crawls_resume_stalled() == [stalled.pk]
    assert crawls_resume_stalled() == []  # its heartbeat was touched


def test_a_site_has_one_active_crawl_at_a_time(httpserver, user):
    site = site_create(owner=user, url=serve_site(httpserver, {"/": html("Home")}))
    first = crawl_start(site=site, enqueue=False)
    with pytest.raises(CrawlError, match=f"#{first.pk}.*still queued"):
        crawl_start(site=site, enqueue=False)
    crawl_cancel(crawl=first)
    assert crawl_start(site=site, enqueue=False).pk != first.pk
