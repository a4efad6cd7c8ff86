"""Celery tasks of the analyses: thin wrappers that call checks.jobs.services."""

from __future__ import annotations

import uuid

from celery import shared_task
from celery.signals import worker_ready
from django.db import DatabaseError

from checks.jobs import services as jobs


@shared_task(bind=True, max_retries=8)
def analysis_step(self, job_id: int, token: str | None = None) -> None:
    """Work on an analysis job for one step, then enqueue the next step while work is left."""
    token = token or str(uuid.uuid4())
    try:
        more = jobs.job_step(job_id=job_id, token=token)
    except DatabaseError as exc:
        # The same token, so the retried step takes back the job it held instead of waiting out the lease.
        raise self.retry(
            exc=exc, kwargs={"job_id": job_id, "token": token}, countdown=min(60, 2**self.request.retries)
        ) from exc
    if more:
        analysis_step.delay(job_id)


@shared_task
def jobs_resume_stalled() -> list[int]:
    return jobs.jobs_resume_stalled()


@worker_ready.connect
def _resume_stalled_jobs_on_start(sender=None, **kwargs) -> None:
    # A worker starting after a crash is the first to notice jobs whose worker died.
    jobs_resume_stalled.delay()
