"""`manage.py decay CRAWL_ID [--method exact|walk] [--sigma 0.1] [--walks 300] [--external-depth 1]
[--max-fetches 5000] [--json FILE|-]`, or `--url URL`."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser

from checks.decay.external import MAX_EXTERNAL_DEPTH, MAX_FETCHES_LIMIT
from checks.decay.job import MAX_WALKS, bounded_int, parse_sigmas
from checks.decay.services import DecayInputError, decay_url
from checks.jobs import JobInputError, job_start
from checks.jobs.cli import (
    JobCommand,
    bad_input,
    crawl_for_analysis,
    json_destination_check,
    json_write_atomically,
)
from checks.models import AnalysisJob


class Command(JobCommand):
    help = (
        "Decay of every page of a finished crawl (exact, or by random walks) with the fix-first list; "
        "or of one URL live, with no crawl (--url)."
    )
    progress_unit = "page"

    def add_job_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("crawl_id", nargs="?", help="a finished crawl's id")
        parser.add_argument("--url", help="score this one page live instead, by walks, with no crawl")
        parser.add_argument("--method", choices=("exact", "walk"), default="exact")
        parser.add_argument(
            "--sigma",
            help="success probability σ in (0, 1), or several comma-separated (the first is reported); "
            f"default {settings.WEBAUDIT_DECAY_SIGMAS[0]}",
        )
        parser.add_argument(
            "--walks",
            default=settings.WEBAUDIT_DECAY_WALKS,
            help=f"walks per page, 1 to {MAX_WALKS:,} (default {settings.WEBAUDIT_DECAY_WALKS})",
        )
        parser.add_argument(
            "--external-depth",
            default=settings.WEBAUDIT_DECAY_EXTERNAL_DEPTH,
            help=f"links followed onto other sites' pages, 0 to {MAX_EXTERNAL_DEPTH} (default "
            f"{settings.WEBAUDIT_DECAY_EXTERNAL_DEPTH}: the pages the site links to are read and their links checked)",
        )
        parser.add_argument(
            "--max-fetches",
            default=settings.WEBAUDIT_DECAY_MAX_FETCHES,
            help=f"pages this run may fetch beyond the crawl, 0 to {MAX_FETCHES_LIMIT:,} "
            f"(default {settings.WEBAUDIT_DECAY_MAX_FETCHES})",
        )

    def _sigmas(self, options: dict[str, Any]) -> list[float]:
        raw = options["sigma"] if options["sigma"] is not None else settings.WEBAUDIT_DECAY_SIGMAS[0]
        try:
            return parse_sigmas(raw)
        except JobInputError as exc:
            raise bad_input(str(exc)) from None

    def _check(self, options: dict[str, Any]) -> None:
        # Every number is bounded before anything runs: a message and exit status 2 (docs/decay.md).
        try:
            options["walks"] = bounded_int("--walks", options["walks"], 1, MAX_WALKS)
            options["external_depth"] = bounded_int(
                "--external-depth", options["external_depth"], 0, MAX_EXTERNAL_DEPTH
            )
            options["max_fetches"] = bounded_int(
                "--max-fetches", options["max_fetches"], 0, MAX_FETCHES_LIMIT
            )
        except JobInputError as exc:
            raise bad_input(str(exc)) from None
        if bool(options["url"]) == bool(options["crawl_id"]):
            raise bad_input("give either a CRAWL_ID or --url URL")

    def start_job(self, options: dict[str, Any]) -> AnalysisJob:
        crawl = crawl_for_analysis(options["crawl_id"])
        return job_start(
            kind="decay",
            crawl=crawl,
            parameters={
                "method": options["method"],
                "sigmas": self._sigmas(options),
                "walks": options["walks"],
                "external_depth": options["external_depth"],
                "max_fetches": options["max_fetches"],
            },
            enqueue=False,
        )

    def summary(self, job: AnalysisJob) -> str:
        result = job.result or {}
        if job.status != AnalysisJob.Status.FINISHED:
            return super().summary(job)
        means = ", ".join(f"σ={sigma}: {value:.3f}" for sigma, value in result.get("mean_decay", {}).items())
        return f"{job}: finished; {result.get('pages', 0)} pages, mean decay {means}, {result.get('fetches', 0)} fetches"

    def handle(self, *args, **options) -> None:
        self._check(options)
        if not options["url"]:
            super().handle(*args, **options)
            return
        destination = options["json"]
        if destination not in (None, "-"):
            json_destination_check(destination)
        try:
            result = decay_url(url=options["url"], sigmas=self._sigmas(options), walks=options["walks"])
        except DecayInputError as exc:
            raise bad_input(str(exc)) from None
        if destination is not None:
            text = json.dumps(result.as_json(), indent=1, ensure_ascii=False) + "\n"
            if destination == "-":
                self.stdout.write(text, ending="")
            else:
                json_write_atomically(destination, text)
        page = result.pages[0]
        self.stderr.write(
            f"{page.url}: decay {page.decay[result.sigmas[0]]:.3f} ± {page.error_bound:.3f} "
            f"({result.walks} walks, {result.fetches} fetches, {result.seconds:.1f} s)"
        )
