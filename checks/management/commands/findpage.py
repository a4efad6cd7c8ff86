"""findpage START_URL --query "words": find the page of a site that answers the query (docs/pagefinding.md)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandParser

from checks.jobs import job_start
from checks.jobs.cli import JobCommand, bad_input
from checks.models import AnalysisJob
from checks.pagefinding.algorithms import DEFAULT_ALGORITHM
from checks.pagefinding.live import site_key
from checks.pagefinding.services import (
    DEFAULT_BUDGET,
    LIVE_ALGORITHMS,
    findpage_check_start,
    findpage_parameters,
    site_root,
)
from sites.crawler.urls import normalize_url
from sites.models import Site
from sites.services.sites import SiteError, site_get_or_create


class Command(JobCommand):
    help = (
        "Find the page of a site that answers a query, from a start page, with as few downloads as possible."
    )
    progress_unit = "download"

    def add_job_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "start_url", metavar="START_URL", help="where the search starts (its site is searched)"
        )
        parser.add_argument("--query", required=True, help="the words of the page you are after")
        parser.add_argument(
            "--algorithm",
            default=DEFAULT_ALGORITHM,
            help=f"one of {', '.join(LIVE_ALGORITHMS)} (default {DEFAULT_ALGORITHM})",
        )
        parser.add_argument(
            "--max-downloads",
            type=int,
            default=DEFAULT_BUDGET,
            help=f"download budget (default {DEFAULT_BUDGET})",
        )
        parser.add_argument("--user", default="admin", help="owner of the site if it is new (default admin)")

    def start_job(self, options: dict[str, Any]) -> AnalysisJob:
        start = normalize_url(options["start_url"])
        if start is None:
            raise bad_input(f"{options['start_url']!r} is not an http(s) URL")
        if options["max_downloads"] < 1:
            raise bad_input(f"--max-downloads must be at least 1, not {options['max_downloads']}")
        owner, _ = get_user_model().objects.get_or_create(username=options["user"])
        site = next((s for s in Site.objects.filter(owner=owner) if site_key(s.url) == site_key(start)), None)
        if site is None:
            try:
                site, _ = site_get_or_create(owner=owner, url=site_root(start))
            except SiteError as exc:
                raise bad_input(str(exc)) from None
        raw = {
            "start_url": start,
            "query": options["query"],
            "algorithm": options["algorithm"],
            "max_downloads": options["max_downloads"],
        }
        parameters = findpage_parameters(site, raw)  # JobInputError: exit 2 before any fetch
        findpage_check_start(site=site, start_url=parameters["start_url"])
        self.job = job_start(
            kind="findpage", site=site, parameters=parameters, requested_by=owner, enqueue=False
        )
        return self.job

    def handle(self, *args, **options) -> None:
        super().handle(*args, **options)
        if options["json"] == "-":
            return
        self.job.refresh_from_db()
        result = self.job.result or {}
        found = result.get("found")
        self.stdout.write(f"found: {found or 'nothing'}")
        self.stdout.write(f"downloads: {result.get('downloads', 0)}")
        for number, url in enumerate(result.get("path", [])):
            text = result.get("link_texts", [])[number - 1] if number else ""
            self.stdout.write(f"  {number}. {url}" + (f'  (via "{text}")' if text else ""))
