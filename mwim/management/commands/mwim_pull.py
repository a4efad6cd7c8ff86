"""The search engine's side: pull an extended sitemap and its changed Content Extract files into a folder."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from checks.jobs.cli import bad_input, json_destination_check, json_write_atomically
from mwim.reader import PullError, mwim_pull
from sites.cli import Command as WebauditCommand
from sites.http import FetchSettings


class Command(WebauditCommand):
    help = (
        "Fetch SITEMAP_URL, download into DIR only the CE files that changed since the last pull, decode them, "
        "and report the bytes transferred against the same pages' HTML (the MWIM paper's ΔS)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sitemap_url")
        parser.add_argument("folder", help="where the pulled state and CE files live between pulls")
        parser.add_argument(
            "--no-html", action="store_true", help="do not fetch the HTML to measure the savings"
        )
        parser.add_argument("--json", metavar="FILE", help="also write the report as JSON here ('-': stdout)")

    def handle(self, *args, **options) -> None:
        folder = Path(options["folder"])
        if folder.exists() and not folder.is_dir():
            raise bad_input(f"{folder} exists and is not a folder")
        if options["json"] not in (None, "-"):
            json_destination_check(options["json"])
        try:
            report = mwim_pull(
                sitemap_url=options["sitemap_url"],
                folder=folder,
                settings=FetchSettings.from_settings(settings),
                compare_html=not options["no_html"],
            )
        except PullError as exc:
            raise bad_input(str(exc)) from None
        except OSError as exc:
            raise bad_input(f"cannot write {folder}: {exc}") from None
        data = report.as_dict()
        if options["json"] == "-":
            self.stdout.write(json.dumps(data, indent=1))
        else:
            if options["json"]:
                json_write_atomically(options["json"], json.dumps(data, indent=1))
            self.stdout.write(_summary(data))
        if report.failed:
            raise CommandError(f"{len(report.failed)} CE file(s) could not be pulled", returncode=1)


def _summary(data: dict) -> str:
    lines = [
        f"{data['entries']} entries: {data['new']} new, {data['changed']} changed, {data['unchanged']} unchanged, "
        f"{data['removed']} removed; {data['downloaded']} CE files downloaded",
        f"transferred: sitemap {data['sitemap_bytes']:,} bytes, CE files (S_C) {data['ce_bytes']:,} bytes",
    ]
    if data.get("html_bytes"):
        lines.append(
            f"the same {data['html_pages']} pages' HTML (S_M): {data['html_bytes']:,} bytes; "
            f"ΔS = {data['delta_s']:,} bytes saved; CE = {data['ce_percent_of_html']}% of HTML "
            f"({data['savings_percent']}% saved)"
        )
    lines += [f"failed: {item['url']}: {item['error']}" for item in data["failed"]]
    return "\n".join(lines)
