"""The polite scheduler against real local servers on several addresses: many hosts at once, each within its own
politeness (per-host limit, spacing, Crawl-delay, Retry-After pauses), and no thread held by a request that must
wait for its host."""

from __future__ import annotations

import threading
import time
from functools import partial

import pytest

from sites.http import Fetcher, FetchPolicy
from sites.http.scheduler import PoliteScheduler
from tests.sites.http.inflight import InFlight, host_of, servers_on

LOCAL = FetchPolicy(allowed_networks=("127.0.0.0/8",), pool_hosts=64)


@pytest.fixture
def fetcher():
    with Fetcher(LOCAL) as client:
        yield client


def test_requests_to_many_hosts_are_in_flight_at_once(fetcher):
    counter = InFlight()
    with servers_on(12) as servers:
        for server in servers:
            server.expect_request("/slow").respond_with_handler(counter.handler(host_of(server), hold=0.4))
        scheduler = PoliteScheduler(workers=32, per_host=1, delay=0.25)
        try:
            futures = [
                scheduler.submit(host_of(server), partial(fetcher.fetch, server.url_for("/slow")))
                for server in servers
                for _ in range(2)
            ]
            results = [future.result(timeout=30) for future in futures]
        finally:
            scheduler.close()
    assert [result.status for result in results] == [200] * 24
    # Every host answered its first request while all the others were answering theirs.
    assert counter.most == 12
    assert max(counter.most_per_host.values()) == 1


def test_a_host_never_has_more_requests_in_flight_than_its_limit(fetcher):
    counter = InFlight()
    with servers_on(2) as servers:
        for server in servers:
            server.expect_request("/x").respond_with_handler(counter.handler(host_of(server), hold=0.15))
        scheduler = PoliteScheduler(workers=16, per_host=3, delay=0.0)
        try:
            futures = [
                scheduler.submit(host_of(server), partial(fetcher.fetch, server.url_for("/x")))
                for server in servers
                for _ in range(10)
            ]
            assert all(future.result(timeout=30).status == 200 for future in futures)
        finally:
            scheduler.close()
    assert set(counter.most_per_host.values()) == {3}  # reached, never passed
    assert counter.most == 6


def test_a_request_waiting_for_its_host_holds_no_thread():
    # One thread only: with a thread waiting out host A's 1 s spacing, B's requests would wait behind it.
    order: list[str] = []
    scheduler = PoliteScheduler(workers=1, per_host=1, delay=1.0)
    try:
        first = [scheduler.submit("a.example", lambda: order.append("a")) for _ in range(2)]
        first[0].result(timeout=5)
        later = [
            scheduler.submit("b.example", lambda: order.append("b")),
            scheduler.submit("c.example", lambda: order.append("c")),
        ]
        for future in later + first:
            future.result(timeout=5)
    finally:
        scheduler.close()
    assert order == ["a", "b", "c", "a"]


def test_starts_to_one_host_are_spaced_by_the_delay_or_a_longer_crawl_delay(fetcher):
    # Start times are taken where the scheduler starts a request: the server sees them shifted by connection set-up.
    starts: dict[str, list[float]] = {}

    def fetch(host: str):
        starts.setdefault(host, []).append(time.monotonic())
        return fetcher.fetch(f"http://{host}/x")

    with servers_on(2) as servers:
        for server in servers:
            server.expect_request("/x").respond_with_data("<html></html>", content_type="text/html")
        plain, delayed = (host_of(server) for server in servers)
        scheduler = PoliteScheduler(workers=8, per_host=4, delay=0.05)
        try:
            futures = [
                scheduler.submit(host, partial(fetch, host), min_delay=min_delay)
                for host, min_delay in ((plain, 0.0), (delayed, 0.8))
                for _ in range(3)
            ]
            assert all(future.result(timeout=30).status == 200 for future in futures)
        finally:
            scheduler.close()
    for host, gap in ((plain, 0.05), (delayed, 0.8)):
        # Less the moments between the scheduler's start decision and the call recording it, which a loaded
        # machine stretches (12 ms seen for a 50 ms gap); without the delay the starts would be microseconds apart.
        assert min(b - a for a, b in zip(starts[host], starts[host][1:], strict=False)) >= gap * 0.6
    # The Crawl-delay of one host does not slow the other: its three requests were started first.
    assert starts[plain][-1] < starts[delayed][1]


def test_a_paused_host_waits_out_its_pause_while_other_hosts_go_on():
    starts: dict[str, list[float]] = {"a": [], "b": []}
    scheduler = PoliteScheduler(workers=4, per_host=1, delay=0.0)
    try:
        scheduler.submit("a", lambda: starts["a"].append(time.monotonic())).result(timeout=5)
        paused_at = time.monotonic()
        scheduler.penalize("a", 0.5)  # a 429 with Retry-After: 0.5
        waiting = scheduler.submit("a", lambda: starts["a"].append(time.monotonic()))
        others = [scheduler.submit("b", lambda: starts["b"].append(time.monotonic())) for _ in range(3)]
        for future in [*others, waiting]:
            future.result(timeout=5)
    finally:
        scheduler.close()
    assert starts["a"][1] - paused_at >= 0.49
    assert max(starts["b"]) < starts["a"][1]


