"""The polite fetcher against real local servers: robots.txt, Crawl-delay, Retry-After, per-host limits and the
address guard, as every part of webaudit that fetches relies on them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sites.http import ErrorKind, FetchSettings, HostThrottle, PoliteFetcher
from sites.http.polite import MAX_CRAWL_DELAY

LOCAL = ("127.0.0.0/8",)


@pytest.fixture
def threaded_server() -> Iterator[HTTPServer]:
    """A server answering requests in parallel, so that only the fetcher limits how many run at once."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


def polite(**settings) -> PoliteFetcher:
    return PoliteFetcher(FetchSettings(**{"allowed_networks": LOCAL, "delay": 0.0, **settings}))


def stamped(starts: list[float], body: str = "ok", hold: float = 0.0):
    """A handler that notes when each request reached the server."""

    def handle(request: Request) -> Response:
        starts.append(time.monotonic())
        time.sleep(hold)
        return Response(body, content_type="text/html")

    return handle


def origin_of(server: HTTPServer) -> str:
    return f"http://127.0.0.1:{server.port}"


def test_robots_disallow_keeps_the_fetcher_out_of_a_path(httpserver_ipv4: HTTPServer):
    httpserver_ipv4.expect_request("/robots.txt").respond_with_data(
        "User-agent: *\nDisallow: /private/\n", content_type="text/plain"
    )
    with polite() as fetcher:
        assert fetcher.origins_missing_robots([httpserver_ipv4.url_for("/a")]) == [origin_of(httpserver_ipv4)]
        fetcher.fetch_robots(origin_of(httpserver_ipv4))
        assert fetcher.origins_missing_robots([httpserver_ipv4.url_for("/a")]) == []
        assert not fetcher.allowed(httpserver_ipv4.url_for("/private/page.html"))
        assert fetcher.allowed(httpserver_ipv4.url_for("/public/page.html"))


def test_robots_not_obeyed_when_the_settings_say_so(httpserver_ipv4: HTTPServer):
    with polite(obey_robots=False) as fetcher:
        fetcher.learn_robots(origin_of(httpserver_ipv4), "User-agent: *\nDisallow: /\n")
        assert fetcher.origins_missing_robots([httpserver_ipv4.url_for("/a")]) == []
        assert fetcher.allowed(httpserver_ipv4.url_for("/a"))


def test_an_unreachable_robots_txt_disallows_everything_and_a_dead_host_allows_it(
    httpserver_ipv4: HTTPServer,
):
    httpserver_ipv4.expect_request("/robots.txt").respond_with_data("down", status=503)
    with polite() as fetcher:
        fetcher.fetch_robots(origin_of(httpserver_ipv4))
        assert not fetcher.allowed(httpserver_ipv4.url_for("/a"))
        # Nothing listens there: the page fetch must fail with that reason, not "disallowed by robots.txt".
        fetcher.fetch_robots("http://127.0.0.1:9")
        assert fetcher.allowed("http://127.0.0.1:9/a")


def test_crawl_delay_spaces_the_requests_to_one_host(threaded_server: HTTPServer):
    threaded_server.expect_request("/robots.txt").respond_with_data(
        "User-agent: *\nCrawl-delay: 0.4\n", content_type="text/plain"
    )
    starts: list[float] = []
    threaded_server.expect_request("/page").respond_with_handler(stamped(starts))
    with polite(concurrency=4) as fetcher:
        fetcher.fetch_robots(origin_of(threaded_server))
        assert fetcher.crawl_delay(threaded_server.url_for("/page")) == 0.4
        with ThreadPoolExecutor(max_workers=3) as pool:
            list(pool.map(fetcher.fetch, [threaded_server.url_for("/page")] * 3))
    starts.sort()
    assert min(b - a for a, b in zip(starts, starts[1:], strict=False)) >= 0.38


def test_a_huge_crawl_delay_is_capped(httpserver_ipv4: HTTPServer):
    with polite() as fetcher:
        fetcher.learn_robots(origin_of(httpserver_ipv4), "User-agent: *\nCrawl-delay: 86400\n")
        assert fetcher.crawl_delay(httpserver_ipv4.url_for("/a")) == MAX_CRAWL_DELAY


def test_per_host_concurrency_is_never_exceeded(threaded_server: HTTPServer):
    in_flight = peak = 0
    lock = threading.Lock()

    def handle(request: Request) -> Response:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.1)
        with lock:
            in_flight -= 1
        return Response("ok")

    threaded_server.expect_request("/slow").respond_with_handler(handle)
    with polite(concurrency=2) as fetcher, ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(fetcher.fetch, [threaded_server.url_for("/slow")] * 6))
    assert [result.status for result in results] == [200] * 6
    assert peak == 2


