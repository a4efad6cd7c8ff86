"""Integration: crawling the shared test bed's real documentation sites."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from sites.models import Crawl, Link, Page
from tests.sites.testbed_oracle import expected_first_status, paths_requested_by, reachable_urls

pytestmark = [pytest.mark.django_db, pytest.mark.testbed]


def test_honest_site_crawl_finds_every_page_reachable_by_links_once_with_its_status(testbed, crawl_site):
    agent = f"webaudit-test/{uuid.uuid4().hex[:8]}"
    crawl = crawl_site(
        testbed["honest"],
        site_settings={"check_external": False},
        concurrency=8,
        max_pages=100_000,
        user_agent=agent,
    )
    assert crawl.status == Crawl.Status.FINISHED, crawl.error

    pages = list(Page.objects.filter(crawl=crawl).values("url", "status_code", "redirects", "state", "title"))
    assert {page["url"] for page in pages} == reachable_urls(testbed["honest"])
    assert len(pages) > 500 and all(page["state"] == "done" for page in pages)
    for page in pages:
        first = page["redirects"][0]["status"] if page["redirects"] else page["status_code"]
        assert first == expected_first_status(page["url"]), page["url"]

    requested = Counter(paths_requested_by(agent))
    assert requested["/robots.txt"] == 1
    assert [path for path, times in requested.items() if times > 1] == []
    assert sum(requested.values()) == crawl.requests_made
    # The gzip-only pages Debian ships are genuine dead links, reported with the page that links to them.
    broken = Link.objects.filter(crawl=crawl, target__status_code=404)
    assert broken.exists() and all(link.source.status_code == 200 for link in broken[:20])


def test_redirect_to_home_is_recorded_hop_by_hop(testbed, crawl_site):
    missing = testbed["redirect_home"] + "no-such-page-qzxv/"
    crawl = crawl_site(missing, max_pages=3)
    start = Page.objects.get(crawl=crawl, depth=0)
    assert start.redirects == [{"url": missing, "status": 302, "location": testbed["redirect_home"]}]
    assert (start.status_code, start.final_url) == (200, testbed["redirect_home"])
    assert "Django" in start.title


def test_a_directory_without_its_slash_redirects_once_to_it(testbed, crawl_site):
    crawl = crawl_site(testbed["honest"] + "library", max_pages=1)
    start = Page.objects.get(crawl=crawl, depth=0)
    assert [(hop["status"], hop["location"]) for hop in start.redirects] == [
        (301, testbed["honest"] + "library/")
    ]
    assert start.status_code == 200
