"""A crawl's external links checked on many hosts at once, each host within its own politeness, against real
local servers on several 127.0.0.x addresses (counting server-side the requests they hold at once)."""

from __future__ import annotations

import time

import pytest
from werkzeug.wrappers import Response

from sites.models import Page
from tests.sites.http.inflight import InFlight, host_of, servers_on
from tests.sites.sitebuilder import html, serve_site

pytestmark = pytest.mark.django_db

ALLOW_ALL = "User-agent: *\nAllow: /\n"


def _serve_targets(
    servers, counter: InFlight, *, hold: float, pages: int, robots: str = ALLOW_ALL
) -> list[str]:
    urls = []
    for server in servers:
        host = host_of(server)
        server.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
        for n in range(pages):
            server.expect_request(f"/docs/{n}.html").respond_with_handler(counter.handler(host, hold=hold))
            urls.append(server.url_for(f"/docs/{n}.html"))
    return urls


def test_external_targets_on_many_hosts_are_checked_at_once(httpserver, crawl_site):
    # Twelve hosts, more than the 8 threads a crawl used to have in all: each is asked at the same time.
    counter = InFlight()
    with servers_on(12, threaded=False) as servers:
        targets = _serve_targets(servers, counter, hold=0.5, pages=2)
        crawl = crawl_site(serve_site(httpserver, {"/": html("Links", *targets)}, robots=ALLOW_ALL))
    checked = Page.objects.filter(crawl=crawl, is_internal=False)
    assert sorted(checked.values_list("status_code", flat=True)) == [200] * 24
    assert counter.most >= 12


def test_a_host_never_gets_more_requests_at_once_than_the_per_host_limit(httpserver, crawl_site):
    counter = InFlight()
    with servers_on(2) as servers:
        targets = _serve_targets(servers, counter, hold=0.2, pages=8)
        crawl_site(serve_site(httpserver, {"/": html("Links", *targets)}), concurrency=2, delay=0)
    assert set(counter.most_per_host.values()) == {2}
    assert counter.most == 4


def test_a_crawl_delay_spaces_one_hosts_requests_while_the_others_go_on(httpserver, crawl_site):
    counter = InFlight()
    with servers_on(3, threaded=False) as servers:
        slow, *others = servers
        targets = _serve_targets(
            [slow], counter, hold=0.0, pages=3, robots="User-agent: *\nCrawl-delay: 0.6\n"
        )
        targets += _serve_targets(others, counter, hold=0.0, pages=3)
        crawl_site(serve_site(httpserver, {"/": html("Links", *targets)}), delay=0)
    slow_starts = counter.starts_of(host_of(slow))
    assert len(slow_starts) == 3
    assert min(b - a for a, b in zip(slow_starts, slow_starts[1:], strict=False)) >= 0.58
    # Hosts without a Crawl-delay did not wait for the slow one's turns.
    assert max(max(counter.starts_of(host_of(server))) for server in others) < slow_starts[-1]


def test_retry_after_on_an_external_host_is_waited_out_and_the_target_rechecked(httpserver, crawl_site):
    arrivals: list[float] = []

    def busy(request):
        arrivals.append(time.monotonic())
        if len(arrivals) == 1:
            return Response("slow down", status=429, headers={"Retry-After": "1"})
        return Response(html("Back"), content_type="text/html")

    with servers_on(1, threaded=False) as (server,):
        server.expect_request("/robots.txt").respond_with_data(ALLOW_ALL, content_type="text/plain")
        server.expect_request("/busy").respond_with_handler(busy)
        target = server.url_for("/busy")
        crawl = crawl_site(serve_site(httpserver, {"/": html("Links", target)}))
    page = Page.objects.get(crawl=crawl, url=target)
    assert (page.status_code, page.attempts, page.is_broken) == (200, 1, False)
    assert len(arrivals) == 2 and arrivals[1] - arrivals[0] >= 1.0
