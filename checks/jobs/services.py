"""Analysis jobs' lifecycle: start, work in steps, finish or fail, cancel, resume after a dead worker."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, IntegrityError
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.module_loading import import_string

from checks.jobs.context import JobContext, JobError, JobInputError, JobStopped
from checks.jobs.keeper import HeartbeatKeeper
from checks.jobs.kinds import UnknownKind, job_kind
from checks.models import AnalysisJob, JobScratch
from sites.models import Crawl, Site

log = logging.getLogger(__name__)


def job_start(
    *,
    kind: str,
    crawl: Crawl | None = None,
    site: Site | None = None,
    parameters: dict | None = None,
    requested_by=None,
    enqueue: bool = True,
) -> AnalysisJob:
    """Check the parameters, create the job and hand its first step to the workers on commit."""
    try:
        spec = job_kind(kind)
    except UnknownKind as exc:
        raise JobInputError(str(exc)) from None
    if spec.scope == "crawl":
        if crawl is None:
            raise JobInputError(f"{spec.label} runs over a crawl; none was given.")
        if crawl.status != Crawl.Status.FINISHED:
            raise JobInputError(
                f"Crawl #{crawl.pk} is {crawl.status}; {spec.label.lower()} needs a finished crawl."
            )
        site = crawl.site
    elif site is None:
        raise JobInputError(f"{spec.label} runs over a site; none was given.")
    cleaned = spec.clean(crawl if spec.scope == "crawl" else site, dict(parameters or {}))
    job = AnalysisJob.objects.create(
        kind=kind,
        site=site,
        crawl=crawl if spec.scope == "crawl" else None,
        parameters=cleaned,
        requested_by=requested_by if getattr(requested_by, "pk", None) else None,
    )
    if enqueue:
        job_enqueue(job=job)
    return job


def job_enqueue(*, job: AnalysisJob) -> None:
    # Found in Celery's registry by name (checks/apps.py imports the tasks), since the tasks module imports this one.
    current_app.tasks["checks.tasks.analysis_step"].delay_on_commit(job.pk)


def job_step(
    *, job_id: int, token: str | uuid.UUID | None = None, budget_seconds: float | None = None
) -> bool:
    """Work on the job for about `budget_seconds`; True when a next step should follow.

    A step owns the job through `step_token` from the moment it takes it until it returns; a second message for
    the same job (a duplicate, a resume that raced a live step) finds the job held and does nothing. `token` lets
    a step retried after a database error take back the job it held.
    """
    token = uuid.UUID(str(token)) if token else uuid.uuid4()
    now = timezone.now()
    stale = now - timedelta(seconds=settings.WEBAUDIT_JOB_LEASE_SECONDS)
    free = Q(step_token__isnull=True) | Q(step_token=token) | Q(heartbeat_at__lt=stale)
    taken = (
        AnalysisJob.objects.filter(pk=job_id, status__in=AnalysisJob.ACTIVE)
        .filter(free)
        .update(
            step_token=token,
            status=AnalysisJob.Status.RUNNING,
            heartbeat_at=now,
            started_at=Coalesce("started_at", now),
        )
    )
    if not taken:
        return False
    job = AnalysisJob.objects.select_related("site", "crawl").get(pk=job_id)
    budget = budget_seconds or settings.WEBAUDIT_JOB_STEP_SECONDS
    context = JobContext(job, token=token, budget_seconds=budget)
    started = time.monotonic()
    try:
        # The heartbeat is renewed while the step runs, so a step that overruns its budget is never resumed
        # elsewhere while it lives (the lease is for dead steps, not slow ones).
        with HeartbeatKeeper(job_id, token, interval=settings.WEBAUDIT_JOB_LEASE_SECONDS / 4):
            finished = job_kind(job.kind).step(context)
    except JobStopped:
        return False
    except IntegrityError:
        if not _owned(job_id, token):
            return False  # another step took the job over and wrote the same rows first: this one stops
        raise
    except DatabaseError:
        raise  # the task retries the step with the same token
    except (JobError, JobInputError) as exc:
        job_fail(job_id=job_id, error=str(exc))
        return False
    except Exception as exc:
        # A bug, not bad input: end the job visibly instead of retrying it forever.
        log.exception("analysis job %s failed", job_id)
        job_fail(job_id=job_id, error=f"Internal error: {type(exc).__name__}: {exc}")
        return False
    finally:
        _overrun_check(job_id, kind=job.kind, seconds=time.monotonic() - started, budget=budget)
    mine = AnalysisJob.objects.filter(pk=job_id, status__in=AnalysisJob.ACTIVE, step_token=token)
    if finished:
        fields = {"status": AnalysisJob.Status.FINISHED, "finished_at": timezone.now(), "step_token": None}
        if context.result is not None:
            fields["result"] = context.result
        if mine.update(**fields):
            _scratch_drop(job_id)
            job_ended_hooks_run(job_id=job_id)
        return False
    return bool(mine.update(step_token=None, heartbeat_at=timezone.now()))


def _owned(job_id: int, token: uuid.UUID) -> bool:
    return AnalysisJob.objects.filter(pk=job_id, status__in=AnalysisJob.ACTIVE, step_token=token).exists()


# A step may overrun its budget by one chunk; past this many budgets its kind checks the clock too seldom.
OVERRUN_FACTOR = 2.0


def _overrun_check(job_id: int, *, kind: str, seconds: float, budget: float) -> None:
    """Log a step that kept its worker (or the command line) for more than twice its budget: a kind that must
    check `ctx.time_up()` more often. The job is safe meanwhile (its heartbeat is renewed), but slow to cancel."""
    if seconds > OVERRUN_FACTOR * budget:
        log.warning(
            "analysis job %s (%s): a step ran %.1f s against a budget of %.1f s",
            job_id,
            kind,
            seconds,
            budget,
        )


def _scratch_drop(job_id: int) -> None:
    """An ended job's partial results between steps (checks.jobs.scratch) serve nobody any more."""
    JobScratch.objects.filter(job_id=job_id).delete()