def test_an_exception_reaches_the_caller_and_the_thread_carries_on():
    scheduler = PoliteScheduler(workers=1, per_host=1, delay=0.0)
    try:
        failing = scheduler.submit("a", lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failing.result(timeout=5)
        assert scheduler.submit("a", lambda: "still here").result(timeout=5) == "still here"
    finally:
        scheduler.close()


def test_closing_cancels_what_has_not_started():
    release = threading.Event()
    scheduler = PoliteScheduler(workers=1, per_host=1, delay=0.0)
    running = scheduler.submit("a", release.wait)
    queued = scheduler.submit("a", lambda: "never")
    time.sleep(0.05)
    scheduler.close()
    release.set()
    assert running.result(timeout=5) is True
    assert queued.cancelled()
    with pytest.raises(RuntimeError):
        scheduler.submit("a", lambda: None)


def test_threads_are_started_only_as_requests_need_them():
    scheduler = PoliteScheduler(workers=100, per_host=1, delay=0.0)
    try:
        for _ in range(5):
            scheduler.submit("a", lambda: None).result(timeout=5)
        assert scheduler.stats().max_running == 1
        assert scheduler.stats().threads <= 2
    finally:
        scheduler.close()


def test_a_thread_is_started_without_holding_the_lock_that_every_submit_needs(monkeypatch):
    # Starting a thread waits until it runs: under the lock, every submit and every thread waited with it.
    scheduler = PoliteScheduler(workers=4, per_host=1, delay=0.0)
    held_while_starting = []
    start = threading.Thread.start

    def lock_is_free() -> bool:  # asked from another thread: the lock is reentrant for its holder
        free = []

        def look():
            free.append(scheduler._cond.acquire(timeout=0.5))
            if free[0]:
                scheduler._cond.release()

        looker = threading.Thread(target=look)
        start(looker)
        looker.join()
        return free[0]

    def observed_start(thread):
        held_while_starting.append(not lock_is_free())
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", observed_start)
    try:
        release = threading.Event()
        futures = [scheduler.submit(host, release.wait) for host in "abc"]
        release.set()
        assert [future.result(timeout=5) for future in futures] == [True, True, True]
        assert held_while_starting and not any(held_while_starting)
    finally:
        scheduler.close()


def test_a_thread_that_cannot_be_started_is_not_counted(monkeypatch):
    scheduler = PoliteScheduler(workers=2, per_host=1, delay=0.0)
    start = threading.Thread.start

    def refused(thread):
        raise RuntimeError("can't start new thread")

    try:
        monkeypatch.setattr(threading.Thread, "start", refused)
        with pytest.raises(RuntimeError, match="can't start new thread"):
            scheduler.submit("a", lambda: "first")
        assert scheduler.stats().threads == 0
        monkeypatch.setattr(threading.Thread, "start", start)
        # The queued request and a new one both run once threads can start again.
        assert scheduler.submit("b", lambda: "second").result(timeout=5) == "second"
    finally:
        scheduler.close()


@pytest.mark.parametrize(("workers", "per_host", "delay"), [(0, 1, 0.0), (1, 0, 0.0), (1, 1, -1.0)])
def test_nonsensical_settings_are_refused(workers, per_host, delay):
    with pytest.raises(ValueError):
        PoliteScheduler(workers=workers, per_host=per_host, delay=delay)


def test_a_thread_left_with_nothing_to_do_ends(monkeypatch):
    monkeypatch.setattr("sites.http.scheduler.IDLE_THREAD_SECONDS", 0.1)
    scheduler = PoliteScheduler(workers=4, per_host=1, delay=0.0)
    try:
        assert scheduler.submit("a", lambda: 1).result(timeout=5) == 1
        deadline = time.monotonic() + 5
        while scheduler.stats().threads and time.monotonic() < deadline:
            time.sleep(0.02)
        assert scheduler.stats().threads == 0
        assert scheduler.submit("a", lambda: 2).result(timeout=5) == 2  # a new thread when needed
    finally:
        scheduler.close()


def test_the_backlog_is_that_of_the_busiest_host():
    release = threading.Event()
    scheduler = PoliteScheduler(workers=4, per_host=1, delay=0.5)
    try:
        running = scheduler.submit("a", release.wait)
        queued = [scheduler.submit("a", lambda: None) for _ in range(3)] + [
            scheduler.submit("b", lambda: None)
        ]
        queued[-1].result(timeout=5)  # b's one request went at once
        seconds, per_slot = scheduler.backlog()
        assert 1.5 <= seconds <= 2.0  # three gaps of 0.5 s, and a's spacing still running
        assert per_slot == 3
        release.set()
        for future in [running, *queued]:
            future.result(timeout=10)
        assert scheduler.backlog() == (0.0, 0.0)
    finally:
        release.set()
        scheduler.close()
