"""The page readers' extractor hook: analyses read what they need from each page while the crawl has it
parsed, stored per page, backfilled from stored bodies for older crawls (docs/analysis-jobs.md)."""

from __future__ import annotations

import pytest

from sites.crawler.extractors import extractors_check
from sites.models import Page, PageExtract
from sites.services.extracts import ExtractorUnknown, page_extracts, page_extracts_backfill
from tests.sites.sitebuilder import html, serve_site

pytestmark = pytest.mark.django_db

TITLES = "tests.sites.extractors:title_and_size"


@pytest.fixture
def small_site(httpserver) -> str:
    return serve_site(
        httpserver,
        {"/": html("Home", "/a", "/b", "/missing"), "/a": html("A", "/"), "/b": html("B", "/a")},
    )


def extracts_by_path(crawl, name: str, root: str) -> dict[str, bytes]:
    urls = dict(Page.objects.filter(crawl=crawl).values_list("pk", "url"))
    return {urls[page_id].removeprefix(root): data for page_id, data in page_extracts(crawl=crawl, name=name)}


@pytest.mark.parametrize("readers", [0, 1])
def test_each_html_page_gets_its_extract_written_with_it(small_site, crawl_site, settings, readers):
    settings.WEBAUDIT_PAGE_READERS = readers
    settings.WEBAUDIT_PAGE_EXTRACTORS = {"titles": TITLES, "empty": "tests.sites.extractors:nothing"}
    crawl = crawl_site(small_site)
    assert crawl.settings["extractors"] == [["titles", TITLES], ["empty", "tests.sites.extractors:nothing"]]
    found = extracts_by_path(crawl, "titles", small_site)
    assert set(found) == {"", "a", "b"}  # the 404 page has no reading
    assert found["a"].decode().startswith(f"A|{small_site}a|")
    assert not PageExtract.objects.filter(name="empty").exists()  # None stores nothing


def test_an_extractor_that_fails_loses_only_its_own_result_for_that_page(small_site, crawl_site, settings):
    settings.WEBAUDIT_PAGE_READERS = 1
    settings.WEBAUDIT_PAGE_EXTRACTORS = {"titles": TITLES, "broken": "tests.sites.extractors:broken"}
    crawl = crawl_site(small_site)
    assert set(extracts_by_path(crawl, "broken", small_site)) == {"", "b"}
    assert set(extracts_by_path(crawl, "titles", small_site)) == {"", "a", "b"}
    assert Page.objects.get(crawl=crawl, url=small_site + "a").title == "A"


def test_a_site_the_extractor_does_not_want_is_crawled_without_it(small_site, crawl_site, settings):
    settings.WEBAUDIT_PAGE_EXTRACTORS = {"titles": TITLES}
    crawl = crawl_site(small_site, site_settings={"name": "no extracts"})
    assert crawl.settings["extractors"] == []
    assert not PageExtract.objects.exists()


def test_an_older_crawl_is_backfilled_from_its_stored_bodies(small_site, crawl_site, settings):
    settings.WEBAUDIT_PAGE_EXTRACTORS = {}
    crawl = crawl_site(small_site)
    assert not PageExtract.objects.exists()

    settings.WEBAUDIT_PAGE_EXTRACTORS = {"titles": TITLES}
    assert page_extracts_backfill(crawl=crawl, name="titles", limit=2) == 2
    assert page_extracts_backfill(crawl=crawl, name="titles") == 1
    assert page_extracts_backfill(crawl=crawl, name="titles") == 0
    backfilled = extracts_by_path(crawl, "titles", small_site)
    assert set(backfilled) == {"", "a", "b"} and backfilled["b"].decode().startswith("B|")


def test_a_backfill_of_an_unknown_extractor_is_refused(small_site, crawl_site):
    crawl = crawl_site(small_site)
    with pytest.raises(ExtractorUnknown, match="no page extractor named 'nope'"):
        page_extracts_backfill(crawl=crawl, name="nope")


@pytest.mark.parametrize(
    ("configured", "message"),
    [
        ({"x": "tests.sites.extractors"}, "is not of the form"),
        ({"x": "tests.sites.no_such_module:f"}, "No module named"),
        ({"x": "tests.sites.extractors:missing"}, "has no attribute 'missing'"),
        ({"a-name-longer-than-16": TITLES}, "longer than 16 bytes"),
    ],
)
def test_a_misconfigured_extractor_stops_the_app_with_its_name(configured, message):
    with pytest.raises((ValueError, ImportError, AttributeError), match=message):
        extractors_check(configured)
