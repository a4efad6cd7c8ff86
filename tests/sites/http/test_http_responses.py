"""What a successful fetch reports: body, types, size caps, decoding of content and headers."""

from __future__ import annotations

import gzip
import json
import time
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from email.utils import formatdate

import pytest
from pytest_httpserver import HTTPServer

from sites.http import ErrorKind, Fetcher, FetchPolicy
from sites.http.headers import parse_content_type, parse_retry_after

BOMB_BYTES = 50_000_000
CAP = 1_000_000


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(FetchPolicy(timeout=5.0, max_bytes=CAP, allowed_networks=("127.0.0.0/8",))) as f:
        yield f


@pytest.fixture
def server(httpserver_ipv4: HTTPServer) -> HTTPServer:
    return httpserver_ipv4


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    zeros = bytes(BOMB_BYTES)
    return {"gzip": gzip.compress(zeros, compresslevel=9), "deflate": zlib.compress(zeros, 9)}


def test_html_page_reports_type_charset_headers_and_body(server, fetcher):
    server.expect_request("/").respond_with_data(
        "<p>hi</p>", headers={"Content-Type": 'text/HTML; charset="UTF-8"', "X-Thing": "1"}
    )
    result = fetcher.fetch(server.url_for("/"))
    assert (result.status, result.content_type, result.charset, result.body) == (
        200,
        "text/html",
        "utf-8",
        b"<p>hi</p>",
    )
    assert result.is_html
    assert result.headers["x-thing"] == "1"
    assert result.final_url == result.url and result.redirects == []


def test_binary_body_is_returned_as_bytes_with_its_content_type(server, fetcher):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    server.expect_request("/logo.png").respond_with_data(png, content_type="image/png")
    result = fetcher.fetch(server.url_for("/logo.png"))
    assert result.body == png
    assert (result.content_type, result.charset, result.is_html) == ("image/png", None, False)


def test_request_carries_the_policy_user_agent_and_accept_headers(server):
    server.expect_request("/").respond_with_data("ok")
    with Fetcher(
        FetchPolicy(user_agent="auditbot/9 (+https://example.org)", allowed_networks=("127.0.0.1/32",))
    ) as f:
        f.fetch(server.url_for("/"))
    request = server.log[0][0]
    assert request.headers["User-Agent"] == "auditbot/9 (+https://example.org)"
    assert request.headers["Accept"].startswith("text/html,application/xhtml+xml")
    assert request.headers["Accept-Encoding"] in ("gzip, deflate", "gzip, deflate, br")


def test_gzip_body_is_returned_decoded(server, fetcher):
    page = b"<html>" + b"squeezed " * 1000 + b"</html>"
    server.expect_request("/").respond_with_data(gzip.compress(page), headers={"Content-Encoding": "gzip"})
    assert fetcher.fetch(server.url_for("/")).body == page


def test_body_over_the_cap_is_truncated_and_reported_too_large(server, fetcher):
    server.expect_request("/big").respond_with_data(b"a" * (CAP + 1))
    result = fetcher.fetch(server.url_for("/big"))
    assert result.error_kind == ErrorKind.TOO_LARGE
    assert result.body == b"a" * CAP
    assert result.status == 200


def test_body_exactly_at_the_cap_is_complete(server, fetcher):
    server.expect_request("/full").respond_with_data(b"a" * CAP)
    result = fetcher.fetch(server.url_for("/full"))
    assert (result.error_kind, len(result.body)) == ("", CAP)


def test_cap_given_per_call_overrides_the_policy(server, fetcher):
    server.expect_request("/robots.txt").respond_with_data(b"x" * 5000)
    result = fetcher.fetch(server.url_for("/robots.txt"), max_bytes=100)
    assert (result.error_kind, result.body) == (ErrorKind.TOO_LARGE, b"x" * 100)


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_compression_bomb_is_cut_at_the_cap_quickly(server, fetcher, bombs, encoding):
    server.expect_request("/bomb").respond_with_data(
        bombs[encoding], headers={"Content-Encoding": encoding}, content_type="text/html"
    )
    result = fetcher.fetch(server.url_for("/bomb"))
    assert result.error_kind == ErrorKind.TOO_LARGE
    assert result.body == bytes(CAP)
    # Measured here: inflating all 50 MB takes 0.36 s, fetching and cutting at 1 MB 0.01 s.
    assert result.elapsed_ms < 250


def test_retry_after_in_seconds_is_parsed_for_any_status(server, fetcher):
    server.expect_request("/busy").respond_with_data("slow down", status=429, headers={"Retry-After": "120"})
    result = fetcher.fetch(server.url_for("/busy"))
    assert (result.status, result.retry_after, result.error_kind) == (429, 120.0, "")


def test_retry_after_as_http_date_becomes_seconds_from_now(server, fetcher):
    date = formatdate(time.time() + 60, usegmt=True)
    server.expect_request("/down").respond_with_data("", status=503, headers={"Retry-After": date})
    result = fetcher.fetch(server.url_for("/down"))
    assert result.retry_after is not None and 55 <= result.retry_after <= 61


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", 0.0),
        ("3600", 3600.0),
        ("Sun, 06 Nov 1994 08:49:37 GMT", 0.0),
        ("Thu, 01 Jan 2032 00:00:10 GMT", 10.0),
        ("soon", None),
        ("-5", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_values_are_read_as_seconds(value, expected):
    now = 1956528000.0  # 2032-01-01T00:00:00Z
    assert parse_retry_after(value, now=now) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("text/html; charset=ISO-8859-1", ("text/html", "iso-8859-1")),
        ("application/xhtml+xml", ("application/xhtml+xml", None)),
        ("text/plain;charset='utf-8';format=flowed", ("text/plain", "utf-8")),
        ("", ("", None)),
    ],
)
def test_content_type_header_splits_into_mime_and_charset(header, expected):
    assert parse_content_type(header) == expected


def test_summary_is_json_friendly_and_leaves_the_body_out(server, fetcher):
    server.expect_request("/a").respond_with_data("", status=301, headers={"Location": "/b"})
    server.expect_request("/b").respond_with_data("body text")
    summary = fetcher.fetch(server.url_for("/a")).as_dict()
    assert "body" not in summary
    assert summary["redirects"] == [
        {"url": server.url_for("/a"), "status": 301, "location": server.url_for("/b")}
    ]
    assert json.loads(json.dumps(summary))["status"] == 200


def test_fetches_from_a_thread_pool_each_get_their_own_page(server):
    for i in range(30):
        server.expect_request(f"/p/{i}").respond_with_data(f"page {i}")
    with Fetcher(FetchPolicy(pool_size=5, allowed_networks=("127.0.0.0/8",))) as fetcher:
        with ThreadPoolExecutor(max_workers=5) as pool:
            results = list(pool.map(fetcher.fetch, [server.url_for(f"/p/{i}") for i in range(30)]))
    assert [r.body for r in results] == [f"page {i}".encode() for i in range(30)]
    assert all(r.error_kind == "" for r in results)


def test_cookies_are_not_sent_back(server, fetcher):
    server.expect_request("/set").respond_with_data("", headers={"Set-Cookie": "session=abc; Path=/"})
    server.expect_request("/next").respond_with_data("ok")
    fetcher.fetch(server.url_for("/set"))
    fetcher.fetch(server.url_for("/next"))
    assert "Cookie" not in server.log[1][0].headers
