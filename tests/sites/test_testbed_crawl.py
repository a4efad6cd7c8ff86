"""Integration: crawling the shared test bed's real documentation sites."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from sites.models import Crawl, Link, Page
from tests.sites.recrawl_site import crawl_snapshot
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


def test_soft404_pages_get_their_verdict_and_lead_the_crawl_nowhere(testbed, crawl_site):
    """The SPA-fallback site serves the honest site's tree; what is a 404 there is a soft-404 here."""
    honest = crawl_site(testbed["honest"], site_settings={"check_external": False}, concurrency=8)
    spa = crawl_site(testbed["spa"], site_settings={"check_external": False}, concurrency=8)

    def by_path(crawl):
        return {page.url.split("/", 3)[3]: page for page in Page.objects.filter(crawl=crawl)}

    honest_pages, spa_pages = by_path(honest), by_path(spa)
    # No soft-404 page's links were followed: the SPA crawl found exactly the honest crawl's URLs.
    assert set(spa_pages) == set(honest_pages)
    dead_there = {path for path, page in honest_pages.items() if page.status_code == 404}
    assert (
        dead_there and {path for path, page in spa_pages.items() if page.verdict == "soft404"} == dead_there
    )
    assert all(
        page.verdict == "dead" and page.verdict_reason == "HTTP 404"
        for page in (honest_pages[path] for path in dead_there)
    )
    soft = next(spa_pages[path] for path in dead_there)
    assert soft.status_code == 200 and soft.verdict_reason.startswith("probe:")
    assert soft.probe["resemblance"] >= 0.8 and not Link.objects.filter(source=soft).exists()
    assert {page.verdict for path, page in spa_pages.items() if path not in dead_there} <= {"ok"}
    # One probe per directory: the extra requests are few.
    assert spa.requests_made / spa.pages_done <= 1.1


def test_a_lookup_site_crawl_matches_the_truth_and_its_failed_lookups_are_soft404_by_the_query_probe(
    testbed, crawl_site
):
    """8107 answers /page?id=X with /X.html, an unknown id with a 200 German lookup page, unknown paths 404."""
    lookup = testbed["lookup"]
    real = crawl_site(lookup + "page?id=tutorial-sql", site_settings={"check_external": False}, concurrency=8)
    assert real.status == Crawl.Status.FINISHED, real.error
    pages = list(Page.objects.filter(crawl=real))
    start = next(page for page in pages if page.depth == 0)
    assert start.verdict == "ok" and start.probe["kind"] == "query" and start.probe["status"] == 200
    # Every other page is a real /X.html of the postgres docs (ok) or a genuine dead link (404).
    assert len(pages) > 300
    assert {(page.verdict, page.status_code) for page in pages} <= {("ok", 200), ("dead", 404)}
    assert real.requests_made / real.pages_done < 1.15

    gone = crawl_site(lookup + "page?id=gonegonegone", site_settings={"check_external": False})
    start = Page.objects.get(crawl=gone, depth=0)
    assert start.verdict == "soft404" and start.verdict_reason.startswith("query probe (id): ")
    assert not Link.objects.filter(source=start).exists() and gone.pages_done == 1


def test_a_recrawl_of_an_unchanged_testbed_site_is_answered_304_for_at_least_nine_pages_in_ten(testbed, user):
    from sites.services.crawls import crawl_run, crawl_start
    from sites.services.sites import site_create

    site = site_create(owner=user, url=testbed["error_page"], check_external=False)
    options = {"concurrency": 8, "max_pages": 300}
    first = crawl_run(crawl=crawl_start(site=site, enqueue=False, **options))
    second = crawl_run(crawl=crawl_start(site=site, enqueue=False, **options))
    assert first.status == second.status == Crawl.Status.FINISHED
    assert second.baseline_id == first.pk and second.pages_done == first.pages_done > 200
    assert second.not_modified >= 0.9 * second.pages_done
    assert second.bytes_received <= 0.1 * first.bytes_received
    # The reused pages keep the first crawl's verdicts; the recrawl finds what the first crawl found: the same
    # pages, links, bodies and reports.
    verdicts = lambda crawl: Counter(Page.objects.filter(crawl=crawl).values_list("verdict", flat=True))  # noqa: E731
    assert verdicts(second) == verdicts(first)
    assert crawl_snapshot(second) == crawl_snapshot(first)
