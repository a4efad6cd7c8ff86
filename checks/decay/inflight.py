"""Fetches a decay step started and stopped waiting for at its deadline, kept for the job's next step.

A step waits for a batch of other sites' pages (checks/decay/external.py) or of pages a live walk reached
(checks/decay/live.py) only until its deadline: a host that does not answer holds its request for the whole fetch
timeout, 5 s and more past a 1-s budget. The requests go on in the session's threads; the session and their
futures are parked here, in this process, under the job's id. The job's next step, when this process runs it,
takes them back and waits for their outcomes (within its own budget): no request is made twice, and every verdict
is the fetch's own (a slow host's timeout is still a timeout, never a verdict made at the deadline). Run by
another process, the next step finds nothing here and asks again. An entry no step takes (the job was cancelled,
or went on elsewhere) is closed after the job's lease.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, wait
from dataclasses import dataclass, field

from django.conf import settings

from sites.crawler.fetching import CrawlSession, PageOutcome


@dataclass
class InFlight:
    """The session of a job's fetches and those of them not yet waited for: URL → (future, read its links)."""

    session: CrawlSession
    pending: dict[str, tuple[Future[PageOutcome], bool]] = field(default_factory=dict)
    parked_at: float = 0.0


_lock = threading.Lock()
_parked: dict[tuple[int, str], InFlight] = {}


def park(job_id: int, purpose: str, in_flight: InFlight) -> None:
    """Keep `in_flight` (its session open) for the job's next step in this process."""
    in_flight.parked_at = time.monotonic()
    with _lock:
        stale = _expired()
        replaced = _parked.pop((job_id, purpose), None)
        _parked[(job_id, purpose)] = in_flight
    for old in [*stale, *([replaced] if replaced not in (None, in_flight) else [])]:
        old.session.close()


def take(job_id: int, purpose: str) -> InFlight | None:
    """What the job's last step in this process left running for `purpose`, now the caller's to close or park."""
    with _lock:
        stale = _expired()
        taken = _parked.pop((job_id, purpose), None)
    for old in stale:
        old.session.close()
    return taken


def _expired() -> list[InFlight]:
    """Entries older than the job's lease (no step of the job will come back here for them); under _lock."""
    oldest = time.monotonic() - settings.WEBAUDIT_JOB_LEASE_SECONDS
    keys = [key for key, entry in _parked.items() if entry.parked_at < oldest]
    return [_parked.pop(key) for key in keys]


def wait_until(
    futures: dict[str, Future[PageOutcome]], deadline: float | None
) -> tuple[dict[str, PageOutcome], dict[str, Future[PageOutcome]]]:
    """Wait for `futures` until `deadline` (time.monotonic; None: to the end): (outcomes of those done, by URL, in
    the order given; those still running)."""
    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
    wait(list(futures.values()), timeout=timeout)
    done = {url: future.result() for url, future in futures.items() if future.done()}
    return done, {url: future for url, future in futures.items() if url not in done}
