"""SiteForm and ShareForm: what a user may type, and the errors they see."""

from __future__ import annotations

import pytest

from sites.forms import PageFilterForm, ShareForm, SiteForm


def site_form(**data) -> SiteForm:
    return SiteForm(data={"obey_robots": "on", "check_external": "on", **data})


@pytest.mark.parametrize(
    "url", ["ftp://x", "not a url", "http://", "javascript:alert(1)", "mailto:a@b.c", ""]
)
def test_site_form_rejects_what_is_not_an_http_url_with_a_host(url):
    form = site_form(url=url)

    assert not form.is_valid()
    assert "url" in form.errors


def test_site_form_explains_the_url_error_in_words():
    form = site_form(url="ftp://x")

    form.is_valid()
    assert "http:// or https:// URL with a host name" in form.errors["url"][0]


def test_site_form_normalizes_the_url_and_takes_a_bare_host_as_https():
    form = site_form(url="example.com")

    assert form.is_valid(), form.errors
    assert form.cleaned_data["url"] == "https://example.com/"
    form = site_form(url="HTTP://Example.COM:80/a/../b")
    form.is_valid()
    assert form.cleaned_data["url"] == "http://example.com/b"


def test_site_form_names_the_line_of_a_bad_include_pattern():
    form = site_form(url="https://example.com/", include_patterns="^/docs/\n[unclosed\n")

    assert not form.is_valid()
    message = form.errors["include_patterns"][0]
    assert "line 2" in message
    assert "[unclosed" in message


def test_site_form_names_the_line_of_a_bad_exclude_pattern():
    form = site_form(url="https://example.com/", exclude_patterns="\n\n(a")

    assert not form.is_valid()
    assert "line 3" in form.errors["exclude_patterns"][0]


def test_site_form_accepts_valid_patterns_and_settings_in_range():
    form = site_form(
        url="https://example.com/",
        include_patterns="^https://example.com/docs/\n\\.html$",
        max_pages="10",
        max_depth="0",
        concurrency="32",
        delay="60",
    )

    assert form.is_valid(), form.errors
    assert form.crawl_settings() == {
        "max_pages": 10,
        "max_depth": 0,
        "include_patterns": "^https://example.com/docs/\n\\.html$",
        "exclude_patterns": "",
        "concurrency": 32,
        "delay": 60.0,
        "obey_robots": True,
        "check_external": True,
        "external_cache_hours": None,
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("concurrency", "0"),
        ("concurrency", "33"),
        ("delay", "-1"),
        ("delay", "60.5"),
        ("max_pages", "0"),
        ("max_depth", "-1"),
        ("external_cache_hours", "-1"),
        ("external_cache_hours", "8761"),
        ("external_cache_hours", "nan"),
    ],
)
def test_site_form_rejects_settings_out_of_range(field, value):
    form = site_form(url="https://example.com/", **{field: value})

    assert not form.is_valid()
    assert field in form.errors


def test_site_form_leaves_blank_settings_to_the_deployment_default():
    form = site_form(url="https://example.com/")

    assert form.is_valid(), form.errors
    settings = form.crawl_settings()
    assert settings["max_pages"] is None and settings["concurrency"] is None and settings["delay"] is None


def test_share_form_requires_a_username():
    assert not ShareForm(data={"username": ""}).is_valid()
    assert ShareForm(data={"username": "alice"}).is_valid()


def test_page_filter_form_ignores_an_unknown_status_but_keeps_the_other_filters():
    page_filter = PageFilterForm(
        data={"status": "9xx", "scope": "external", "broken": "on", "q": " /docs "}
    ).page_filter()

    assert page_filter.status == ""
    assert page_filter.scope == "external"
    assert page_filter.broken is True
    assert page_filter.search == "/docs"


def test_page_filter_form_takes_a_known_verdict_and_ignores_an_unknown_one():
    assert PageFilterForm(data={"verdict": "soft404"}).page_filter().verdict == "soft404"
    page_filter = PageFilterForm(data={"verdict": "zombie", "scope": "internal"}).page_filter()

    assert page_filter.verdict == ""
    assert page_filter.scope == "internal"
    assert page_filter.active is True
