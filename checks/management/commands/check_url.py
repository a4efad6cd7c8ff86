"""`manage.py check_url URL ...`: the dead / soft-404 verdict of each URL, with its evidence, as JSON."""

from __future__ import annotations

import json
import sys

from django.core.management.base import CommandError, CommandParser

from checks.checking import UrlCheck, urls_check
from sites.cli import Command as WebauditCommand
from sites.cli import bad_input, crawl_option, json_destination_check


class Command(WebauditCommand):
    help = "Tell whether each URL is ok, dead, soft-404 or failing, with the evidence (probe and classifier)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("urls", nargs="*", metavar="URL")
        parser.add_argument(
            "--from", dest="from_file", metavar="FILE", help="read URLs from FILE, one a line ('-' for stdin)"
        )
        parser.add_argument(
            "--json", metavar="FILE", help="write {\"results\": [...]} here ('-' for standard output)"
        )
        parser.add_argument(
            "--concurrency", type=crawl_option("concurrency"), help="concurrent requests per host (1-32)"
        )
        parser.add_argument(
            "--delay", type=crawl_option("delay"), help="seconds between requests to one host (0-60)"
        )
        parser.add_argument(
            "--ignore-robots", action="store_true", help="check URLs robots.txt disallows too"
        )

    def handle(self, *args, **options) -> None:
        json_destination_check(options["json"])
        urls = list(options["urls"])
        if options["from_file"]:
            urls += self._read(options["from_file"])
        if not urls:
            raise bad_input("Give at least one URL, or --from FILE.")
        to_stdout = options["json"] == "-"
        results = urls_check(
            urls=urls,
            concurrency=options["concurrency"],
            delay=options["delay"],
            obey_robots=False if options["ignore_robots"] else None,
            on_result=None if to_stdout else self._print,
        )
        report = {"results": [result.as_dict() for result in results]}
        if to_stdout:
            json.dump(report, sys.stdout, indent=1)
            sys.stdout.write("\n")
        elif options["json"]:
            try:
                with open(options["json"], "w", encoding="utf-8") as handle:
                    json.dump(report, handle, indent=1)
            except OSError as exc:
                raise CommandError(f"Cannot write {options['json']}: {exc.strerror}") from None

    def _read(self, path: str) -> list[str]:
        try:
            text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError) as exc:
            raise bad_input(f"Cannot read URLs from {path}: {exc}") from None
        return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]

    def _print(self, result: UrlCheck) -> None:
        probability = "" if result.soft404_probability is None else f" p={result.soft404_probability:.2f}"
        self.stdout.write(f"{result.verdict or 'unchecked':8} {result.url}  ({result.reason}{probability})")
