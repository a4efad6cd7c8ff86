"""Soak of the embedded setup (SQLite and the file broker): does its worker live for an hour of beat and tasks?

    .venv/bin/python benchmarks/embedded_soak.py                    # an hour (the issue's soak)
    .venv/bin/python benchmarks/embedded_soak.py --minutes 5        # a shorter run
    .venv/bin/python benchmarks/embedded_soak.py --stock --minutes 5  # kombu's own file transport, for comparison

Starts `celery -A webaudit worker -B` as `manage.py serve` does, in a folder of its own (its SQLite database
and broker folder), with the resume checks every second (beat sends two tasks a second), while this process
publishes `--rate` more tasks a second on both queues, for `--minutes`. A worker that exits is counted and
started again. It prints, every minute and at the end: worker exits, "Unrecoverable error" and
"JSONDecodeError" lines in the worker's log, messages published and how many were left unconsumed.

Issue 18: with kombu's file transport a consumer could take a message file before it was written (a
JSONDecodeError that killed the worker right after beat sent a task); webaudit/broker.py writes each file
whole, then renames it into place. Expected with webaudit's transport: 0 exits, 0 JSONDecodeError.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def worker_command(schedule: Path) -> list[str]:
    from sites.management.commands.serve import celery_worker_command

    return celery_worker_command(concurrency=2, extra=("--schedule", str(schedule)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="how long to run (default 60)")
    parser.add_argument("--rate", type=float, default=20.0, help="tasks this process publishes a second")
    parser.add_argument(
        "--stock", action="store_true", help="kombu's own file transport instead of webaudit's"
    )
    parser.add_argument("--keep", action="store_true", help="keep the folder (database, broker, worker log)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="webaudit-soak-"))
    env = {key: value for key, value in os.environ.items() if not key.startswith("WEBAUDIT_")}
    env.pop("DATABASE_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    env.update(
        DJANGO_SETTINGS_MODULE="webaudit.settings",
        WEBAUDIT_VAR_DIR=str(folder),
        WEBAUDIT_RESUME_CHECK_SECONDS="1",
        WEBAUDIT_PAGE_READERS="1",
    )
    os.environ.update(env)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)

    import django

    django.setup()
    from django.conf import settings

    from webaudit.celery import app

    if args.stock:
        app.conf.broker_transport = None  # the URL's scheme: kombu's filesystem transport
    command = worker_command(folder / "beat-schedule")
    if args.stock:
        # The worker process reads the same setting from its app: a small module that resets it.
        (folder / "soak_stock.py").write_text(
            "from webaudit.celery import app\napp.conf.broker_transport = None\n"
        )
        command[command.index("-A") + 1] = "soak_stock:app"
        env["PYTHONPATH"] = f"{folder}:{REPO}"
    log_path = folder / "worker.log"
    log = log_path.open("ab")

    def start() -> subprocess.Popen:
        return subprocess.Popen(
            command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    worker = start()
    exits, published = 0, 0
    started = time.monotonic()
    deadline = started + args.minutes * 60
    next_report = started + 60
    tasks = ["sites.tasks.crawls_resume_stalled", "checks.tasks.jobs_resume_stalled"]
    print(
        f"soak: {'kombu stock' if args.stock else 'webaudit'} file transport, {args.minutes:g} min, "
        f"{args.rate:g} tasks/s + beat every 1 s; folder {folder}",
        flush=True,
    )

    def report(final: bool = False) -> None:
        text = log_path.read_text(errors="replace")
        queue = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
        left = len([name for name in os.listdir(queue) if name.endswith(".msg")])
        print(
            f"{'END' if final else 'at'} {(time.monotonic() - started) / 60:5.1f} min: worker exits {exits}, "
            f"Unrecoverable {text.count('Unrecoverable error')}, JSONDecodeError {text.count('JSONDecodeError')}, "
            f"published {published}, left in the queue {left}, load {os.getloadavg()[0]:.1f}",
            flush=True,
        )

    try:
        with app.connection_for_write() as connection:
            interval = 1.0 / args.rate
            while time.monotonic() < deadline:
                if worker.poll() is not None:
                    exits += 1
                    worker = start()
                app.send_task(tasks[published % 2], connection=connection, queue="default")
                published += 1
                if time.monotonic() >= next_report:
                    report()
                    next_report += 60
                time.sleep(interval)
        time.sleep(5)  # let the worker drain
        if worker.poll() is not None:
            exits += 1
        report(final=True)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
        if not args.keep:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
    return 0 if exits == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
