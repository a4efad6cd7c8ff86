"""A decay step's fetches still running at its deadline, as parked for the job's next step (checks/jobs/inflight.py).

A step waits for a batch of other sites' pages (checks/decay/external.py) or of pages a live walk reached
(checks/decay/live.py) only until its deadline; the requests go on in the session's threads, and the session and
their futures are parked under the job's id. The job's next step in this process takes them back and waits for
their outcomes: no request is made twice, and every verdict is the fetch's own.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field

from sites.crawler.fetching import CrawlSession, PageOutcome


@dataclass
class InFlight:
    """The session of a job's fetches and those of them not yet waited for: URL → (future, read its links)."""

    session: CrawlSession
    pending: dict[str, tuple[Future[PageOutcome], bool]] = field(default_factory=dict)

    def close(self) -> None:
        self.session.close()
