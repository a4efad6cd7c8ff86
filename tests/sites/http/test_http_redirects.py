"""Redirects are followed by hand, hop by hop, with loops and long chains stopped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer

from sites.http import ErrorKind, Fetcher, FetchPolicy, Hop


def _fetcher(**policy: object) -> Fetcher:
    return Fetcher(FetchPolicy(timeout=5.0, allowed_networks=("127.0.0.0/8",), **policy))  # type: ignore[arg-type]


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with _fetcher() as f:
        yield f


@pytest.fixture
def server(httpserver_ipv4: HTTPServer) -> HTTPServer:
    return httpserver_ipv4


def _redirect(server: HTTPServer, path: str, location: str, status: int = 301) -> None:
    server.expect_request(path).respond_with_data("", status=status, headers={"Location": location})


def test_redirect_chain_is_recorded_hop_by_hop(server, fetcher):
    _redirect(server, "/a", server.url_for("/b"), 301)
    _redirect(server, "/b", server.url_for("/c"), 302)
    server.expect_request("/c").respond_with_data("done", content_type="text/html")

    result = fetcher.fetch(server.url_for("/a"))

    assert result.redirects == [
        Hop(url=server.url_for("/a"), status=301, location=server.url_for("/b")),
        Hop(url=server.url_for("/b"), status=302, location=server.url_for("/c")),
    ]
    assert (result.final_url, result.status, result.body, result.error_kind) == (
        server.url_for("/c"),
        200,
        b"done",
        "",
    )
    assert result.url == server.url_for("/a")


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_every_redirect_status_is_followed(server, fetcher, status):
    _redirect(server, "/from", "/to", status)
    server.expect_request("/to", method="GET").respond_with_data("arrived")
    result = fetcher.fetch(server.url_for("/from"))
    assert result.body == b"arrived"
    assert result.redirects[0].status == status


@pytest.mark.parametrize(
    ("location", "expected_path"),
    [("../b?x=1", "/b?x=1"), ("next", "/dir/next"), ("/top", "/top")],
)
def test_relative_location_is_resolved_against_the_requested_url(server, fetcher, location, expected_path):
    _redirect(server, "/dir/a", location)
    server.expect_request(expected_path.split("?")[0]).respond_with_data("ok")
    result = fetcher.fetch(server.url_for("/dir/a"))
    assert result.redirects[0].location == server.url_for(expected_path)
    assert result.final_url == server.url_for(expected_path)
    assert result.status == 200


def test_redirect_loop_is_detected_and_described(server, fetcher):
    x, y = server.url_for("/x"), server.url_for("/y")
    _redirect(server, "/x", y)
    _redirect(server, "/y", x, 302)

    result = fetcher.fetch(x)

    assert result.error_kind == ErrorKind.REDIRECT_LOOP
    assert result.error == f"Redirect loop: {x} -> {y} -> {x}"
    assert [hop.location for hop in result.redirects] == [y, x]
    assert (result.final_url, result.status) == (y, 302)


def _chain(server: HTTPServer, hops: int) -> str:
    for i in range(hops):
        _redirect(server, f"/r/{i}", f"/r/{i + 1}")
    server.expect_request(f"/r/{hops}").respond_with_data("end of chain")
    return server.url_for("/r/0")


def test_twenty_redirects_are_followed(server, fetcher):
    result = fetcher.fetch(_chain(server, 20))
    assert result.error_kind == ""
    assert result.body == b"end of chain"
    assert len(result.redirects) == 20


def test_twenty_one_redirects_are_too_many_and_the_chain_is_kept(server, fetcher):
    result = fetcher.fetch(_chain(server, 21))
    assert result.error_kind == ErrorKind.TOO_MANY_REDIRECTS
    assert result.error == "More than 20 redirects"
    assert len(result.redirects) == 21
    assert result.redirects[-1] == Hop(server.url_for("/r/20"), 301, server.url_for("/r/21"))
    assert result.final_url == server.url_for("/r/20")


def test_max_redirects_zero_refuses_the_first_redirect(server):
    _redirect(server, "/a", "/b")
    with _fetcher(max_redirects=0) as fetcher:
        result = fetcher.fetch(server.url_for("/a"))
    assert result.error_kind == ErrorKind.TOO_MANY_REDIRECTS
    assert result.redirects == [Hop(server.url_for("/a"), 301, server.url_for("/b"))]
    assert (result.final_url, result.status) == (server.url_for("/a"), 301)
    assert len(server.log) == 1


def test_redirect_status_without_location_is_a_final_response(server, fetcher):
    server.expect_request("/multi").respond_with_data("pick one", status=300)
    result = fetcher.fetch(server.url_for("/multi"))
    assert (result.status, result.error_kind, result.redirects, result.body) == (300, "", [], b"pick one")


def test_redirect_to_another_scheme_stops_with_invalid_url(server, fetcher):
    _redirect(server, "/a", "ftp://files.example.com/x")
    result = fetcher.fetch(server.url_for("/a"))
    assert result.error_kind == ErrorKind.INVALID_URL
    assert "ftp://files.example.com/x" in result.error
    assert result.redirects == [Hop(server.url_for("/a"), 301, "ftp://files.example.com/x")]


def test_redirect_body_is_not_returned_as_the_page(server, fetcher):
    server.expect_request("/a").respond_with_data(
        "<p>Moved</p>", status=302, headers={"Location": "/b"}, content_type="text/html"
    )
    server.expect_request("/b").respond_with_data("real page", content_type="text/plain")
    result = fetcher.fetch(server.url_for("/a"))
    assert (result.body, result.content_type) == (b"real page", "text/plain")
