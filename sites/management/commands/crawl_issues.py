"""`manage.py crawl_issues CRAWL_ID --json FILE|-`: a crawl's health, issues, broken targets and sitemap as JSON."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandParser

from sites.cli import bad_input, json_destination_check, json_write_atomically
from sites.models import Crawl
from sites.services.issues import crawl_health, crawl_issues, crawl_issues_report


class Command(BaseCommand):
    help = (
        "Write a crawl's issues overview: its health (0-100), each kind of problem with its count and severity, "
        "one row per broken or soft-404 target with its inlinks and their pages, and what its sitemap shows. "
        "Without --json, print the overview. Exit status 2 on bad input."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("crawl_id", metavar="CRAWL_ID", help="the crawl's number")
        parser.add_argument("--json", metavar="FILE", help="write the JSON here ('-' for standard output)")

    def handle(self, *args, crawl_id: str, **options) -> None:
        destination = options["json"]
        if not crawl_id.isdigit():
            raise bad_input(f"{crawl_id!r} is not a crawl number")
        if destination and destination != "-":
            json_destination_check(destination)
        crawl = Crawl.objects.select_related("site").filter(pk=int(crawl_id)).first()
        if crawl is None:
            raise bad_input(f"there is no crawl #{crawl_id}")
        if destination is None:
            self._print_overview(crawl)
            return
        text = json.dumps(crawl_issues_report(crawl=crawl), ensure_ascii=False, indent=1) + "\n"
        if destination == "-":
            sys.stdout.write(text)
        else:
            json_write_atomically(destination, text)

    def _print_overview(self, crawl: Crawl) -> None:
        health = crawl_health(crawl=crawl)
        score = "–" if health.score is None else health.score
        self.stdout.write(f"Crawl {crawl.pk} of {crawl.site.url} ({crawl.status}): health {score}/100")
        for issue in crawl_issues(crawl=crawl):
            self.stdout.write(f"  {issue.severity:8} {issue.count:7}  {issue.title}")
