"""Store a crawl's Content Extract files for its MWIM site (the `ce` job a finished crawl starts by itself)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from checks.jobs import job_start
from checks.jobs.cli import JobCommand, crawl_for_analysis
from checks.models import AnalysisJob


class Command(JobCommand):
    help = (
        "Store a finished crawl's Content Extract files for its MWIM site, regenerating only changed pages."
    )
    progress_unit = "page"

    def add_job_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("crawl", help="id of a finished crawl of an MWIM-registered site")

    def start_job(self, options: dict[str, Any]) -> AnalysisJob:
        crawl = crawl_for_analysis(options["crawl"])
        return job_start(kind="ce", crawl=crawl, site=crawl.site, parameters={}, enqueue=False)
