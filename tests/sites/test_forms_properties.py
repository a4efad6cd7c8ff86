"""SiteForm against whatever a user may type (hypothesis): a clear field error or a value the crawl can use,
never an exception, and a pattern it accepts runs in linear time."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sites.crawler.urls import CrawlScope, compile_patterns, link_url
from sites.forms import SiteForm
from sites.http.urls import url_problem

pytestmark = pytest.mark.django_db

_url_text = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda scheme, host, rest: f"{scheme}{host}{rest}",
        st.sampled_from(["http://", "https://", "HTTP://", "", "ftp://", "//"]),
        st.one_of(
            st.sampled_from(
                ["example.com", "a..b", "a" * 64 + ".com", "127.0.0.1:8000", "[::1]", "xn--caf-dma.fr"]
            ),
            st.text(alphabet="abc.-:@[]%", max_size=12),
        ),
        st.text(alphabet="/?&=#%+ aé2F", max_size=20),
    ),
)
_pattern_text = st.one_of(
    st.text(max_size=40),
    st.lists(
        st.sampled_from(
            ["(a+)+$", "(a|aa)*b", "\\.pdf$", "[", "(?=x)", "(a)\\1", "^/docs/", "x{1000}{1000}"]
        ),
        max_size=4,
    ).map("\n".join),
)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def form_for(**data) -> SiteForm:
    return SiteForm(data={"obey_robots": "on", "check_external": "on", "url": "https://example.com/", **data})


@FAST
@given(_url_text)
def test_any_start_url_gets_a_field_error_or_a_url_the_crawl_fetches_as_is(text):
    form = form_for(url=text)
    if form.is_valid():
        url = form.cleaned_data["url"]
        assert link_url(url) == url and url_problem(url) is None
    else:
        assert set(form.errors) == {"url"} and form.errors["url"][0]


@FAST
@given(_pattern_text, _pattern_text)
def test_any_patterns_get_a_field_error_or_run_in_linear_time(include, exclude):
    form = form_for(include_patterns=include, exclude_patterns=exclude)
    if not form.is_valid():
        assert set(form.errors) <= {"include_patterns", "exclude_patterns"}
        assert all(message for messages in form.errors.values() for message in messages)
        return
    scope = CrawlScope("https://example.com/", compile_patterns(include), compile_patterns(exclude))
    started = time.monotonic()
    scope.contains("https://example.com/" + "a" * 5000 + "!")
    assert time.monotonic() - started < 1  # a backtracking engine takes minutes on (a+)+$ here
