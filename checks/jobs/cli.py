"""The command-line convention of every analysis: `--json FILE|-`, `--worker`, progress, exit 2 on bad input."""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from checks.jobs.context import JobInputError
from checks.jobs.services import job_cancel, job_enqueue, job_follow, job_report_json, job_run
from checks.models import AnalysisJob
from sites.cli import BAD_INPUT, bad_input, json_destination_check, json_write_atomically
from sites.models import Crawl

__all__ = ["BAD_INPUT", "bad_input", "json_destination_check", "json_write_atomically"]


def crawl_for_analysis(value: Any) -> Crawl:
    """The finished crawl with id `value`, or a bad-input error that says what is wrong with it."""
    try:
        crawl = Crawl.objects.select_related("site").filter(pk=int(value)).first()
    except (TypeError, ValueError):
        raise bad_input(f"{value!r} is not a crawl id") from None
    if crawl is None:
        raise bad_input(f"there is no crawl #{value}")
    if crawl.status != Crawl.Status.FINISHED:
        raise bad_input(f"crawl #{crawl.pk} is {crawl.status}; only a finished crawl can be analysed")
    return crawl


class JobProgress:
    """A progress bar on a terminal (tqdm on stderr); a line every few seconds when stderr is not a terminal."""

    def __init__(self, enabled: bool, unit: str = "item") -> None:
        self.enabled, self.bar, self.last_line = enabled, None, 0.0
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=1, unit=unit, file=sys.stderr, dynamic_ncols=True)

    def update(self, job: AnalysisJob) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.total = job.progress_total or max(job.progress_done, 1)
            self.bar.n = job.progress_done
            self.bar.set_description_str(job.progress_note[:60], refresh=False)
            self.bar.refresh()
        elif time.monotonic() - self.last_line > 5 or not job.is_active:
            self.last_line = time.monotonic()
            total = f"/{job.progress_total}" if job.progress_total is not None else ""
            note = f" ({job.progress_note})" if job.progress_note else ""
            print(f"{job}: {job.status}, {job.progress_done}{total}{note}", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class JobCommand(BaseCommand):
    """Base of the analysis commands. A subclass adds its arguments and starts its job (not enqueued);
    this runs it in-process (or hands it to the workers with --worker) and writes the kind's report."""

    progress_unit = "item"

    def add_job_arguments(self, parser: CommandParser) -> None:
        """The command's own arguments."""

    def start_job(self, options: dict[str, Any]) -> AnalysisJob:
        """Validate the arguments (raise bad_input or JobInputError) and create the job with enqueue=False."""
        raise NotImplementedError

    def summary(self, job: AnalysisJob) -> str:
        """The line written to stderr when the job has ended."""
        return f"{job}: {job.status}" + (f": {job.error}" if job.error else "")

    def add_arguments(self, parser: CommandParser) -> None:
        self.add_job_arguments(parser)
        parser.add_argument("--json", metavar="FILE", help="write the result here ('-' for standard output)")
        parser.add_argument(
            "--worker", action="store_true", help="hand the job to the Celery workers and follow it"
        )
        parser.add_argument("--quiet", action="store_true", help="no progress output")

    def handle(self, *args, **options) -> None:
        # The output is checked before the job starts: an unwritable path is bad input, and costs no work.
        destination = options["json"]
        if destination not in (None, "-"):
            json_destination_check(destination)
        try:
            job = self.start_job(options)
        except JobInputError as exc:
            raise bad_input(str(exc)) from None
        progress = JobProgress(not options["quiet"], self.progress_unit)
        try:
            if options["worker"]:
                job_enqueue(job=job)
                job = job_follow(job=job, on_progress=progress.update)
            else:
                job = job_run(job=job, on_progress=progress.update)
        except KeyboardInterrupt:
            job_cancel(job=job)
            progress.close()
            raise CommandError(f"{job} cancelled") from None
        progress.close()
        if destination is not None and job.status == AnalysisJob.Status.FINISHED:
            text = job_report_json(job=job)
            if destination == "-":
                self.stdout.write(text, ending="")
            else:
                json_write_atomically(destination, text)
        self.stderr.write(self.summary(job))
        if job.status != AnalysisJob.Status.FINISHED:
            raise CommandError(job.error or f"{job} {job.status}", returncode=1)
