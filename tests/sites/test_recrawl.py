"""Recrawls that cost little: validators from the site's previous crawl, and 304 answers that reuse its pages."""

from __future__ import annotations

import pytest
from pytest_httpserver import HTTPServer

from sites.models import Link, Page, PageBody
from sites.services.crawls import crawl_run, crawl_start
from sites.services.reports import crawl_summary
from sites.services.sites import site_create
from tests.sites.recrawl_site import NOT_FOUND, ValidatingSite, crawl_snapshot
from tests.sites.sitebuilder import html, serve_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def site_pages():
    return {
        "/": html("Home", "/a", "/b", "/gone"),
        "/a": html("A", "/", "/b", "/a/deeper"),
        "/b": html("B", "/a"),
        "/a/deeper": html("Deeper", "/b"),
    }


def crawl_again(site, user):
    return crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False, probe=False))


def test_a_recrawl_of_an_unchanged_site_asks_conditionally_and_reuses_every_page_answering_304(
    httpserver, user, site_pages
):
    served = ValidatingSite(httpserver, site_pages)
    site = site_create(owner=user, url=served.root)
    first = crawl_again(site, user)
    assert not served.conditional and first.not_modified == 0 and first.baseline_id is None
    second = crawl_again(site, user)

    assert second.baseline_id == first.pk
    # Every page the first crawl got with a 200 was asked for with its own ETag and date; /gone (404) was not.
    assert sorted(path for path, _, _ in served.conditional) == ["/", "/a", "/a/deeper", "/b"]
    assert all(etag == served.etag(path) for path, etag, _ in served.conditional)
    assert all(date == ValidatingSite.LAST_MODIFIED for _, _, date in served.conditional)
    assert second.not_modified == 4
    summary = crawl_summary(second)
    assert summary["not_modified"] == 4
    # Only /gone's 404 page was downloaded the second time.
    assert summary["bytes_received"] == len(NOT_FOUND)
    assert (
        first.bytes_received
        == sum(len(body.encode()) for body in site_pages.values()) + summary["bytes_received"]
    )

    def snapshot(crawl):
        pages = Page.objects.filter(crawl=crawl)
        return {
            page.url: (page.status_code, page.verdict, page.title, page.content_hash, page.depth, page.size)
            for page in pages
        }

    assert snapshot(second) == snapshot(first)
    links = lambda crawl: sorted(  # noqa: E731
        Link.objects.filter(crawl=crawl).values_list("source__url", "target_url", "target__url", "text")
    )
    assert links(second) == links(first)
    bodies = lambda crawl: {  # noqa: E731
        body.page.url: body.content
        for body in PageBody.objects.filter(page__crawl=crawl).select_related("page")
    }
    assert bodies(second) == bodies(first) and len(bodies(second)) == 5
    reused = Page.objects.filter(crawl=second, not_modified=True).values_list("url", flat=True)
    assert sorted(reused) == sorted(served.root.rstrip("/") + path for path in ["/", "/a", "/a/deeper", "/b"])


def test_a_page_that_changed_is_downloaded_and_read_again_and_its_new_links_followed(
    httpserver, user, site_pages
):
    served = ValidatingSite(httpserver, site_pages)
    site = site_create(owner=user, url=served.root)
    first = crawl_again(site, user)
    served.pages["/b"] = html("B, rewritten", "/a", "/c")
    served.pages["/c"] = html("C", "/")
    second = crawl_again(site, user)

    base = served.root.rstrip("/")
    b_then, b_now = (Page.objects.get(crawl=crawl, url=f"{base}/b") for crawl in (first, second))
    assert not b_now.not_modified and b_now.title == "B, rewritten"
    assert b_now.content_hash != b_then.content_hash
    assert Page.objects.get(crawl=second, url=f"{base}/c").status_code == 200
    assert second.not_modified == 3


