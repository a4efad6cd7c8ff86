"""Per-host politeness across threads: concurrency, spacing of starts and penalty pauses."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from sites.http import HostThrottle


def _run(throttle: HostThrottle, hosts: list[str], hold: float = 0.0, min_delay: float = 0.0) -> list[float]:
    """Take one slot per entry of `hosts` from parallel threads; return the start times."""
    starts: list[float] = []
    lock = threading.Lock()

    def work(host: str) -> None:
        with throttle.slot(host, min_delay=min_delay):
            with lock:
                starts.append(time.monotonic())
            time.sleep(hold)

    with ThreadPoolExecutor(max_workers=len(hosts)) as pool:
        list(pool.map(work, hosts))
    return sorted(starts)


def test_concurrency_limit_per_host_is_respected():
    throttle = HostThrottle(concurrency=2, delay=0.0)
    in_flight = peak = 0
    lock = threading.Lock()

    def work(_: int) -> None:
        nonlocal in_flight, peak
        with throttle.slot("example.com"):
            with lock:
                in_flight += 1
                peak = max(peak, in_flight)
            time.sleep(0.03)
            with lock:
                in_flight -= 1

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(work, range(16)))
    assert peak == 2


def test_different_hosts_do_not_wait_for_each_other():
    throttle = HostThrottle(concurrency=1, delay=1.0)
    starts = _run(throttle, ["a.example", "b.example", "c.example"])
    assert starts[-1] - starts[0] < 0.2


def test_starts_to_one_host_are_spaced_by_the_delay():
    throttle = HostThrottle(concurrency=4, delay=0.1)
    starts = _run(throttle, ["example.com"] * 4)
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert min(gaps) >= 0.095


def test_min_delay_from_robots_stretches_the_spacing():
    throttle = HostThrottle(concurrency=4, delay=0.01)
    starts = _run(throttle, ["example.com"] * 3, min_delay=0.15)
    assert starts[-1] - starts[0] >= 0.29


def test_host_names_differing_only_in_case_share_a_throttle():
    throttle = HostThrottle(concurrency=1, delay=0.15)
    starts = _run(throttle, ["Example.com", "example.COM"])
    assert starts[1] - starts[0] >= 0.14


def test_penalize_pauses_the_host():
    throttle = HostThrottle(concurrency=2, delay=0.0)
    throttle.penalize("example.com", 0.3)
    began = time.monotonic()
    with throttle.slot("example.com"):
        waited = time.monotonic() - began
    with throttle.slot("other.example"):
        other_waited = time.monotonic() - began - waited
    assert waited >= 0.29
    assert other_waited < 0.05


def test_a_shorter_penalty_never_shortens_a_longer_one():
    throttle = HostThrottle(concurrency=1, delay=0.0)
    throttle.penalize("example.com", 0.3)
    throttle.penalize("example.com", 0.05)
    began = time.monotonic()
    with throttle.slot("example.com"):
        assert time.monotonic() - began >= 0.29


def test_penalty_during_a_wait_delays_the_waiting_request():
    throttle = HostThrottle(concurrency=1, delay=0.0)
    release = threading.Event()

    def holder() -> None:
        with throttle.slot("example.com"):
            release.wait(1)

    thread = threading.Thread(target=holder)
    thread.start()
    time.sleep(0.02)
    threading.Timer(0.05, lambda: (throttle.penalize("example.com", 0.3), release.set())).start()
    began = time.monotonic()
    with throttle.slot("example.com"):
        waited = time.monotonic() - began
    thread.join()
    assert waited >= 0.3


@pytest.mark.parametrize(("concurrency", "delay"), [(0, 1.0), (1, -1.0)])
def test_nonsense_settings_are_rejected(concurrency, delay):
    with pytest.raises(ValueError):
        HostThrottle(concurrency=concurrency, delay=delay)
