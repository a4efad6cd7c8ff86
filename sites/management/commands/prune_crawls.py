"""Delete each site's oldest ended crawls, keeping its newest N: the retention setting, run when you choose."""

from __future__ import annotations

import contextlib
import json
import sys
from contextlib import AbstractContextManager
from typing import TextIO

from django.core.management.base import CommandParser
from django.db.models import Q

from sites.cli import Command as WebauditCommand
from sites.cli import bad_input, bounded
from sites.models import Site
from sites.services.retention import crawls_beyond, crawls_delete, deletion_summary


class Command(WebauditCommand):
    help = "Delete the oldest ended crawls of each site (or of the sites named), keeping the newest --keep."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--keep",
            type=bounded(int, 1, 1_000_000, "--keep"),
            required=True,
            help="ended crawls to keep per site (1 or more)",
        )
        parser.add_argument("--site", action="append", default=[], help="a site's id or URL; repeatable")
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would be deleted; delete nothing"
        )
        parser.add_argument("--json", metavar="FILE", help="write the result here ('-' for standard output)")

    def handle(self, *args, **options) -> None:
        if options["keep"] < 1:
            raise bad_input("--keep must be at least 1 (the admin deletes every crawl of a site)")
        sites = self._sites(options["site"])
        # The report's file is opened before anything is deleted: a deletion nobody can read about is lost.
        output = self._open(options["json"])
        result = {"keep": options["keep"], "dry_run": options["dry_run"], "sites": []}
        doomed_everywhere: list[int] = []
        for site in sites:
            doomed = crawls_beyond(site=site, keep=options["keep"])
            if doomed:
                result["sites"].append({"id": site.pk, "url": site.url, "crawls": doomed})
                doomed_everywhere += doomed
        result["deleted"] = deletion_summary(crawl_ids=doomed_everywhere)
        if not options["dry_run"]:
            crawls_delete(crawl_ids=doomed_everywhere)
        if output is not None:
            with output as stream:
                stream.write(json.dumps(result, indent=1) + "\n")
        verb = "Would delete" if result["dry_run"] else "Deleted"
        counts = ", ".join(f"{count:,} {name}" for name, count in result["deleted"].items() if count)
        self.stderr.write(f"{verb} {counts or 'nothing'} (keeping {result['keep']} ended crawls per site).")

    def _sites(self, wanted: list[str]) -> list[Site]:
        if not wanted:
            return list(Site.objects.order_by("pk"))
        sites = []
        for value in wanted:
            match = Site.objects.filter(
                Q(pk=int(value)) if value.isdigit() and len(value) < 19 else Q(url=value)
            ).first()
            if match is None:
                raise bad_input(f"No site {value!r}: give a site's id or its URL as registered")
            sites.append(match)
        return sites

    def _open(self, destination: str | None) -> AbstractContextManager[TextIO] | None:
        if destination is None:
            return None
        if destination == "-":
            return contextlib.nullcontext(sys.stdout)  # written to, never closed
        try:
            return open(destination, "w", encoding="utf-8")  # noqa: SIM115 - closed after the deletion
        except OSError as exc:
            raise bad_input(f"Cannot write to {destination}: {exc.strerror}; nothing was deleted") from None
