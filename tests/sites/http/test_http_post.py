"""A JSON POST goes once through the same guard, timeout and caps as a GET, and is never re-sent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer

from sites.http import ErrorKind, Fetcher, FetchPolicy, Hop

PAYLOAD = {"host": "www.example.org", "urlList": ["https://www.example.org/é"]}


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(FetchPolicy(timeout=5.0, allowed_networks=("127.0.0.0/8",))) as f:
        yield f


@pytest.fixture
def server(httpserver_ipv4: HTTPServer) -> HTTPServer:
    return httpserver_ipv4


def test_payload_is_sent_as_one_utf8_json_post(server, fetcher):
    server.expect_request("/api", method="POST").respond_with_data("thanks", status=202)
    result = fetcher.post_json(server.url_for("/api"), PAYLOAD)
    [(request, _)] = server.log
    assert request.headers["Content-Type"] == "application/json; charset=utf-8"
    assert request.get_json() == PAYLOAD
    assert (result.status, result.body, result.error_kind, result.redirects) == (202, b"thanks", "", [])


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_answer_is_reported_and_not_followed(server, fetcher, status):
    url, elsewhere = server.url_for("/api"), server.url_for("/elsewhere")
    server.expect_request("/api").respond_with_data(
        "moved", status=status, headers={"Location": "/elsewhere"}
    )
    server.expect_request("/elsewhere").respond_with_data("should not be asked")
    result = fetcher.post_json(url, PAYLOAD)
    assert [request.path for request, _ in server.log] == ["/api"]
    assert result.error_kind == ErrorKind.REDIRECT_NOT_FOLLOWED
    assert result.error == f"HTTP {status} redirect to {elsewhere} not followed: a POST is not re-sent"
    assert result.redirects == [Hop(url=url, status=status, location=elsewhere)]
    assert (result.final_url, result.status, result.body) == (url, status, b"")


def test_a_post_to_localhost_is_blocked_after_dns_resolution(server):
    server.expect_request("/api").respond_with_data("secret")
    with Fetcher(FetchPolicy()) as fetcher:
        result = fetcher.post_json(f"http://localhost:{server.port}/api", PAYLOAD)
    assert result.error_kind == ErrorKind.BLOCKED_ADDRESS
    assert result.error == "Address 127.0.0.1 of host localhost is loopback; not fetched"
    assert (result.status, server.log) == (None, [])


def test_a_huge_answer_is_cut_at_the_size_cap(server, fetcher):
    server.expect_request("/api").respond_with_data(b"a" * 2_000_000)
    result = fetcher.post_json(server.url_for("/api"), PAYLOAD, max_bytes=1000)
    assert result.error_kind == ErrorKind.TOO_LARGE
    assert (result.status, result.body) == (200, b"a" * 1000)


def test_an_invalid_url_is_reported_without_a_request(fetcher):
    result = fetcher.post_json("ftp://example.com/api", PAYLOAD)
    assert result.error_kind == ErrorKind.INVALID_URL
    assert "unsupported scheme 'ftp'" in result.error
