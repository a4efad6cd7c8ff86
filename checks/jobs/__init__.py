"""Analysis jobs: every analysis over a crawl or a site runs as one, in steps (docs/analysis-jobs.md)."""

from checks.jobs.context import JobContext, JobError, JobInputError, JobStopped
from checks.jobs.kinds import JobKind, job_kind, job_kinds
from checks.jobs.services import (
    job_cancel,
    job_follow,
    job_report_json,
    job_run,
    job_start,
    job_step,
    jobs_resume_stalled,
)

__all__ = [
    "JobContext",
    "JobError",
    "JobInputError",
    "JobKind",
    "JobStopped",
    "job_cancel",
    "job_follow",
    "job_kind",
    "job_kinds",
    "job_report_json",
    "job_run",
    "job_start",
    "job_step",
    "jobs_resume_stalled",
]
