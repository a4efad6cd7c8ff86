"""While a job's step runs, a thread renews the job's heartbeat: a live step is never taken over, however
long it runs, and a dead one is resumed once the lease has passed (docs/analysis-jobs.md)."""

from __future__ import annotations

import logging
import threading
import uuid

from django import db
from django.db import DatabaseError
from django.utils import timezone

from checks.models import AnalysisJob

log = logging.getLogger(__name__)


class HeartbeatKeeper:
    """Renews `heartbeat_at` of the job every `interval` seconds while the step holding `token` owns it (a step
    taken over or cancelled stops renewing at once: the guard is the same as `JobContext.progress`'s)."""

    def __init__(self, job_id: int, token: uuid.UUID, interval: float) -> None:
        self.job_id, self.token, self.interval = job_id, token, max(interval, 0.2)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"job-heartbeat-{job_id}", daemon=True)

    def __enter__(self) -> HeartbeatKeeper:
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)

    def _run(self) -> None:
        try:
            while not self.stopped.wait(self.interval):
                try:
                    owned = AnalysisJob.objects.filter(
                        pk=self.job_id, status__in=AnalysisJob.ACTIVE, step_token=self.token
                    ).update(heartbeat_at=timezone.now())
                except DatabaseError as exc:
                    # The database is away or locked: the step meets it too; try again next time.
                    log.warning("analysis job %s: cannot renew its heartbeat: %s", self.job_id, exc)
                    db.connection.close()
                    continue
                if not owned:
                    return
        finally:
            db.connection.close()
