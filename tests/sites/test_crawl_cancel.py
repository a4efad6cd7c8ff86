"""Cancelling a crawl: fetching stops at the batch in flight, nothing is stored after the cancel, and the count
the dashboard shows is the count stored."""

from __future__ import annotations

import pytest
from django.conf import settings

from sites.crawler.config import CrawlConfig
from sites.crawler.fetching import FetchJob, sessions
from sites.crawler.reading import shared_reader
from sites.models import Crawl, Page, PageBody
from sites.services.crawls import crawl_cancel, crawl_start, crawl_step
from sites.services.frontier import frontier_claim, frontier_record
from sites.services.sites import site_create
from tests.sites.sitebuilder import html, serve_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(httpserver, user):
    """A crawl of a 30-page site whose start page has been fetched: 29 pages wait in the frontier."""
    pages = {"/": html("Home", *(f"/p{n}" for n in range(29)))}
    pages.update({f"/p{n}": html(f"P{n}") for n in range(29)})
    root = serve_site(httpserver, pages, robots="")
    crawl = crawl_start(site=site_create(owner=user, url=root), requested_by=user, enqueue=False)
    # A step always claims one batch; with no time left after it, it claims no other. (0.01 s let a quiet,
    # fast machine fetch the whole site in one step: the start page's batch was written within 10 ms.)
    crawl_step(crawl_id=crawl.pk, budget_seconds=0.000001)
    crawl.refresh_from_db()
    assert crawl.pages_done == 1 and crawl.pages_queued == 29
    return crawl


def test_a_batch_fetched_when_the_crawl_was_cancelled_is_not_stored(started):
    config = CrawlConfig.from_dict(started.settings)
    token, claimed = frontier_claim(crawl=started, size=50, lease_seconds=30)
    session = sessions.get(
        started.pk,
        config,
        shared_reader(settings.WEBAUDIT_PAGE_READERS),
        created=started.created_at.isoformat(),
    )
    outcomes = session.fetch_batch(
        [FetchJob(page.pk, page.url, page.is_internal, page.attempts) for page in claimed]
    )
    assert len(outcomes) == 29

    assert crawl_cancel(crawl=started)
    frontier_record(
        crawl=started, scope=session.scope, config=config, tokens=[token], pages=claimed, outcomes=outcomes
    )
    sessions.drop(started.pk)

    started.refresh_from_db()
    stored = Page.objects.filter(crawl=started, state=Page.State.DONE).count()
    assert stored == started.pages_done == 1
    assert PageBody.objects.filter(page__crawl=started).count() == 1


def test_a_step_of_a_cancelled_crawl_fetches_nothing(httpserver, started):
    crawl_cancel(crawl=started)
    before = len(httpserver.log)
    crawl_step(crawl_id=started.pk, budget_seconds=5)
    assert len(httpserver.log) == before
    started.refresh_from_db()
    assert started.status == Crawl.Status.CANCELLED and started.pages_done == 1


def test_the_count_shown_after_cancelling_is_the_count_stored(started):
    Crawl.objects.filter(pk=started.pk).update(pages_done=36)  # a counter that ran ahead of what was stored
    crawl_cancel(crawl=started)
    started.refresh_from_db()
    assert started.pages_done == Page.objects.filter(crawl=started, state=Page.State.DONE).count() == 1


def test_a_crawl_given_the_id_of_an_earlier_one_gets_a_session_of_its_own(started):
    # A rolled-back transaction hands its ids out again (the test database does it every test): the earlier
    # crawl's session, with its robots.txt rules and probes, must not serve the new one.
    config = CrawlConfig.from_dict(started.settings)
    reader = shared_reader(settings.WEBAUDIT_PAGE_READERS)
    earlier = sessions.get(started.pk, config, reader, created=started.created_at.isoformat())
    later = sessions.get(started.pk, config, reader, created="a later crawl's creation time")
    assert later is not earlier
    assert sessions.get(started.pk, config, reader, created=started.created_at.isoformat()) is earlier
    sessions.drop(started.pk)
