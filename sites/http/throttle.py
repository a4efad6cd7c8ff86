"""Per-host politeness for a pool of fetch threads: concurrency, spacing and penalty pauses.

The decision "may a request to this host start now, and if not, in how many seconds" is `ready_in`,
separate from the waiting: `slot` waits on a condition with a thread, and a scheduler that holds no
thread per waiting request can ask `try_acquire` and come back when it says.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

# Idle hosts are forgotten once this many are tracked, so a long crawl does not grow without end.
PRUNE_AFTER_HOSTS = 1024


@dataclass
class _HostState:
    in_flight: int = 0
    waiting: int = 0
    # When the last request started (or ended, when spacing counts from the end) and the gap it asked for.
    last_mark: float = float("-inf")
    last_gap: float = 0.0
    paused_until: float = float("-inf")

    def ready_at(self, gap: float) -> float:
        return max(self.last_mark + max(self.last_gap, gap), self.paused_until)


class HostThrottle:
    """Limit requests per host: at most `concurrency` at once, starts `delay` seconds apart.

    `min_delay` of a request (a robots.txt Crawl-delay) widens the gap before it and after it. With
    `space_from_end` the gap runs from the end of the previous request instead of its start (one
    request at a time, as page finding's sequential search does).
    """

    def __init__(self, concurrency: int, delay: float, *, space_from_end: bool = False) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency!r}")
        if delay < 0:
            raise ValueError(f"delay must not be negative, got {delay!r}")
        self.concurrency = concurrency
        self.delay = delay
        self.space_from_end = space_from_end
        self._hosts: dict[str, _HostState] = {}
        # One condition for all hosts: with a pool of ~10 threads, waking them all on each release
        # costs less than the bookkeeping of one condition per host.
        self._cond = threading.Condition()

    def ready_in(self, host: str, min_delay: float = 0.0) -> float | None:
        """Seconds until a request to `host` may start (0: now); None while all its slots are taken."""
        with self._cond:
            state = self._hosts.get(host.lower())
            if state is None:
                return 0.0
            return self._ready_in(state, max(self.delay, min_delay), time.monotonic())

    def try_acquire(self, host: str, min_delay: float = 0.0) -> float | None:
        """Take a slot of `host` if a request may start now and return 0; else take nothing and return the
        seconds to wait (None: until a slot is released). A taken slot is given back with `release`."""
        with self._cond:
            state = self._hosts.setdefault(host.lower(), _HostState())
            gap = max(self.delay, min_delay)
            now = time.monotonic()
            wait = self._ready_in(state, gap, now)
            if wait == 0.0:
                self._start(state, gap, now)
            return wait

    def release(self, host: str) -> None:
        with self._cond:
            self._release(self._hosts[host.lower()])

    @contextmanager
    def slot(self, host: str, min_delay: float = 0.0) -> Iterator[None]:
        """Wait until a request to `host` may start, and hold one of its slots meanwhile."""
        key = host.lower()
        gap = max(self.delay, min_delay)
        with self._cond:
            state = self._hosts.setdefault(key, _HostState())
            state.waiting += 1
            try:
                while True:
                    now = time.monotonic()
                    wait = self._ready_in(state, gap, now)
                    if wait == 0.0:
                        break
                    self._cond.wait(wait)
            finally:
                state.waiting -= 1
            self._start(state, gap, now)
        try:
            yield
        finally:
            with self._cond:
                self._release(state)

    def penalize(self, host: str, seconds: float) -> None:
        """Pause `host` for `seconds` from now; a pause already longer is kept."""
        with self._cond:
            state = self._hosts.setdefault(host.lower(), _HostState())
            state.paused_until = max(state.paused_until, time.monotonic() + seconds)

    def _ready_in(self, state: _HostState, gap: float, now: float) -> float | None:
        if state.in_flight >= self.concurrency:
            return None
        return max(0.0, state.ready_at(gap) - now)

    def _start(self, state: _HostState, gap: float, now: float) -> None:
        state.in_flight += 1
        state.last_mark, state.last_gap = now, gap

    def _release(self, state: _HostState) -> None:
        state.in_flight -= 1
        if self.space_from_end:
            state.last_mark = time.monotonic()
        self._cond.notify_all()
        if len(self._hosts) > PRUNE_AFTER_HOSTS:
            self._prune(time.monotonic())

    def _prune(self, now: float) -> None:
        idle = [
            key
            for key, state in self._hosts.items()
            if not state.in_flight and not state.waiting and now >= state.ready_at(0.0)
        ]
        for key in idle:
            del self._hosts[key]