def test_a_304_whose_baseline_crawl_was_deleted_meanwhile_is_fetched_again_in_full(
    httpserver, user, site_pages
):
    served = ValidatingSite(httpserver, site_pages)
    site = site_create(owner=user, url=served.root)
    first = crawl_again(site, user)
    second = crawl_start(site=site, requested_by=user, enqueue=False, probe=False)
    assert second.baseline_id == first.pk
    # Validators are read as pages are claimed, the baseline's rows as the 304s are recorded: delete in between.
    from sites.services import frontier

    real = frontier._baseline_pages

    def baseline_gone(crawl, outcomes):
        Page.objects.filter(crawl_id=first.pk).delete()
        return real(crawl, outcomes)

    frontier._baseline_pages = baseline_gone
    try:
        second = crawl_run(crawl=second)
    finally:
        frontier._baseline_pages = real
    assert second.status == "finished"
    assert Page.objects.filter(crawl=second, state=Page.State.DONE).count() == 5
    assert Page.objects.get(crawl=second, depth=0).title == "Home"


def test_a_304_whose_baseline_was_deleted_after_it_was_read_is_fetched_again_in_full(
    httpserver, user, site_pages
):
    served = ValidatingSite(httpserver, site_pages)
    site = site_create(owner=user, url=served.root)
    first = crawl_again(site, user)
    second = crawl_start(site=site, requested_by=user, enqueue=False, probe=False)
    # The baseline's rows are read before the batch's transaction and copied inside it: delete in between.
    from sites.services import frontier

    real = frontier._baseline_pages

    def read_then_gone(crawl, outcomes):
        found = real(crawl, outcomes)
        Page.objects.filter(crawl_id=first.pk).delete()
        return found

    frontier._baseline_pages = read_then_gone
    try:
        second = crawl_run(crawl=second)
    finally:
        frontier._baseline_pages = real
    assert second.status == "finished"
    pages = Page.objects.filter(crawl=second)
    assert pages.filter(state=Page.State.DONE).count() == 5 and not pages.filter(not_modified=True).exists()
    assert pages.get(depth=0).title == "Home" and PageBody.objects.filter(page__crawl=second).count() == 5
    links = Link.objects.filter(crawl=second)
    assert links.count() == 8 and not links.filter(target__isnull=True).exists()


def test_a_304_carries_over_the_extracts_of_the_extractors_the_recrawl_runs_and_no_others(
    httpserver, user, site_pages
):
    from sites.models import PageExtract

    served = ValidatingSite(httpserver, site_pages)
    site = site_create(owner=user, url=served.root)
    first = crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False, probe=False))
    names = lambda crawl: sorted(  # noqa: E731
        PageExtract.objects.filter(page__crawl=crawl).values_list("page__url", "name", "data")
    )
    assert {name for _, name, _ in names(first)} == {"dom"}
    same = crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False, probe=False))
    assert same.not_modified == 4 and names(same) == names(first)
    without = crawl_run(crawl=crawl_start(site=site, enqueue=False, probe=False, extractors=()))
    assert without.not_modified == 4 and names(without) == []


def test_a_recrawl_finds_exactly_what_a_full_crawl_of_the_site_finds_before_and_after_it_changes(
    httpserver, user, django_user_model
):
    nofollow = '<meta name="robots" content="nofollow">'
    served = ValidatingSite(
        httpserver,
        {
            "/": html(
                "Home", "/a", "/b", "/gone", "/moved", "http://elsewhere.invalid/x", "/a#top", "/a?y=2&x=1"
            ),
            "/a": html("A", "/", "/b", "/a/deeper", "a/c", "/a?x=1&y=2"),
            "/a/c": html("C", "/a/deeper", "/img.png"),
            "/b": html("B", "/a", "/hidden", extra=nofollow),
            "/hidden": html("Hidden", "/"),
            "/a/deeper": html("Deeper", "/b", "/", "/gone"),
        },
    )
    served.redirects["/moved"] = "/a/deeper"
    # External targets are left unchecked: a check is reused from the owner's cache (test_external_cache.py).
    site = site_create(owner=user, url=served.root, check_external=False)
    first = crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False))
    unchanged = crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False))
    answered = Page.objects.filter(crawl=first, status_code=200, redirects=[]).count()
    assert unchanged.baseline_id == first.pk and unchanged.not_modified == answered == 6
    assert crawl_snapshot(unchanged) == crawl_snapshot(first)

    # A page rewritten with new links (one to a new page), a page gone, a redirect that now ends on a 404.
    served.pages["/b"] = html("B, rewritten", "/a", "/new", extra=nofollow)
    served.pages["/new"] = html("New", "/a/c", "/b")
    del served.pages["/a/deeper"]
    recrawl = crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False))
    assert recrawl.baseline_id == unchanged.pk and recrawl.not_modified == 4  # /, /a twice, /a/c
    stranger = django_user_model.objects.create_user(username="stranger", password="pw-stranger-123")
    full = crawl_run(
        crawl=crawl_start(
            site=site_create(owner=stranger, url=served.root, check_external=False),
            requested_by=stranger,
            enqueue=False,
        )
    )
    assert full.baseline_id is None and full.not_modified == 0
    assert crawl_snapshot(recrawl) == crawl_snapshot(full)


