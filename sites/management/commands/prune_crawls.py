"""Delete each site's oldest ended crawls, keeping its newest N: the retention setting, run when you choose."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from sites.models import Site
from sites.services.retention import crawls_beyond, crawls_prune, deletion_summary


class Command(BaseCommand):
    help = "Delete the oldest ended crawls of each site (or of the sites named), keeping the newest --keep."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--keep", type=int, required=True, help="ended crawls to keep per site (1 or more)"
        )
        parser.add_argument("--site", action="append", default=[], help="a site's id or URL; repeatable")
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would be deleted; delete nothing"
        )
        parser.add_argument("--json", metavar="FILE", help="write the result here ('-' for standard output)")

    def handle(self, *args, **options) -> None:
        if options["keep"] < 1:
            raise CommandError("--keep must be at least 1 (the admin deletes every crawl of a site)")
        sites = self._sites(options["site"])
        result = {"keep": options["keep"], "dry_run": options["dry_run"], "sites": []}
        doomed_everywhere: list[int] = []
        for site in sites:
            doomed = crawls_beyond(site=site, keep=options["keep"])
            if doomed:
                result["sites"].append({"id": site.pk, "url": site.url, "crawls": doomed})
                doomed_everywhere += doomed
        result["deleted"] = deletion_summary(crawl_ids=doomed_everywhere)
        if not options["dry_run"]:
            for site in sites:
                crawls_prune(site=site, keep=options["keep"])
        self._write(result, options["json"])

    def _sites(self, wanted: list[str]) -> list[Site]:
        if not wanted:
            return list(Site.objects.order_by("pk"))
        sites = []
        for value in wanted:
            match = Site.objects.filter(Q(pk=int(value)) if value.isdigit() else Q(url=value)).first()
            if match is None:
                raise CommandError(f"No site {value!r}: give a site's id or its URL as registered")
            sites.append(match)
        return sites

    def _write(self, result: dict, destination: str | None) -> None:
        text = json.dumps(result, indent=1)
        if destination == "-":
            sys.stdout.write(text + "\n")
            return
        if destination:
            try:
                with open(destination, "w", encoding="utf-8") as handle:
                    handle.write(text + "\n")
            except OSError as exc:
                raise CommandError(f"Cannot write to {destination}: {exc.strerror}") from None
        verb = "Would delete" if result["dry_run"] else "Deleted"
        counts = ", ".join(f"{count:,} {name}" for name, count in result["deleted"].items() if count)
        self.stderr.write(f"{verb} {counts or 'nothing'} (keeping {result['keep']} ended crawls per site).")
