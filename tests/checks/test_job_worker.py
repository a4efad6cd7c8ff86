"""A real Celery worker on Redis runs an analysis job; killed mid-job, the job resumes on the next worker and
ends having done every chunk exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import kombu
import pytest

from checks.jobs import job_start
from checks.models import AnalysisJob
from checks.tasks import analysis_step
from tests.sites.factories import make_crawl, make_page
from tests.sites.test_worker_resume import (
    REPO,
    wait_for,
    worker_env,  # noqa: F401 - a fixture, used by name
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.worker]

PAGES = 30


def start_worker(env: dict[str, str], log) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "celery", "-A", "tests.checks.celery_with_test_kind", "worker", "-B",
        "-Q", "default,crawl", "--concurrency", "1", "--loglevel", "INFO",
        "--schedule", str(log.parent / "beat-schedule"),
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=REPO, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True
    )


def test_a_job_survives_its_worker_being_killed_and_counts_every_page_once(worker_env, tmp_path):  # noqa: F811
    worker_env.update(WEBAUDIT_JOB_STEP_SECONDS="1", WEBAUDIT_JOB_LEASE_SECONDS="3")
    crawl = make_crawl()
    for number in range(PAGES):
        make_page(crawl, url=f"{crawl.site.url}p{number}.html")
    from checks.jobs.kinds import kind_register

    kind_register("tests.checks.jobkinds:KIND", name="pagecount")
    job = job_start(kind="pagecount", crawl=crawl, parameters={"chunk": 1, "pause": 0.15}, enqueue=False)
    with kombu.Connection(worker_env["CELERY_BROKER_URL"]) as broker:
        analysis_step.apply_async((job.pk,), connection=broker)

    log = tmp_path / "worker.log"
    first = start_worker(worker_env, log)
    try:
        wait_for(
            lambda: AnalysisJob.objects.get(pk=job.pk).progress_done >= 8, 60, f"8 pages counted ({log})"
        )
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.RUNNING and job.progress_done < PAGES

    second = start_worker(worker_env, log)
    try:
        wait_for(lambda: not AnalysisJob.objects.get(pk=job.pk).is_active, 90, f"the job to end ({log})")
    finally:
        os.killpg(second.pid, signal.SIGTERM)
        second.wait(timeout=30)
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.FINISHED, log.read_text()[-3000:]
    assert job.result["pages"] == PAGES and job.state["counted"] == PAGES