@pytest.fixture
def elsewhere():
    """Another host, for external links."""
    server = HTTPServer(host="127.0.0.2")
    server.start()
    serve_site(server, {"/ok": html("Elsewhere")}, robots="")
    yield server
    server.clear()
    server.stop()


def test_a_recrawl_checking_external_links_its_baseline_left_unchecked_links_them_as_a_full_crawl_does(
    httpserver, user, django_user_model, elsewhere
):
    outside = [elsewhere.url_for("/ok"), elsewhere.url_for("/gone")]
    served = ValidatingSite(
        httpserver, {"/": html("Home", "/a", *outside), "/a": html("A", "/", outside[0], "/missing")}
    )
    site = site_create(owner=user, url=served.root, check_external=False)
    first = crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False))
    assert not Link.objects.filter(crawl=first, is_internal=False, target__isnull=False).exists()
    site.check_external = True
    site.save()
    recrawl = crawl_run(crawl=crawl_start(site=site, requested_by=user, enqueue=False))
    assert recrawl.baseline_id == first.pk and recrawl.not_modified == 2
    stranger = django_user_model.objects.create_user(username="stranger", password="pw-stranger-123")
    full = crawl_run(
        crawl=crawl_start(
            site=site_create(owner=stranger, url=served.root), requested_by=stranger, enqueue=False
        )
    )
    assert full.baseline_id is None
    targets = Link.objects.filter(crawl=recrawl, is_internal=False).values_list(
        "target__url", "target__verdict"
    )
    assert sorted(targets) == sorted([(outside[0], "ok"), (outside[1], "dead"), (outside[0], "ok")])
    assert crawl_snapshot(recrawl) == crawl_snapshot(full)


def test_a_site_whose_start_url_moved_to_another_host_is_crawled_in_full(httpserver, user, site_pages):
    served = ValidatingSite(httpserver, site_pages)
    site = site_create(owner=user, url=served.root)
    first = crawl_again(site, user)
    site.url = served.root.replace("localhost", "127.0.0.1")
    site.save()
    moved = crawl_again(site, user)
    assert first.status == moved.status == "finished"
    assert moved.baseline_id is None and moved.not_modified == 0 and served.conditional == []


def test_an_external_target_answering_304_counts_as_an_external_target_while_the_recrawl_runs(
    httpserver, user
):
    other = HTTPServer(host="127.0.0.2")
    other.start()
    try:
        outside = ValidatingSite(other, {"/ok": html("Elsewhere")})
        # A chain of pages after the external link, so that batches come after the one that checks it.
        chain = {"/": html("Home", "/a", outside.root + "ok"), "/a": html("A", "/b"), "/b": html("B", "/c")}
        served = ValidatingSite(httpserver, {**chain, "/c": html("C", "/")})
        site = site_create(owner=user, url=served.root, external_cache_hours=0)  # asked again, conditionally
        crawl_again(site, user)
        seen = []

        def counted(crawl) -> None:
            done = Page.objects.filter(crawl=crawl, state=Page.State.DONE)
            seen.append(
                (
                    crawl.is_active,
                    (crawl.site_pages_done, crawl.external_done),
                    (done.filter(is_internal=True).count(), done.filter(is_internal=False).count()),
                )
            )

        # Steps short enough to see the counters between batches, before the end recounts them.
        recrawl = crawl_run(
            crawl=crawl_start(site=site, requested_by=user, enqueue=False, probe=False),
            on_progress=counted,
            step_seconds=0.01,
        )
    finally:
        other.stop()
    assert outside.conditional and recrawl.not_modified == 5
    assert all(counters == pages for _, counters, pages in seen), seen
    assert any(running and pages[1] == 1 for running, _, pages in seen), "no step ended after the check"