def job_fail(*, job_id: int, error: str) -> bool:
    failed = AnalysisJob.objects.filter(pk=job_id, status__in=AnalysisJob.ACTIVE).update(
        status=AnalysisJob.Status.FAILED, error=error[:5000], finished_at=timezone.now(), step_token=None
    )
    if failed:
        _scratch_drop(job_id)
        job_ended_hooks_run(job_id=job_id)
    return bool(failed)


def job_cancel(*, job: AnalysisJob) -> bool:
    """Stop a queued or running job; what it saved stays. False when it had already ended."""
    cancelled = AnalysisJob.objects.filter(pk=job.pk, status__in=AnalysisJob.ACTIVE).update(
        status=AnalysisJob.Status.CANCELLED, finished_at=timezone.now(), step_token=None
    )
    if cancelled:
        _scratch_drop(job.pk)
    job.refresh_from_db()
    if cancelled:
        job_ended_hooks_run(job_id=job.pk)
    return bool(cancelled)


def job_ended_hooks_run(*, job_id: int) -> None:
    """Call each of settings.WEBAUDIT_JOB_ENDED_HOOKS with the job that just ended (finished, failed or
    cancelled: once, by whoever ended it); one that fails is only logged."""
    job = AnalysisJob.objects.select_related("crawl", "site").filter(pk=job_id).first()
    if job is None:
        return
    for path in settings.WEBAUDIT_JOB_ENDED_HOOKS:
        try:
            import_string(path.replace(":", "."))(job=job)
        except Exception:  # what follows an analysis must never change how the analysis ended
            log.exception("job-ended hook %s failed for analysis job %s", path, job_id)


def jobs_resume_stalled() -> list[int]:
    """Re-enqueue active jobs that no step has reported on within the lease (their worker died, or their
    message was lost); return their ids. The old step, should it wake up, finds the job no longer its own."""
    stale = timezone.now() - timedelta(seconds=settings.WEBAUDIT_JOB_LEASE_SECONDS)
    stalled = AnalysisJob.objects.active().filter(
        Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, created_at__lt=stale)
    )
    resumed = []
    for job in stalled:
        # Guarded by the heartbeat seen: a second resume check, or a step that just reported, wins the race.
        touched = AnalysisJob.objects.filter(
            pk=job.pk, heartbeat_at=job.heartbeat_at, status__in=AnalysisJob.ACTIVE
        )
        if touched.update(step_token=None, heartbeat_at=timezone.now()):
            log.warning("analysis job %s stalled; resuming", job.pk)
            job_enqueue(job=job)
            resumed.append(job.pk)
    return resumed


def job_run(
    *,
    job: AnalysisJob,
    on_progress: Callable[[AnalysisJob], None] | None = None,
    step_seconds: float = 1.0,
) -> AnalysisJob:
    """Run a job to its end in this process (the CLI and tests), reporting progress after every step.

    Should another process hold the job (a resume that raced this one), this follows it to its end instead of
    leaving while it runs elsewhere: the caller gets the job's outcome either way."""
    while True:
        more = job_step(job_id=job.pk, budget_seconds=step_seconds)
        job.refresh_from_db()
        if on_progress:
            on_progress(job)
        if not more:
            if job.is_active:
                log.warning("analysis job %s is running elsewhere; following it", job.pk)
                return job_follow(job=job, on_progress=on_progress, poll_seconds=0.5)
            return job


def job_follow(
    *, job: AnalysisJob, on_progress: Callable[[AnalysisJob], None] | None = None, poll_seconds: float = 1.0
) -> AnalysisJob:
    """Wait for a job the workers run, reporting its progress; returns once it has ended."""
    while True:
        job.refresh_from_db()
        if on_progress:
            on_progress(job)
        if not job.is_active:
            return job
        time.sleep(poll_seconds)


def job_report_json(*, job: AnalysisJob) -> str:
    """The kind's report of a finished job as JSON text: what `--json` writes and what the dashboard offers
    for download, the same bytes."""
    return json.dumps(job_kind(job.kind).report(job), indent=1, ensure_ascii=False) + "\n"
