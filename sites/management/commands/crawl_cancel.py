"""`manage.py crawl_cancel CRAWL_ID…`: stop queued or running crawls from the command line."""

from __future__ import annotations

from django.core.management.base import CommandError, CommandParser
from django.template.defaultfilters import pluralize

from sites.cli import Command as WebauditCommand
from sites.cli import bad_input
from sites.models import Crawl
from sites.services.crawls import crawl_cancel


class Command(WebauditCommand):
    help = (
        "Cancel queued or running crawls (what they fetched stays); their workers stop at their next batch. "
        "Exit status 1 if a crawl does not exist or had already ended."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("crawl_ids", nargs="+", metavar="CRAWL_ID", help="the crawl's number")

    def handle(self, *args, crawl_ids: list[str], **options) -> None:
        ids = []
        for value in crawl_ids:
            if not value.isdigit() or len(value) > 18:
                raise bad_input(f"{value!r} is not a crawl number")
            ids.append(int(value))
        problems = []
        for crawl_id in ids:
            crawl = Crawl.objects.select_related("site").filter(pk=crawl_id).first()
            if crawl is None:
                problems.append(f"No crawl {crawl_id}.")
            elif crawl_cancel(crawl=crawl):
                done = crawl.pages_done
                self.stdout.write(
                    f"Crawl {crawl.pk} of {crawl.site.url} cancelled ({done:,} page{pluralize(done)} done)."
                )
            else:
                problems.append(f"Crawl {crawl.pk} of {crawl.site.url} had already ended ({crawl.status}).")
        if problems:
            raise CommandError(" ".join(problems))
