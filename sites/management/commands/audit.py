"""`manage.py audit URL`: crawl a site (registering it if new) and write the JSON report."""

from __future__ import annotations

import sys
import time

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser
from django.db import InterfaceError, OperationalError, connection

from sites.cli import Command as WebauditCommand
from sites.cli import bad_input, crawl_option, json_destination_check
from sites.models import Crawl
from sites.services.crawls import (
    CrawlError,
    crawl_cancel,
    crawl_run,
    crawl_start,
    crawl_take_over,
)
from sites.services.leases import crawl_stalled_of
from sites.services.reports import LINK_CHOICES, crawl_summary, iter_report_json
from sites.services.sites import SiteError, site_get_or_create
from sites.startup import prepare_crawling_process
from sites.stop_signals import signals_interrupt, stop_signals_ignore, stopped_by


class Progress:
    """A progress bar on a terminal (tqdm on stderr); a line every few seconds when stderr is not a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.bar = None
        self.last_line = 0.0
        self.enabled = enabled
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=1, unit="page", file=sys.stderr, dynamic_ncols=True)

    def update(self, crawl: Crawl) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            # The site's own pages: the external link targets checked are shown apart (external_left).
            self.bar.total = crawl.site_pages_done + crawl.site_pages_queued
            self.bar.n = crawl.site_pages_done
            self.bar.set_postfix(
                failed=crawl.pages_failed,
                links=crawl.links_found,
                external_left=crawl.external_left,
                refresh=False,
            )
            self.bar.refresh()
        elif time.monotonic() - self.last_line > 5 or not crawl.is_active:
            self.last_line = time.monotonic()
            print(
                f"crawl {crawl.pk}: {crawl.status}, {crawl.site_pages_done} site pages done, "
                f"{crawl.site_pages_queued} queued, {crawl.pages_failed} failed{_external_progress(crawl)}",
                file=sys.stderr,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Command(WebauditCommand):
    help = "Crawl a site (registering it if new) and write a JSON report of its pages and links."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("url", help="the start URL, e.g. https://example.com/")
        parser.add_argument(
            "--max-pages", type=crawl_option("max_pages"), help="stop after this many pages of the site"
        )
        parser.add_argument(
            "--max-depth",
            type=crawl_option("max_depth"),
            help="follow links at most this many clicks from the start",
        )
        parser.add_argument(
            "--concurrency", type=crawl_option("concurrency"), help="concurrent requests per host (1-32)"
        )
        parser.add_argument(
            "--delay", type=crawl_option("delay"), help="seconds between requests to one host (0-60)"
        )
        parser.add_argument(
            "--fetch-concurrency",
            type=crawl_option("fetch_concurrency"),
            help="requests at once across all hosts (1-1024; default WEBAUDIT_FETCH_CONCURRENCY, 128)",
        )
        parser.add_argument(
            "--external-cache-hours",
            type=crawl_option("external_cache_hours"),
            help="reuse an external target's verdict checked by the owner's crawls within this many hours "
            "(0-8760; default: the site's setting, else WEBAUDIT_EXTERNAL_CACHE_HOURS, 24; 0 checks every target)",
        )
        parser.add_argument("--json", metavar="FILE", help="write the report here ('-' for standard output)")
        parser.add_argument(
            "--user",
            default="admin",
            help="owner of the site when it is new (created without a password if missing)",
        )
        parser.add_argument(
            "--worker",
            action="store_true",
            help="hand the crawl to the Celery workers and follow its progress, "
            "instead of crawling in this process",
        )
        parser.add_argument(
            "--links",
            choices=LINK_CHOICES,
            default="all",
            help="which links the report lists: all (default), broken (their target is broken) or none",
        )
        parser.add_argument("--quiet", action="store_true", help="no progress output")

    def handle(self, *args, **options) -> None:
        # The report's destination is checked before the crawl: a crawl whose report cannot be written is lost.
        json_destination_check(options["json"])
        owner, _ = get_user_model().objects.get_or_create(username=options["user"])
        quiet = options["quiet"] or options["json"] == "-"
        with signals_interrupt():
            crawl = self._crawl(owner, options, quiet)
        self._write(crawl, options["json"], options["links"], quiet)
        if crawl.status == Crawl.Status.FAILED:
            raise CommandError(crawl.error or "the crawl failed")

    def _crawl(self, owner, options: dict, quiet: bool) -> Crawl:
        try:
            site, created = site_get_or_create(owner=owner, url=options["url"])
            stalled = None if created else crawl_stalled_of(site=site)
            if stalled is not None:
                crawl = crawl_take_over(crawl=stalled, enqueue=options["worker"])
                self.stderr.write(
                    f"Crawl {crawl.pk} of {site.url} was left {stalled.status} with no progress for over "
                    f"{self._lease()} s (its process was stopped or its worker died): taking it over "
                    f"with its own settings; {crawl.pages_done} pages were already done."
                )
            else:
                crawl = crawl_start(
                    site=site,
                    requested_by=owner,
                    enqueue=options["worker"],
                    max_pages=options["max_pages"],
                    max_depth=options["max_depth"],
                    concurrency=options["concurrency"],
                    delay=options["delay"],
                    fetch_concurrency=options["fetch_concurrency"],
                    external_cache_hours=options["external_cache_hours"],
                )
        except (SiteError, CrawlError) as exc:
            raise bad_input(str(exc)) from None
        if not quiet and stalled is None:
            self.stderr.write(
                f"{'Registered' if created else 'Auditing'} site {site.url} (id {site.pk}); crawl {crawl.pk}"
            )
        progress = Progress(enabled=not quiet)
        if not options["worker"]:
            prepare_crawling_process()  # this process crawls now, as a worker process does once it has started
        try:
            return (
                self._follow(crawl, progress)
                if options["worker"]
                else crawl_run(crawl=crawl, on_progress=progress.update)
            )
        except KeyboardInterrupt as exc:
            # Ignore a second signal while the crawl is cancelled and its report written.
            stop_signals_ignore()
            crawl_cancel(crawl=crawl)
            self.stderr.write(f"{stopped_by(exc)}: crawl cancelled; writing what was found.")
            return crawl
        finally:
            progress.close()

    @staticmethod
    def _lease() -> int:
        from django.conf import settings

        return settings.WEBAUDIT_CRAWL_LEASE_SECONDS

    def _follow(self, crawl: Crawl, progress: Progress) -> Crawl:
        """Follow the crawl the workers run; wait out a database restart instead of dying with it."""
        unavailable_since = None
        while True:
            try:
                crawl.refresh_from_db()
            except (OperationalError, InterfaceError) as exc:
                connection.close()
                if unavailable_since is None:
                    unavailable_since = time.monotonic()
                    self.stderr.write(f"The database is unavailable ({str(exc).strip()}); waiting for it.")
                time.sleep(1.0)
                continue
            if unavailable_since is not None:
                self.stderr.write(f"The database is back after {time.monotonic() - unavailable_since:.0f} s.")
                unavailable_since = None
            progress.update(crawl)
            if not crawl.is_active:
                return crawl
            time.sleep(1.0)

    def _write(self, crawl: Crawl, destination: str | None, links: str, quiet: bool) -> None:
        if destination == "-":
            sys.stdout.writelines(iter_report_json(crawl, links))
        elif destination:
            try:
                with open(destination, "w", encoding="utf-8") as handle:
                    handle.writelines(iter_report_json(crawl, links))
            except OSError as exc:
                raise CommandError(f"Cannot write the report to {destination}: {exc.strerror}") from None
        summary = crawl_summary(crawl)
        if not quiet:
            self.stderr.write(
                f"Crawl {crawl.pk} {summary['status']}: {summary['site_pages_done']} site pages, "
                f"{summary['external']['done']} external targets, {summary['pages_failed']} "
                f"broken, {summary['links_found']} links, {summary['requests_per_page']} requests per page"
                + (f"; report written to {destination}" if destination else "")
            )


def _external_progress(crawl: Crawl) -> str:
    """ ", external targets: 120 checked (40 from cache), 180 left at 35.2/s" while there are any."""
    if not crawl.external_admitted:
        return ""
    cached = f" ({crawl.external_cached} from cache)" if crawl.external_cached else ""
    rate = f" at {crawl.external_rate:.1f}/s" if crawl.external_rate else ""
    return f", external targets: {crawl.external_done} checked{cached}, {crawl.external_left} left{rate}"
