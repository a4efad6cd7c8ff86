"""Total-time deadlines for fetches, enforced by shutting down the sockets of late requests.

A socket timeout only bounds each recv(), so a server dripping a byte per second keeps a
request alive for ever. One watchdog thread per process shuts down every socket a fetch used once
that fetch's deadline passes; the blocked read then returns and the fetch reports a timeout.
"""

from __future__ import annotations

import heapq
import itertools
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class Deadline:
    """The moment one fetch must end, and the sockets to shut down when it does."""

    def __init__(self, at: float) -> None:
        self.at = at
        self.expired = False
        self._done = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return self.expired or self.remaining() <= 0

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            if self._done:
                return
            if self.expired:
                _shutdown(sock)
            elif sock not in self._sockets:
                self._sockets.append(sock)

    def expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            for sock in self._sockets:
                _shutdown(sock)
            self._sockets.clear()

    def finish(self) -> None:
        with self._lock:
            self._done = True
            self._sockets.clear()


def _shutdown(sock: socket.socket) -> None:
    # The plain socket method, even on an SSLSocket: SSLSocket.shutdown() would tear down the TLS
    # object under the reading thread's feet; shutting the descriptor just makes the read end.
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


class _Watchdog:
    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, deadline: Deadline) -> None:
        with self._cond:
            # The thread sleeps until the earliest deadline: it needs waking only when this one comes sooner. With
            # one timeout for every fetch that is never, where waking it for each fetch had it compete for the GIL
            # with the fetch threads hundreds of times a second.
            sooner = not self._heap or deadline.at < self._heap[0][0]
            heapq.heappush(self._heap, (deadline.at, next(self._order), deadline))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="fetch-deadlines", daemon=True)
                self._thread.start()
            if sooner:
                self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                deadline = heapq.heappop(self._heap)[2]
            deadline.expire()


_watchdog = _Watchdog()
_current = threading.local()


def _reset_after_fork() -> None:
    # A forked worker (Celery prefork) inherits the watchdog's state but not its thread.
    global _watchdog, _current
    _watchdog = _Watchdog()
    _current = threading.local()


os.register_at_fork(after_in_child=_reset_after_fork)


@contextmanager
def enforce(seconds: float) -> Iterator[Deadline]:
    """Give the fetch running in this thread `seconds` in total, sockets included."""
    deadline = Deadline(time.monotonic() + seconds)
    _watchdog.add(deadline)
    _current.deadline = deadline
    try:
        yield deadline
    finally:
        _current.deadline = None
        deadline.finish()


def watch_socket(sock: socket.socket | None) -> None:
    """Put a socket the current thread's fetch is using under that fetch's deadline."""
    deadline = getattr(_current, "deadline", None)
    if sock is not None and deadline is not None:
        deadline.watch(sock)
