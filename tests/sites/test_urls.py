"""The URL a link leads to, the key of its page, and the crawl scope."""

import time
from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sites.crawler.urls import CrawlScope, PatternError, compile_patterns, link_url, normalize_url, site_key
from sites.models import page_key


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTP://Example.COM:80/a/../b/./c?b=2&a=1#frag", "http://example.com/b/c?b=2&a=1"),
        ("https://example.com:443", "https://example.com/"),
        ("http://example.com:8080/x", "http://example.com:8080/x"),
        ("http://user:secret@example.com/x", "http://example.com/x"),
        ("http://example.com/%7euser/a%2fb", "http://example.com/%7euser/a%2fb"),
        (
            "http://example.com/doc?p=ref/models/constraints",
            "http://example.com/doc?p=ref/models/constraints",
        ),
        (
            "http://example.com/doc?p=ref%2Fmodels&q=a+b%20c",
            "http://example.com/doc?p=ref%2Fmodels&q=a+b%20c",
        ),
        ("http://example.com/café?q=é", "http://example.com/caf%C3%A9?q=%C3%A9"),
        ("http://example.com/a\n/b\t", "http://example.com/a/b"),
        ("http://example.com/a b", "http://example.com/a%20b"),
        ("http://example.com/dir/", "http://example.com/dir/"),
        ("http://example.com/a/..", "http://example.com/"),
        ("http://[::1]:8000/x", "http://[::1]:8000/x"),
    ],
)
def test_a_link_is_fetched_as_written_with_only_changes_a_server_cannot_see(raw, expected):
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
    with pytest.raises(PatternError, match="line 2"):
        compile_patterns("ok\n(unclosed\n")


def test_patterns_that_need_backtracking_are_refused_with_the_reason():
    with pytest.raises(PatternError, match="back references"):
        compile_patterns("(a)\\1")
    with pytest.raises(PatternError, match="look-ahead"):
        compile_patterns("foo(?!bar)")
    with pytest.raises(PatternError, match="at most 500"):
        compile_patterns("a" * 501)
    with pytest.raises(PatternError, match="more than 100 patterns"):
        compile_patterns("\n".join(f"p{n}" for n in range(101)))


def test_a_catastrophic_pattern_runs_in_linear_time():
    scope = CrawlScope.from_text("http://example.com/", exclude="(a+)+$")
    started = time.monotonic()
    # Python's re takes minutes on this (2^40 ways to split the a's); RE2 answers at once.
    assert scope.contains("http://example.com/" + "a" * 40 + "!")
    assert not scope.contains("http://example.com/" + "a" * 40)
    assert time.monotonic() - started < 1


def test_the_query_orders_of_one_page_share_its_key_but_not_its_url():
    first, second = link_url("http://example.com/s?b=2&a=1"), link_url("http://example.com/s?a=1&b=2")
    assert first != second
    assert page_key(first) == page_key(second)
    assert page_key("http://example.com/d?p=ref/x") == page_key("http://example.com/d?p=ref%2Fx")
    assert page_key("http://example.com/d?p=ref/x") != page_key("http://example.com/d?p=ref/y")


def test_spaces_before_a_fragment_stay_in_the_url_as_a_browser_keeps_them():
    assert link_url("http://example.com/ #top") == "http://example.com/%20"
    assert link_url("http://example.com/a?q=1  #x") == "http://example.com/a?q=1%20%20"
    assert page_key("http://example.com/ #top") == page_key(link_url("http://example.com/ #top"))
    assert link_url("  http://example.com/a  ") == "http://example.com/a"  # the ends of the href: stripped


# Property-based: URLs of the kinds pages write, including what a server may read literally.
_UNRESERVED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"
_segment = st.text(alphabet=_UNRESERVED + "!$'()*,;:@%+é ", max_size=12)
_query_value = st.one_of(
    st.text(alphabet=_UNRESERVED + "/:@!$*,;", max_size=16),
    st.sampled_from(["ref%2Fmodels", "a+b", "a%20b", "%E2%82%AC", "x%2B1", "", "a/b/c"]),
)
_query_name = st.text(alphabet="abcdefgxyz_", min_size=1, max_size=5)
_query = st.lists(st.tuples(_query_name, _query_value), max_size=5).map(
    lambda pairs: "&".join(f"{name}={value}" for name, value in pairs)
)
_host = st.sampled_from(["example.com", "Example.COM", "a.b.example.org", "127.0.0.1", "[::1]", "h:8080"])
_path = st.lists(_segment, max_size=5).map(lambda segments: "/" + "/".join(segments))


@st.composite
def _urls(draw):
    scheme = draw(st.sampled_from(["http", "https", "HTTP"]))
    query = draw(_query)
    fragment = draw(st.sampled_from(["", "#top", "#a/b?c"]))
    return f"{scheme}://{draw(_host)}{draw(_path)}{'?' + query if query else ''}{fragment}"


@settings(max_examples=300, deadline=None)
@given(_urls())
def test_link_url_is_idempotent(url):
    once = link_url(url)
    assert once is not None and link_url(once) == once


@settings(max_examples=300, deadline=None)
@given(_host, _path, _query)
def test_link_url_never_reorders_or_reencodes_a_query_a_url_can_carry(host, path, query):
    # These queries hold only characters a URL carries as they are: nothing may change, not even %2F or +.
    url = link_url(f"http://{host}{path}?{query}") if query else None
    if url is not None:
        assert urlsplit(url).query == query


@settings(max_examples=300, deadline=None)
@given(
    _urls(), st.lists(st.sampled_from(["a", "b", "..", ".", "c%2Fd", "x y"]), min_size=1, max_size=4), _query
)
def test_relative_references_resolve_as_urljoin_does(base, segments, query):
    base = link_url(base)
    reference = "/".join(segments) + (f"?{query}" if query else "")
    assert link_url(reference, base) == link_url(urljoin(base, reference))


@settings(max_examples=300, deadline=None)
@given(_urls())
def test_the_page_key_is_stable_across_the_forms_of_one_url(url):
    once = link_url(url)
    assert page_key(url) == page_key(once)
    parts = urlsplit(once)
    if parts.query:
        reversed_query = "&".join(reversed(parts.query.split("&")))
        assert page_key(parts._replace(query=reversed_query).geturl()) == page_key(once)
