"""Running an analysis job in steps the way workers do, timing each: the tests that hold a kind to its step
budget all need the same loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from checks.jobs import job_step


@dataclass(frozen=True)
class SteppedRun:
    steps: int  # job_step calls, the last one included
    longest: float  # seconds the longest of them took
    finished: bool  # False when the run gave up after max_steps


def run_in_steps(
    job_id: int,
    budget: float,
    *,
    max_steps: int = 200,
    between_steps: Callable[[], None] | None = None,
) -> SteppedRun:
    """Call job_step with `budget` until the job has no more to do (or `max_steps` calls); `between_steps` runs
    after every step that leaves more (e.g. to drop what a step left in flight, as another process would)."""
    steps, longest = 0, 0.0
    while steps < max_steps:
        started = time.monotonic()
        more = job_step(job_id=job_id, budget_seconds=budget)
        longest = max(longest, time.monotonic() - started)
        steps += 1
        if not more:
            return SteppedRun(steps, longest, finished=True)
        if between_steps is not None:
            between_steps()
    return SteppedRun(steps, longest, finished=False)
