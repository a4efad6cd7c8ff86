"""Who works on a crawl: chain generations, step numbers, leases renewed while a step runs, exact counters."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db.models import Count, Q
from django.utils import timezone

from sites.models import BROKEN, Crawl, Page
from sites.services.crawls import crawl_run, crawl_start, crawl_step
from sites.services.frontier import frontier_claim
from sites.services.leases import LeaseKeeper, crawl_new_generation
from sites.services.sites import site_create
from tests.sites.sitebuilder import html, requested_paths, serve_site


def tree_site(httpserver) -> str:
    pages = {"/": html("Home", "/a", "/b", "/gone")}
    pages.update({f"/{name}": html(name, "/", f"/{name}1", f"/{name}2") for name in "ab"})
    pages.update({f"/{name}{i}": html(f"{name}{i}", "/") for name in "ab" for i in (1, 2)})
    return serve_site(httpserver, pages, robots="")


@pytest.mark.django_db
def test_a_step_delivered_twice_runs_once(httpserver, user):
    root = tree_site(httpserver)
    crawl = crawl_start(site=site_create(owner=user, url=root), enqueue=False)
    generation = crawl_new_generation(crawl_id=crawl.pk)
    crawl_step(crawl_id=crawl.pk, lane=0, generation=generation, step=1, budget_seconds=0.01)
    fetched = len(requested_paths(httpserver))
    assert fetched > 0
    # The broker hands the same message out again (it restores unacknowledged messages on reconnection).
    assert crawl_step(crawl_id=crawl.pk, lane=0, generation=generation, step=1).more is False
    assert len(requested_paths(httpserver)) == fetched
    # The chain's next step runs; another lane has its own numbering.
    crawl_step(crawl_id=crawl.pk, lane=1, generation=generation, step=1)
    crawl.refresh_from_db()
    assert crawl.lane_steps == {"0": 1, "1": 1}


@pytest.mark.django_db
def test_a_step_of_an_older_generation_stops_once_the_crawl_is_re_enqueued(httpserver, user):
    root = tree_site(httpserver)
    crawl = crawl_start(site=site_create(owner=user, url=root), enqueue=False)
    old = crawl_new_generation(crawl_id=crawl.pk)
    new = crawl_new_generation(crawl_id=crawl.pk)
    assert new == old + 1
    assert crawl_step(crawl_id=crawl.pk, generation=old, step=1).more is False
    assert requested_paths(httpserver) == []
    Crawl.objects.filter(pk=crawl.pk).update(lane_steps={"0": 5})
    crawl_new_generation(crawl_id=crawl.pk)  # a new generation numbers its steps from 1 again
    assert Crawl.objects.get(pk=crawl.pk).lane_steps == {}


@pytest.mark.django_db(transaction=True)
def test_a_live_step_renews_its_claims_and_the_crawl_heartbeat(httpserver, user):
    root = tree_site(httpserver)
    crawl = crawl_start(site=site_create(owner=user, url=root), enqueue=False)
    long_ago = timezone.now() - timedelta(hours=1)
    token, pages = frontier_claim(crawl=crawl, size=10, lease_seconds=30)
    Page.objects.filter(crawl=crawl).update(claimed_at=long_ago)
    Crawl.objects.filter(pk=crawl.pk).update(heartbeat_at=long_ago)
    with LeaseKeeper(crawl.pk, interval=0.5) as keeper:
        keeper.hold(token)
        deadline = time.monotonic() + 10
        while Page.objects.get(pk=pages[0].pk).claimed_at == long_ago and time.monotonic() < deadline:
            time.sleep(0.1)
    assert Page.objects.get(pk=pages[0].pk).claimed_at > long_ago
    assert Crawl.objects.get(pk=crawl.pk).heartbeat_at > long_ago


@pytest.mark.django_db
def test_a_claim_nobody_renews_is_claimed_again_after_the_lease(httpserver, user, settings):
    root = tree_site(httpserver)
    crawl = crawl_start(site=site_create(owner=user, url=root), enqueue=False)
    _, first = frontier_claim(crawl=crawl, size=10, lease_seconds=30)
    assert frontier_claim(crawl=crawl, size=10, lease_seconds=30)[1] == []
    Page.objects.filter(crawl=crawl).update(claimed_at=timezone.now() - timedelta(seconds=31))
    assert [page.pk for page in frontier_claim(crawl=crawl, size=10, lease_seconds=30)[1]] == [first[0].pk]


@pytest.mark.django_db
def test_counters_added_batch_by_batch_match_a_count_of_the_pages(httpserver, user):
    root = tree_site(httpserver)
    crawl = crawl_start(site=site_create(owner=user, url=root), enqueue=False, concurrency=1)
    while crawl_step(crawl_id=crawl.pk, budget_seconds=0.01).more:
        crawl.refresh_from_db()
        counts = Page.objects.filter(crawl=crawl).aggregate(
            done=Count("id", filter=Q(state="done")),
            pending=Count("id", filter=~Q(state="done")),
            failed=Count("id", filter=BROKEN),
            internal=Count("id", filter=Q(is_internal=True)),
        )
        assert (crawl.pages_done, crawl.pages_queued, crawl.pages_failed, crawl.internal_admitted) == (
            counts["done"],
            counts["pending"],
            counts["failed"],
            counts["internal"],
        )
    crawl.refresh_from_db()
    assert (crawl.pages_done, crawl.pages_queued, crawl.pages_failed) == (8, 0, 1)


@pytest.mark.django_db
def test_the_page_cap_holds_with_counters_instead_of_counts(httpserver, user):
    root = tree_site(httpserver)
    crawl = crawl_run(crawl=crawl_start(site=site_create(owner=user, url=root), enqueue=False, max_pages=3))
    assert Page.objects.filter(crawl=crawl, is_internal=True).count() == 3 == crawl.internal_admitted
