"""The embedded setup through a killed worker: SQLite and kombu's file broker (what `scripts/run` starts).

The worker is killed with SIGKILL while it holds SQLite's write lock (in the middle of writing a batch, or
renewing its lease), a new worker is started, and the crawl ends with the page set and link count of an
uninterrupted crawl, no page twice, going on within lease + resume check + 20 s (tests/sites/outages.py).
`audit --worker` stopped by SIGTERM cancels the crawl and the worker stops working on it; `audit` crawling
in-process and stopped by SIGTERM or SIGHUP on SQLite is tested in test_audit_control.py. A broker restart
and a database restart have no meaning here: there is no server (the broker is a folder, the database a file;
docs/operations.md, "The embedded setup").
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sites.management.commands.serve import celery_worker_command
from tests.sites.outages import (
    PAGES,
    REPO,
    RESUMED_WITHIN,
    assert_same_crawl,
    deployment_env,
    wait_for,
    workers_stop,
)

pytestmark = [
    pytest.mark.worker,
    # Its database and broker are its own (a file and a folder): the PostgreSQL pass would run it again as is.
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="runs once, in the SQLite pass: its database is its own",
    ),
]


class Embedded:
    """webaudit as `scripts/run` runs it, in a folder of its own: manage.py commands, workers, the database."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.database = folder, folder / "webaudit.sqlite3"
        self.env = deployment_env(folder)  # the folder holds the database file and the broker's folder
        self.workers: list[subprocess.Popen] = []

    def manage(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=REPO,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def start_worker(self) -> subprocess.Popen:
        worker = subprocess.Popen(
            celery_worker_command(concurrency=1, extra=("--schedule", str(self.folder / "beat-schedule"))),
            cwd=REPO,
            env=self.env,
            stdout=(self.folder / "worker.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: SIGKILL to it kills the pool child and beat too
        )
        self.workers.append(worker)
        return worker

    def worker_log(self) -> str:
        return (self.folder / "worker.log").read_text(errors="replace")[-5000:]

    def query(self, sql: str, *params):
        with sqlite3.connect(self.database, timeout=10) as db:
            return db.execute(sql, params).fetchone()

    def pages_done(self, crawl_id: int) -> int:
        return self.query("SELECT count(*) FROM sites_page WHERE crawl_id = ? AND state = 'done'", crawl_id)[
            0
        ]

    def stop_workers(self) -> None:
        workers_stop(self.workers)


@pytest.fixture
def embedded(tmp_path):
    deploy = Embedded(tmp_path)
    migrated = deploy.manage("migrate", "-v", "0")
    assert migrated.returncode == 0, migrated.stderr
    try:
        yield deploy
    finally:
        deploy.stop_workers()


def someone_writes(database: Path) -> bool:
    """Whether another connection holds SQLite's write lock: asking for it without waiting is refused.

    webaudit opens every transaction with BEGIN IMMEDIATE (webaudit/settings.py), so a worker holds the lock
    from the first statement of a batch's write to its commit. When it is free, it is released at once."""
    db = sqlite3.connect(database, timeout=0, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        db.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return True
        raise
    finally:
        db.close()


def test_a_crawl_on_the_embedded_setup_survives_its_worker_killed_during_a_write(
    embedded, generated_site_url, tmp_path
):
    reference_report = tmp_path / "reference.json"
    crawled = embedded.manage(
        "audit", generated_site_url, "--json", str(reference_report), "--quiet", "--delay", "0"
    )
    assert crawled.returncode == 0, crawled.stderr
    reference = json.loads(reference_report.read_text())

    first = embedded.start_worker()
    report = tmp_path / "interrupted.json"
    following = subprocess.Popen(
        [sys.executable, "manage.py", "audit", generated_site_url, "--worker", "--json", str(report)]
        + ["--concurrency", "1", "--delay", "0.03"],  # slow enough that the kill falls mid-crawl
        cwd=REPO,
        env=embedded.env,
        stdout=(tmp_path / "audit.log").open("w"),
        stderr=subprocess.STDOUT,
    )
    try:
        crawl_id = 2  # the reference crawl was the first
        wait_for(
            lambda: embedded.query("SELECT count(*) FROM sites_crawl")[0] == 2
            and embedded.pages_done(crawl_id) >= 60,
            120,
            f"60 pages of the crawl on the worker (worker log: {embedded.worker_log()})",
        )
        # A batch's write lasts milliseconds: asked every 2 ms, the worker is caught holding the lock.
        wait_for(lambda: someone_writes(embedded.database), 60, "the worker to write", poll=0.002)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        done = embedded.pages_done(crawl_id)
        assert done < PAGES, "the crawl ended before the worker was killed"

        embedded.start_worker()
        waited = wait_for(
            lambda: embedded.pages_done(crawl_id) > done, RESUMED_WITHIN + 30, "the crawl to go on"
        )
        print(f"crawl {crawl_id} went on {waited:.1f} s after the new worker was started")
        assert waited <= RESUMED_WITHIN, embedded.worker_log()
        following.wait(timeout=300)
    finally:
        if following.poll() is None:
            following.kill()
    said = (tmp_path / "audit.log").read_text()
    assert following.returncode == 0, said[-3000:] + embedded.worker_log()
    assert_same_crawl(reference, json.loads(report.read_text()), PAGES)


def test_audit_following_a_worker_on_the_embedded_setup_stops_on_sigterm_and_the_worker_stops_too(
    embedded, generated_site_url, tmp_path
):
    embedded.start_worker()
    report = tmp_path / "stopped.json"
    following = subprocess.Popen(
        [sys.executable, "manage.py", "audit", generated_site_url, "--worker", "--json", str(report)]
        + ["--concurrency", "1", "--delay", "0.03"],
        cwd=REPO,
        env=embedded.env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(
            lambda: embedded.query("SELECT count(*) FROM sites_crawl")[0] == 1
            and embedded.pages_done(1) >= 20,
            120,
            f"20 pages of the crawl on the worker (worker log: {embedded.worker_log()})",
        )
        following.send_signal(signal.SIGTERM)
        _, said = following.communicate(timeout=60)
    finally:
        if following.poll() is None:
            following.kill()

    assert following.returncode == 0, said
    assert "Stopped by SIGTERM: crawl cancelled; writing what was found." in said
    assert json.loads(report.read_text())["crawl"]["status"] == "cancelled"
    assert embedded.query("SELECT status FROM sites_crawl WHERE id = 1") == ("cancelled",)
    # The worker's step sees the cancellation at its next batch (a batch lasts well under a second here) and
    # ends the chain: the page count stops.
    time.sleep(2)
    stopped_at = embedded.pages_done(1)
    time.sleep(3)
    assert embedded.pages_done(1) == stopped_at < PAGES
