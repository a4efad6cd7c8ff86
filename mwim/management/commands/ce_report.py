"""The Reporting Module: a Content Extract file as a stand-alone, human-readable HTML page."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandParser
from django.template.loader import render_to_string

from checks.jobs.cli import bad_input
from mwim.ce import CEFormatError, decode
from mwim.report import report_context
from mwim.services.publish import write_atomically
from sites.cli import Command as WebauditCommand


class Command(WebauditCommand):
    help = "Write a Content Extract FILE as a stand-alone HTML report (to standard output, or --output)."
    requires_database = False  # a file in, a file out: it runs where no database was ever set up

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a .ce file")
        parser.add_argument("--output", "-o", help="write the HTML here instead of standard output")

    def handle(self, *args, **options) -> None:
        path = Path(options["file"])
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise bad_input(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            extract = decode(data)
        except CEFormatError as exc:
            raise bad_input(f"{path} is not a usable content extract: {exc}") from None
        context = report_context(extract, file_bytes=len(data))
        context["title"] = extract.properties.get("title") or extract.properties.get("url") or path.name
        html = render_to_string("mwim/ce_report_standalone.html", context)
        if options["output"]:
            try:
                write_atomically(Path(options["output"]), html.encode())
            except OSError as exc:
                raise bad_input(f"cannot write {options['output']}: {exc.strerror or exc}") from None
        else:
            self.stdout.write(html)
