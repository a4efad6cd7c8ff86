"""A job keeps to its owner while the owner lives: a step longer than the lease is not resumed elsewhere, a
command follows a job taken over to its end, and SIGTERM or SIGHUP cancel a command's job."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from checks.jobs import job_start, job_step, jobs_resume_stalled
from checks.jobs.services import job_run
from checks.models import AnalysisJob
from tests.checks.test_job_command import PageCountCommand
from tests.sites.factories import make_crawl, make_page

REPO = Path(__file__).resolve().parents[2]


def counted_crawl(pages: int = 3):
    crawl = make_crawl()
    for number in range(pages):
        make_page(crawl, url=f"{crawl.site.url}p{number}.html")
    return crawl


class BeatBeside:
    """What a worker with its beat does beside the command: the resume check every half second, and a step of
    every job it resumed (as the worker would run the message)."""

    def __init__(self) -> None:
        self.resumed: list[int] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        from django import db

        try:
            while not self.stopped.wait(0.5):
                for job_id in jobs_resume_stalled():
                    self.resumed.append(job_id)
                    job_step(job_id=job_id, budget_seconds=20)
        finally:
            db.connection.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stopped.set()
        self.thread.join(timeout=60)


@pytest.mark.django_db(transaction=True)
def test_a_command_line_job_with_a_ten_second_lease_is_not_resumed_beside_it_and_writes_its_report(
    pagecount_kind, settings, tmp_path
):
    settings.WEBAUDIT_JOB_LEASE_SECONDS = 10
    crawl = counted_crawl(pages=2)
    # One chunk a step, and each chunk 11 s: every step outlives the lease, as the decay walk step did.
    PageCountCommand.pause = 11.0
    report = tmp_path / "report.json"
    err = io.StringIO()
    try:
        with BeatBeside() as beat:
            call_command(
                PageCountCommand(),
                str(crawl.pk),
                "--chunk",
                "1",
                "--json",
                str(report),
                "--quiet",
                stderr=err,
            )
    finally:
        PageCountCommand.pause = 0.0
    assert beat.resumed == []
    job = AnalysisJob.objects.get()
    assert job.status == AnalysisJob.Status.FINISHED, err.getvalue()
    assert json.loads(report.read_text()) == {"crawl": crawl.pk, "pages": 2, "chunks": 2}


@pytest.mark.django_db(transaction=True)
def test_a_job_run_in_process_that_another_step_holds_is_followed_to_its_end(pagecount_kind):
    crawl = counted_crawl()
    job = job_start(kind="pagecount", crawl=crawl, parameters={"chunk": 5}, enqueue=False)
    other = uuid.uuid4()
    AnalysisJob.objects.filter(pk=job.pk).update(
        step_token=other, status=AnalysisJob.Status.RUNNING, heartbeat_at=timezone.now()
    )

    def finish_elsewhere() -> None:
        from django import db

        time.sleep(1.0)
        AnalysisJob.objects.filter(pk=job.pk).update(step_token=None)
        job_step(job_id=job.pk, token=other)  # the other process's step runs it to the end
        db.connection.close()

    elsewhere = threading.Thread(target=finish_elsewhere)
    elsewhere.start()
    ended = job_run(job=job)
    elsewhere.join()
    assert ended.status == AnalysisJob.Status.FINISHED
    assert ended.result == {"pages": 3, "chunks": 1}


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_cancels_an_analysis_commands_job(tmp_path, stop):
    database = tmp_path / "db.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webaudit.settings",
        "WEBAUDIT_VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{database}",
    }
    env.pop("CELERY_BROKER_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
    script = """
import sys, django
django.setup()
from django.core.management import call_command
from django.core.management.base import CommandError
from checks.jobs.kinds import kind_register
from tests.checks.test_job_command import PageCountCommand
from tests.sites.factories import make_crawl, make_page
kind_register("tests.checks.jobkinds:KIND", name="pagecount")
crawl = make_crawl()
for number in range(50):
    make_page(crawl, url=f"{crawl.site.url}p{number}.html")
PageCountCommand.pause = 0.2
try:
    call_command(PageCountCommand(), str(crawl.pk), "--chunk", "1", "--quiet")
except CommandError as exc:
    print(exc, file=sys.stderr)
    sys.exit(exc.returncode)
"""
    command = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, env=env, stderr=subprocess.PIPE, text=True
    )

    def counted() -> int:
        try:
            with sqlite3.connect(database, timeout=5) as db:
                row = db.execute("SELECT progress_done FROM checks_analysisjob").fetchone()
        except sqlite3.OperationalError:
            return 0
        return row[0] if row else 0

    deadline = time.monotonic() + 60
    while counted() < 2:
        assert command.poll() is None and time.monotonic() < deadline, "the job did not get going"
        time.sleep(0.1)
    command.send_signal(stop)
    _, stderr = command.communicate(timeout=60)
    assert command.returncode == 1, stderr
    assert f"Stopped by {stop.name}:" in stderr and "cancelled" in stderr
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT status FROM checks_analysisjob").fetchall() == [("cancelled",)]


def test_a_chunk_is_sized_to_a_quarter_of_the_step_budget():
    from checks.jobs.context import JobContext

    job = AnalysisJob(state={})
    ctx = JobContext(job, token=uuid.uuid4(), budget_seconds=1.0)
    assert ctx.chunk_size("pages", first=25, most=1000) == 25
    ctx.chunk_took("pages", size=25, seconds=2.5, most=1000)  # 100 ms a page: 2.5 s for 25
    assert ctx.chunk_size("pages", first=25, most=1000) == 2  # 0.2 s next time
    ctx.chunk_took("pages", size=2, seconds=0.001, most=1000)
    assert ctx.chunk_size("pages", first=25, most=1000) == 4  # grows back while quick
    ctx.chunk_took("pages", size=800, seconds=0.0, most=1000)
    assert ctx.chunk_size("pages", first=25, most=1000) == 1000  # never past the most
