"""Requests a job's step started and stopped waiting for at its deadline, kept for the job's next step.

A step that waits for a request only until its deadline (a host that does not answer holds its request for the
whole fetch timeout, 5 s and more past a 1-s budget) leaves the request running in its own threads. What it left
(the fetcher, the threads and the futures) is parked here, in this process, under the job's id and a purpose
("external", "live", "findpage"). The job's next step, when this process runs it, takes it back and waits for
the outcomes (within its own budget): no request is made twice, and every outcome is the request's own (a slow
host's timeout is still a timeout, never a verdict made at the deadline). Run by another process, the next step
finds nothing here and asks again. An entry no step takes (the job was cancelled, or went on elsewhere) is closed
after the job's lease.

Used by decay (checks/decay/external.py, live.py) and the page search (checks/pagefinding/live.py).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, wait
from typing import Protocol, TypeVar

from django.conf import settings


class Parkable(Protocol):
    def close(self) -> None:
        """Stop what is still running and let go of its connections and threads (no step will take it)."""


Entry = TypeVar("Entry", bound=Parkable)
Key = TypeVar("Key")
Value = TypeVar("Value")

_lock = threading.Lock()
_parked: dict[tuple[int, str], tuple[float, Parkable]] = {}


def park(job_id: int, purpose: str, entry: Parkable) -> None:
    """Keep `entry` (still running) for the job's next step in this process."""
    with _lock:
        stale = _expired()
        replaced = _parked.pop((job_id, purpose), None)
        _parked[(job_id, purpose)] = (time.monotonic(), entry)
    for old in [*stale, *([replaced[1]] if replaced is not None and replaced[1] is not entry else [])]:
        old.close()


def take(job_id: int, purpose: str) -> Parkable | None:
    """What the job's last step in this process left running for `purpose`, now the caller's to close or park."""
    with _lock:
        stale = _expired()
        taken = _parked.pop((job_id, purpose), None)
    for old in stale:
        old.close()
    return None if taken is None else taken[1]


def _expired() -> list[Parkable]:
    """Entries older than the job's lease (no step of the job will come back here for them); under _lock."""
    oldest = time.monotonic() - settings.WEBAUDIT_JOB_LEASE_SECONDS
    keys = [key for key, (parked_at, _) in _parked.items() if parked_at < oldest]
    return [_parked.pop(key)[1] for key in keys]


def wait_until(
    futures: dict[Key, Future[Value]], deadline: float | None
) -> tuple[dict[Key, Value], dict[Key, Future[Value]]]:
    """Wait for `futures` until `deadline` (time.monotonic; None: to the end): (outcomes of those done, by key, in
    the order given; those still running)."""
    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
    wait(list(futures.values()), timeout=timeout)
    done = {key: future.result() for key, future in futures.items() if future.done()}
    return done, {key: future for key, future in futures.items() if key not in done}
