"""robots.txt: where it lives, what each fetch outcome means (RFC 9309), and what it allows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer

from sites.http import Fetcher, FetchPolicy, FetchResult, RobotsRules, parse_robots, robots_url

UA = "webaudit/0.1 (+https://example.com/about)"

ROBOTS = """\
User-agent: *
Disallow: /

User-agent: WebAudit
Disallow: /private/
Allow: /private/open.html
Crawl-delay: 2.5

User-agent: example
Disallow: /
"""


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(FetchPolicy(timeout=3.0, allowed_networks=("127.0.0.0/8",))) as f:
        yield f


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://Example.com/a/b?c=d#e", "https://example.com/robots.txt"),
        ("https://example.com:443/a", "https://example.com/robots.txt"),
        ("http://example.com:8080/x", "http://example.com:8080/robots.txt"),
        ("http://user:pw@example.com/", "http://example.com/robots.txt"),
        ("http://[::1]:8080/", "http://[::1]:8080/robots.txt"),
    ],
)
def test_robots_url_is_the_root_of_the_origin(url, expected):
    assert robots_url(url) == expected


def test_robots_text_of_a_200_is_kept(httpserver_ipv4: HTTPServer, fetcher):
    httpserver_ipv4.expect_request("/robots.txt").respond_with_data(
        "\ufeff" + ROBOTS, content_type="text/plain"
    )
    assert parse_robots(fetcher.fetch(httpserver_ipv4.url_for("/robots.txt"))) == ROBOTS


@pytest.mark.parametrize("status", [401, 403, 404, 410])
def test_robots_answering_4xx_allows_everything(httpserver_ipv4: HTTPServer, fetcher, status):
    httpserver_ipv4.expect_request("/robots.txt").respond_with_data("nope", status=status)
    assert parse_robots(fetcher.fetch(httpserver_ipv4.url_for("/robots.txt"))) == ""


@pytest.mark.parametrize("status", [429, 500, 503])
def test_robots_answering_5xx_or_429_disallows_everything(httpserver_ipv4: HTTPServer, fetcher, status):
    httpserver_ipv4.expect_request("/robots.txt").respond_with_data("down", status=status)
    assert parse_robots(fetcher.fetch(httpserver_ipv4.url_for("/robots.txt"))) is None


def test_unreachable_robots_disallows_everything(fetcher, closed_port):
    result = fetcher.fetch(f"http://127.0.0.1:{closed_port}/robots.txt")
    assert result.error_kind == "connect"
    assert parse_robots(result) is None


def test_robots_redirect_loop_counts_as_unavailable_and_allows_everything(
    httpserver_ipv4: HTTPServer, fetcher
):
    httpserver_ipv4.expect_request("/robots.txt").respond_with_data(
        "", status=301, headers={"Location": "/r"}
    )
    httpserver_ipv4.expect_request("/r").respond_with_data(
        "", status=301, headers={"Location": "/robots.txt"}
    )
    assert parse_robots(fetcher.fetch(httpserver_ipv4.url_for("/robots.txt"))) == ""


def test_robots_over_the_cap_keeps_its_first_500_kib():
    body = b"User-agent: *\nDisallow: /x\n" + b"#" * 600_000
    result = FetchResult(url="u", final_url="u", status=200, body=body, error_kind="too_large")
    text = parse_robots(result)
    assert text is not None and text.startswith("User-agent: *") and len(text) == 500 * 1024


def test_rules_follow_the_group_of_our_product_token_case_insensitively():
    rules = RobotsRules(ROBOTS, UA)
    assert rules.allowed("https://example.com/page")
    assert not rules.allowed("https://example.com/private/secret.html")
    assert rules.allowed("https://example.com/private/open.html")
    assert rules.crawl_delay() == 2.5


def test_other_agents_fall_back_to_the_star_group():
    rules = RobotsRules(ROBOTS, "otherbot/2.0")
    assert not rules.allowed("https://example.com/page")
    assert rules.crawl_delay() is None


def test_words_in_our_user_agent_comment_do_not_select_a_group():
    # UA mentions example.com; the "example" group must not apply to us.
    rules = RobotsRules("User-agent: example\nDisallow: /\n", UA)
    assert rules.allowed("https://example.com/page")


def test_no_robots_text_disallows_everything():
    rules = RobotsRules(None, UA)
    assert not rules.allowed("https://example.com/")
    assert rules.crawl_delay() is None


def test_empty_robots_text_allows_everything():
    rules = RobotsRules("", UA)
    assert rules.allowed("https://example.com/anything?at=all")
    assert rules.crawl_delay() is None
