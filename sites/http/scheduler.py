"""Polite scheduling of requests over many hosts: a bounded pool of threads, each handed only a request whose
host may take it now.

Two settings, kept apart: `workers`, how many requests run at once across all hosts (lychee runs 128), and the
politeness to one host, `per_host` requests at once and `delay` seconds between their starts (raised by a
robots.txt Crawl-delay, paused by a 429/503's Retry-After). HostThrottle made a request wait for its host's turn
on a pool thread, so a pool of 8 threads talked to at most 8 hosts however many were waiting; here a request
waits in its host's queue, and the hosts that have one are kept in a heap ordered by the time their next request
may start. A thread takes the earliest host from the heap when that time has come, and sleeps otherwise.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

# Hosts with nothing queued or running are forgotten once this many are tracked, unless a pause or delay of
# theirs is still running (forgetting it would let the next request in early).
PRUNE_AFTER_HOSTS = 4096
# A thread with nothing to do for this long ends (a new one starts when needed): a process keeping the sessions of
# several crawls does not keep a full pool for each.
IDLE_THREAD_SECONDS = 30.0


@dataclass
class _Request:
    host: str
    run: Callable[[], Any]
    future: Future
    gap: float  # seconds the next request to its host must wait after this one starts


@dataclass
class _Host:
    queue: deque[_Request] = field(default_factory=deque)
    in_flight: int = 0
    next_start: float = float("-inf")
    paused_until: float = float("-inf")
    in_heap: bool = False

    def ready_at(self) -> float:
        return max(self.next_start, self.paused_until)


@dataclass(frozen=True)
class SchedulerStats:
    queued: int  # requests waiting for their host's turn or for a thread
    running: int  # requests on a thread now
    hosts_waiting: int  # hosts with a queued request
    started: int  # requests started since the scheduler was made
    max_running: int  # the most requests that ran at once
    threads: int  # threads alive now


class PoliteScheduler:
    """Run callables keyed by host on up to `workers` threads; per host at most `per_host` at once, their starts
    at least `delay` seconds apart (or the request's own `min_delay`, a Crawl-delay, when larger)."""

    def __init__(self, *, workers: int, per_host: int, delay: float, name: str = "fetch") -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers!r}")
        if per_host < 1:
            raise ValueError(f"per_host must be at least 1, got {per_host!r}")
        if delay < 0:
            raise ValueError(f"delay must not be negative, got {delay!r}")
        self.workers, self.per_host, self.delay, self.name = workers, per_host, delay, name
        self._hosts: dict[str, _Host] = {}
        self._heap: list[tuple[float, int, str]] = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._threads = 0
        self._thread_numbers = itertools.count()
        self._idle = 0
        self._timer_at = float("inf")  # when the idle thread sleeping until a host's turn wakes
        self._queued = self._running = self._started = self._max_running = 0
        self._closed = False

    # The caller's side -------------------------------------------------------------------------------------------
    def submit(self, host: str, run: Callable[[], T], *, min_delay: float = 0.0) -> Future[T]:
        """Queue `run` for `host`; the future holds its result (or exception) once a thread has run it."""
        future: Future[T] = Future()
        with self._cond:
            if self._closed:
                raise RuntimeError("the scheduler is closed")
            key = host.lower()
            state = self._hosts.setdefault(key, _Host())
            state.queue.append(_Request(key, run, future, max(self.delay, min_delay)))
            self._queued += 1
            self._schedule(key, state)
            spawn = self._spawn_if_needed()
        if spawn:
            self._start_thread()
        return future

    def penalize(self, host: str, seconds: float) -> None:
        """Start no request to `host` for `seconds` from now (a 429 or 503); a pause already longer is kept."""
        with self._cond:
            state = self._hosts.setdefault(host.lower(), _Host())
            state.paused_until = max(state.paused_until, time.monotonic() + seconds)
            # The host's heap entry may say "earlier": a thread popping it looks at the pause again.

    def backlog(self) -> tuple[float, float]:
        """How far behind the busiest host is: the seconds its queue will take by its politeness alone (its
        queued requests' gaps, plus any pause or delay still running), and its queued requests per slot (which
        count when there is no delay). A caller keeps feeding the scheduler while both are small."""
        now = time.monotonic()
        with self._cond:
            waiting = [state for state in self._hosts.values() if state.queue]
            seconds = max(
                (sum(r.gap for r in state.queue) + max(0.0, state.ready_at() - now) for state in waiting),
                default=0.0,
            )
            per_slot = max((len(state.queue) for state in waiting), default=0) / self.per_host
            return seconds, per_slot

    def stats(self) -> SchedulerStats:
        with self._cond:
            waiting = sum(1 for state in self._hosts.values() if state.queue)
            return SchedulerStats(
                self._queued, self._running, waiting, self._started, self._max_running, self._threads
            )

    def close(self, *, cancel: bool = True) -> None:
        """Stop the threads once their current request ends; queued requests are cancelled."""
        dropped: list[_Request] = []
        with self._cond:
            self._closed = True
            if cancel:
                for state in self._hosts.values():
                    dropped += state.queue
                    state.queue.clear()
                self._queued = 0
            self._cond.notify_all()
        for request in dropped:  # outside the lock: cancelling runs the futures' callbacks
            request.future.cancel()

    # The threads' side -------------------------------------------------------------------------------------------
    def _schedule(self, key: str, state: _Host) -> None:
        """Put the host in the heap if it has a queued request and a free slot (lock held)."""
        if state.queue and not state.in_heap and state.in_flight < self.per_host:
            state.in_heap = True
            at = state.ready_at()
            heapq.heappush(self._heap, (at, next(self._order), key))
            if at < self._timer_at:
                # Sooner than the sleeping timer thread (if any) wakes: one thread must look at it.
                self._cond.notify()

    def _spawn_if_needed(self) -> bool:
        """Whether to start a thread, counted as started and idle already (lock held); the caller starts it with
        `_start_thread` once it has let go of the lock."""
        # A new thread only when every thread is busy: a thread that sleeps until a host's turn is idle.
        if self._idle == 0 and self._threads < self.workers and self._heap:
            self._threads += 1
            self._idle += 1
            return True
        return False

    def _start_thread(self) -> None:
        """Start a thread `_spawn_if_needed` counted (lock not held). Starting one waits until it runs: under the
        lock, every submit and every thread queued behind that wait (with 128 threads to start at a crawl's first
        batch of external targets, a third of the time it took went on it, issue 22)."""
        name = f"{self.name}-{next(self._thread_numbers)}"
        try:
            threading.Thread(target=self._work, name=name, daemon=True).start()
        except BaseException:
            with self._cond:
                self._threads -= 1
                self._idle -= 1
            raise

    def _take(self) -> _Request | None:
        """The next request that may start now, waiting for one; None once the scheduler is closed or after
        IDLE_THREAD_SECONDS with nothing queued (lock held)."""
        idle_since = time.monotonic()
        while not self._closed:
            now = time.monotonic()
            if self._heap and self._heap[0][0] <= now:
                _, _, key = heapq.heappop(self._heap)
                state = self._hosts[key]
                state.in_heap = False
                if state.ready_at() > now:  # paused since it was queued: back in the heap at its new time
                    self._schedule(key, state)
                    continue
                request = state.queue.popleft()
                state.in_flight += 1
                state.next_start = now + request.gap
                self._queued -= 1
                self._running += 1
                self._started += 1
                self._max_running = max(self._max_running, self._running)
                self._schedule(key, state)
                if self._heap and self._heap[0][0] < self._timer_at:
                    # The next host may go now, or no thread sleeps until its turn: another thread sees to it.
                    self._cond.notify()
                return request
            if not self._heap and now - idle_since >= IDLE_THREAD_SECONDS:
                return None
            if self._heap and self._heap[0][0] < self._timer_at:
                # One idle thread sleeps until the earliest host's turn; the others until they are notified.
                # Every thread sleeping until that moment would wake them all at once for one request (with
                # 128 threads, a fifth of the crawl's time went on that stampede for the lock).
                at = self._timer_at = self._heap[0][0]
                self._cond.wait(at - now)
                if self._timer_at == at:
                    self._timer_at = float("inf")
            else:
                self._cond.wait(IDLE_THREAD_SECONDS)
        return None

    def _work(self) -> None:
        with self._cond:
            request, spawn = self._next()
        if spawn:
            self._start_thread()
        while request is not None:
            runs = request.future.set_running_or_notify_cancel()
            value = error = None
            if runs:
                try:
                    value = request.run()
                except BaseException as exc:  # the caller sees it on the future; the thread lives on
                    error = exc
            with self._cond:
                # The host's slot is given back before the future's callbacks run on this thread (reading the
                # page, say): they are not a request to the host.
                state = self._hosts[request.host]
                state.in_flight -= 1
                self._schedule(request.host, state)
                spawn = self._spawn_if_needed()
            if spawn:
                self._start_thread()
            if runs:
                if error is None:
                    request.future.set_result(value)
                else:
                    request.future.set_exception(error)
            with self._cond:
                self._running -= 1
                self._idle += 1
                if len(self._hosts) > PRUNE_AFTER_HOSTS:
                    self._prune(time.monotonic())
                request, spawn = self._next()
            if spawn:
                self._start_thread()

    def _next(self) -> tuple[_Request | None, bool]:
        """Take the next request as an idle thread (lock held): the request, None when this thread is to end, and
        whether to start another thread (`_spawn_if_needed`)."""
        request = self._take()
        self._idle -= 1
        if request is None:
            self._threads -= 1
            return None, False
        return request, self._spawn_if_needed()

    def _prune(self, now: float) -> None:
        idle = [
            key
            for key, state in self._hosts.items()
            if not state.queue and not state.in_flight and not state.in_heap and now >= state.ready_at()
        ]
        for key in idle:
            del self._hosts[key]