def test_a_retry_after_pauses_the_host_until_it_has_passed(httpserver_ipv4: HTTPServer):
    starts: list[float] = []
    httpserver_ipv4.expect_ordered_request("/busy").respond_with_data(
        "slow down", status=429, headers={"Retry-After": "1"}
    )
    httpserver_ipv4.expect_ordered_request("/busy").respond_with_handler(stamped(starts))
    with polite() as fetcher:
        refused = fetcher.fetch(httpserver_ipv4.url_for("/busy"))
        asked_at = time.monotonic()
        wait = fetcher.retry_wait(refused.url, refused, longest=30.0, without_retry_after=5.0)
        answer = fetcher.fetch(httpserver_ipv4.url_for("/busy"))
    assert (refused.status, wait, answer.status) == (429, 1.0, 200)
    assert starts[0] - asked_at >= 0.95


def test_a_retry_after_past_the_longest_wait_is_capped_or_given_up(httpserver_ipv4: HTTPServer):
    httpserver_ipv4.expect_request("/busy").respond_with_data("", status=429, headers={"Retry-After": "3600"})
    with polite() as fetcher:
        refused = fetcher.fetch(httpserver_ipv4.url_for("/busy"))
        assert (
            fetcher.retry_wait(refused.url, refused, longest=0.1, without_retry_after=None, cap=False) is None
        )
        assert fetcher.retry_wait(refused.url, refused, longest=0.1, without_retry_after=None) == 0.1


def test_a_slow_down_without_retry_after_waits_the_default_or_not_at_all(httpserver_ipv4: HTTPServer):
    httpserver_ipv4.expect_request("/busy").respond_with_data("", status=503)
    with polite() as fetcher:
        refused = fetcher.fetch(httpserver_ipv4.url_for("/busy"))
        assert fetcher.retry_wait(refused.url, refused, longest=30, without_retry_after=None) is None
        assert fetcher.retry_wait(refused.url, refused, longest=30, without_retry_after=0.2) == 0.2
        # A 503 is not a slow-down for a caller that only honours 429s.
        assert (
            fetcher.retry_wait(
                refused.url, refused, longest=30, without_retry_after=0.2, statuses=frozenset({429})
            )
            is None
        )


def test_the_crawl_backoff_grows_takes_a_longer_retry_after_and_stops_after_the_retries(httpserver_ipv4):
    httpserver_ipv4.expect_request("/busy").respond_with_data("", status=503, headers={"Retry-After": "7"})
    httpserver_ipv4.expect_request("/fine").respond_with_data("ok")
    with polite(retries=3, backoff_seconds=2.0, backoff_cap_seconds=10.0) as fetcher:
        fine = fetcher.fetch(httpserver_ipv4.url_for("/fine"))
        assert fetcher.backoff(fine.url, fine, 0) is None
        refused = fetcher.fetch(httpserver_ipv4.url_for("/busy"))
        assert [fetcher.backoff(refused.url, refused, attempts) for attempts in range(4)] == [
            7.0,
            7.0,
            8.0,
            None,
        ]


def test_the_address_guard_stops_a_redirect_to_a_private_address(httpserver_ipv4: HTTPServer):
    inside = f"http://127.0.0.2:{httpserver_ipv4.port}/next"
    httpserver_ipv4.expect_request("/start").respond_with_data("", status=302, headers={"Location": inside})
    with polite(allowed_networks=("127.0.0.1/32",)) as fetcher:
        result = fetcher.fetch(f"http://127.0.0.1:{httpserver_ipv4.port}/start")
    assert result.error_kind == ErrorKind.BLOCKED_ADDRESS
    assert result.final_url == inside


def test_a_post_goes_through_the_same_guard(httpserver_ipv4: HTTPServer):
    httpserver_ipv4.expect_request("/indexnow").respond_with_data("", status=200)
    with polite(allowed_networks=()) as fetcher:
        answer = fetcher.post_json(httpserver_ipv4.url_for("/indexnow"), {"urlList": []})
    assert answer.error_kind == ErrorKind.BLOCKED_ADDRESS
    assert httpserver_ipv4.log == []


def test_spacing_from_the_end_counts_the_delay_after_each_answer(httpserver_ipv4: HTTPServer):
    starts: list[float] = []
    httpserver_ipv4.expect_request("/page").respond_with_handler(stamped(starts, hold=0.2))
    with PoliteFetcher(FetchSettings(allowed_networks=LOCAL, delay=0.3), space_from_end=True) as fetcher:
        fetcher.fetch(httpserver_ipv4.url_for("/page"))
        fetcher.fetch(httpserver_ipv4.url_for("/page"))
    assert starts[1] - starts[0] >= 0.2 + 0.3 - 0.02


def test_a_scheduler_can_ask_whether_a_host_may_go_without_waiting():
    throttle = HostThrottle(concurrency=1, delay=0.5)
    assert throttle.ready_in("example.com") == 0.0
    assert throttle.try_acquire("example.com") == 0.0
    assert throttle.try_acquire("example.com") is None  # its one slot is taken
    assert throttle.try_acquire("other.example") == 0.0
    throttle.release("example.com")
    wait = throttle.try_acquire("example.com")
    assert wait is not None and 0.4 < wait <= 0.5  # the slot is free, the delay not yet over
    assert throttle.ready_in("example.com", min_delay=2.0) > 1.9  # a Crawl-delay widens the gap
