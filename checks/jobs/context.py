"""What a kind's step works with: the job, its cursor, the time it has, and the way to save progress."""

from __future__ import annotations

import time
import uuid
from typing import Any

from django.utils import timezone

from checks.models import AnalysisJob


class JobInputError(ValueError):
    """The job cannot start as asked (bad parameters, a crawl that cannot be analysed); the message is for users."""


class JobError(RuntimeError):
    """The job failed for a reason its user should read (not a bug)."""


class JobStopped(Exception):
    """The job was cancelled, or another step took it over: this step must stop without saving anything."""


class JobContext:
    """The step's handle on its job (docs/analysis-jobs.md). `state` is the kind's cursor, saved by progress()."""

    def __init__(self, job: AnalysisJob, *, token: uuid.UUID, budget_seconds: float) -> None:
        self.job = job
        self.token = token
        self.state: dict[str, Any] = job.state
        self.budget_seconds = budget_seconds
        self.deadline = time.monotonic() + budget_seconds
        self.result: dict[str, Any] | None = None
        self._saved = False

    def time_up(self) -> bool:
        """True once the step's budget is spent; never before its first saved chunk, so every step gets on."""
        return self._saved and time.monotonic() >= self.deadline

    def chunk_size(self, key: str, *, first: int, most: int) -> int:
        """How many items the next chunk of this kind's loop `key` should take (kept in the cursor)."""
        return int(self.state.get(f"chunk:{key}", first)) or first

    def chunk_took(self, key: str, *, size: int, seconds: float, most: int) -> None:
        """Size the next chunk so that one takes about a quarter of the step's budget: a step then returns
        within its budget and a chunk (checked against the clock only between chunks) never pushes it past
        twice that, whether a page costs a millisecond or a hundred."""
        target = self.budget_seconds / 4
        if seconds > target and size > 1:
            size = max(1, int(size * target / seconds))
        elif seconds < target / 4:
            size = min(most, size * 2)
        self.state[f"chunk:{key}"] = size

    @property
    def parameters(self) -> dict[str, Any]:
        return self.job.parameters

    def progress(self, done: int, total: int | None = None, note: str = "") -> None:
        """Save progress and the cursor, if the job is still this step's and still active; else raise JobStopped
        (inside a transaction, so that the chunk it closes is rolled back with it)."""
        fields: dict[str, Any] = {
            "progress_done": max(0, done),
            "state": self.state,
            "heartbeat_at": timezone.now(),
        }
        if total is not None:
            fields["progress_total"] = max(0, total)
        if note:
            fields["progress_note"] = note[:300]
        owned = AnalysisJob.objects.filter(
            pk=self.job.pk, status__in=AnalysisJob.ACTIVE, step_token=self.token
        ).update(**fields)
        if not owned:
            raise JobStopped(f"job {self.job.pk} was cancelled or taken over")
        for name, value in fields.items():
            setattr(self.job, name, value)
        self._saved = True

    def finish(self, *, result: dict[str, Any]) -> None:
        """Keep `result` as the job's summary; it is saved when the step returns True."""
        self.result = result
