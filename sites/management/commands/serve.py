"""`manage.py serve`: the web server (gunicorn) and a Celery worker (with its beat) together; Ctrl-C stops both."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from django.core.management import call_command
from django.core.management.base import CommandError, CommandParser

from sites.cli import Command as WebauditCommand
from sites.cli import bounded


def celery_worker_command(
    *, concurrency: int, loglevel: str = "INFO", extra: tuple[str, ...] = ()
) -> list[str]:
    """The Celery worker of the embedded setup: both queues, and (-B) the beat that resumes stalled crawls.

    As Celery's documentation starts a worker: gossip and mingle (worker-to-worker events nothing here uses,
    whose channels made the worker exit when Redis restarted, docs/operations.md) are left out by the app's
    own consumer (webaudit/worker.py), not by command-line flags."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "webaudit",
        "worker",
        "-B",
        "-Q",
        "default,crawl",
        "--concurrency",
        str(concurrency),
        "--loglevel",
        loglevel,
        *extra,
    ]


class Command(WebauditCommand):
    help = "Run the web server and a Celery worker together until interrupted."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=bounded(int, 1, 65535, "--port"), default=8000)
        parser.add_argument("--web-workers", type=bounded(int, 1, 64, "--web-workers"), default=2)
        parser.add_argument(
            "--worker-concurrency",
            type=bounded(int, 1, 64, "--worker-concurrency"),
            default=2,
            help="crawls the Celery worker runs at once",
        )

    def handle(self, *args, **options) -> None:
        # The pages name their static files through the manifest collectstatic writes: without it every page
        # answers 500. Collecting is quick and leaves unchanged files alone, so serve does it on every start.
        call_command("collectstatic", interactive=False, verbosity=0)
        python = sys.executable
        commands = {
            "web": [
                python,
                "-m",
                "gunicorn",
                "webaudit.wsgi",
                "--bind",
                f"{options['host']}:{options['port']}",
                "--workers",
                str(options["web_workers"]),
                "--threads",
                "4",
                "--access-logfile",
                "-",
            ],
            "worker": celery_worker_command(concurrency=options["worker_concurrency"]),
        }
        processes = {name: subprocess.Popen(command) for name, command in commands.items()}
        self.stdout.write(
            f"webaudit on http://{options['host']}:{options['port']}/ (web pid "
            f"{processes['web'].pid}, worker pid {processes['worker'].pid}); Ctrl-C stops both."
        )
        stopping = False

        def stop(*_args) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        failed = None
        while not stopping:
            for name, process in processes.items():
                if process.poll() is not None:
                    failed = f"the {name} process exited with code {process.returncode}"
                    stopping = True
            time.sleep(0.5)
        for process in processes.values():
            if process.poll() is None:
                process.terminate()
        for process in processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        if failed:
            raise CommandError(f"Stopped: {failed}.")
        self.stdout.write("Stopped web server and worker.")
