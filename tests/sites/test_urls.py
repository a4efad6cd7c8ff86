"""URL normalization and crawl scope."""

import re

import pytest

from sites.crawler.urls import CrawlScope, compile_patterns, normalize_url, site_key


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTP://Example.COM:80/a/../b/./c?b=2&a=1#frag", "http://example.com/b/c?a=1&b=2"),
        ("https://example.com:443", "https://example.com/"),
        ("http://example.com:8080/x", "http://example.com:8080/x"),
        ("http://user:secret@example.com/x", "http://example.com/x"),
        ("http://example.com/%7euser/a%2fb", "http://example.com/~user/a%2Fb"),
        ("http://example.com/a b", "http://example.com/a%20b"),
        ("http://example.com/dir/", "http://example.com/dir/"),
        ("http://example.com/a/..", "http://example.com/"),
        ("http://[::1]:8000/x", "http://[::1]:8000/x"),
    ],
)
def test_normalize_url_gives_one_form_per_page(raw, expected):
    assert normalize_url(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "mailto:a@b.c",
        "javascript:void(0)",
        "ftp://example.com/",
        "http://",
        "http://:80/",
        "http://exa mple.com/",
        "http://example.com:99999/",
        "http://[::1/",
        "data:text/html,hi",
        "//",
    ],
)
def test_normalize_url_rejects_what_cannot_be_crawled(raw):
    assert normalize_url(raw) is None


def test_relative_links_resolve_against_their_base():
    assert normalize_url("../up.html#x", "http://example.com/a/b/page.html") == "http://example.com/a/up.html"
    assert normalize_url("?q=1", "http://example.com/a/") == "http://example.com/a/?q=1"
    assert normalize_url("//other.org/x", "https://example.com/") == "https://other.org/x"


def test_http_and_https_of_one_host_are_one_site_but_other_ports_are_not():
    assert site_key("http://example.com/a") == site_key("https://example.com/b") == "example.com"
    assert site_key("http://example.com:8080/") == "example.com:8080"


def test_scope_keeps_the_start_host_and_applies_include_then_exclude():
    scope = CrawlScope.from_text("http://example.com/", include="/docs/", exclude="\\.pdf$")
    assert scope.contains("http://example.com/")  # the start URL always
    assert scope.contains("https://example.com/docs/a")
    assert not scope.contains("http://example.com/blog/")
    assert not scope.contains("http://example.com/docs/a.pdf")
    assert not scope.contains("http://sub.example.com/docs/")


def test_a_bad_pattern_is_reported_with_its_line():
    with pytest.raises(re.error, match="line 2"):
        compile_patterns("ok\n(unclosed\n")
