"""`manage.py crawl_diff OLD_ID NEW_ID --json FILE|-`: what changed between two crawls of a site, as JSON."""

from __future__ import annotations

import json
import sys

from django.core.management.base import CommandParser

from checks.compare import CompareError, compare_check, crawl_compare
from sites.cli import Command as WebauditCommand
from sites.cli import bad_input, json_destination_check, json_write_atomically
from sites.models import Crawl


class Command(WebauditCommand):
    help = (
        "Compare two finished crawls of one site: new broken targets with their inlinks, fixed targets, new "
        "soft-404 pages, pages new and gone, pages whose content changed, health before and after. Without "
        "--json, print a summary. Exit status 2 on bad input (unknown or unfinished crawls, different sites)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("old_id", metavar="OLD_ID", help="the earlier crawl's number")
        parser.add_argument("new_id", metavar="NEW_ID", help="the later crawl's number")
        parser.add_argument("--json", metavar="FILE", help="write the JSON here ('-' for standard output)")

    def handle(self, *args, old_id: str, new_id: str, **options) -> None:
        destination = options["json"]
        if destination and destination != "-":
            json_destination_check(destination)
        old, new = (self._crawl(value) for value in (old_id, new_id))
        try:
            compare_check(old=old, new=new)
        except CompareError as exc:
            raise bad_input(str(exc)) from None
        comparison = crawl_compare(old=old, new=new)
        if destination is None:
            report = comparison.as_report()
            self.stdout.write(f"Crawl {old.pk} -> {new.pk} of {new.site.url}: health {report['health']}")
            for key in ("new_broken_targets", "fixed_targets", "new_soft404", "pages_new", "pages_gone"):
                self.stdout.write(f"  {key.replace('_', ' '):20} {len(report[key]):7}")
            self.stdout.write(f"  {'content changed':20} {report['changed']:7}")
            return
        text = json.dumps(comparison.as_report(), ensure_ascii=False, indent=1) + "\n"
        if destination == "-":
            sys.stdout.write(text)
        else:
            json_write_atomically(destination, text)

    def _crawl(self, value: str) -> Crawl:
        if not value.isdigit():
            raise bad_input(f"{value!r} is not a crawl number")
        crawl = Crawl.objects.select_related("site").filter(pk=int(value)).first()
        if crawl is None:
            raise bad_input(f"there is no crawl #{value}")
        return crawl
