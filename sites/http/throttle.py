"""Per-host politeness for a pool of fetch threads: concurrency, spacing and penalty pauses."""

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
    next_start: float = float("-inf")
    paused_until: float = float("-inf")


class HostThrottle:
    """Limit requests per host: at most `concurrency` at once, starts `delay` seconds apart."""

    def __init__(self, concurrency: int, delay: float) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency!r}")
        if delay < 0:
            raise ValueError(f"delay must not be negative, got {delay!r}")
        self.concurrency = concurrency
        self.delay = delay
        self._hosts: dict[str, _HostState] = {}
        # One condition for all hosts: with a pool of ~10 threads, waking them all on each release
        # costs less than the bookkeeping of one condition per host.
        self._cond = threading.Condition()

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
                    if state.in_flight < self.concurrency:
                        ready_at = max(state.next_start, state.paused_until)
                        if now >= ready_at:
                            break
                        self._cond.wait(ready_at - now)
                    else:
                        self._cond.wait()
            finally:
                state.waiting -= 1
            state.in_flight += 1
            state.next_start = now + gap
        try:
            yield
        finally:
            with self._cond:
                state.in_flight -= 1
                self._cond.notify_all()
                if len(self._hosts) > PRUNE_AFTER_HOSTS:
                    self._prune(time.monotonic())

    def penalize(self, host: str, seconds: float) -> None:
        """Pause `host` for `seconds` from now; a pause already longer is kept."""
        with self._cond:
            state = self._hosts.setdefault(host.lower(), _HostState())
            state.paused_until = max(state.paused_until, time.monotonic() + seconds)

    def _prune(self, now: float) -> None:
        idle = [
            key
            for key, state in self._hosts.items()
            if not state.in_flight and not state.waiting and now >= max(state.next_start, state.paused_until)
        ]
        for key in idle:
            del self._hosts[key]
