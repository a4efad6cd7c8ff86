"""A crawl's reading of the site's sitemaps, and the orphan pages they reveal.

When a crawl starts (once its first batch is written) it reads the sitemaps the site declares (the `Sitemap:`
lines of its robots.txt, and /sitemap.xml when robots.txt lets us), following sitemap indexes, and keeps the
listed URLs of its scope (SitemapUrl). The links are crawled first, so every page keeps its depth by links; when they found no more pages,
the listed pages are marked (Page.in_sitemap) and the listed URLs no link reached, the orphans, are admitted
to the frontier and crawled too, within the page cap. Everything goes through the crawl's one fetcher (address
guard, size and time limits) and its per-host politeness.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from sites.crawler.config import CrawlConfig
from sites.crawler.fetching import CrawlSession
from sites.crawler.sitemaps import (
    MAX_FILE_BYTES,
    NotASitemap,
    SitemapError,
    parse_sitemap,
    sitemaps_in_robots,
)
from sites.crawler.urls import normalize_url
from sites.http.urls import origin
from sites.models import Crawl, Page, RobotsFile, Sitemap, SitemapUrl, url_key

# Sitemap files read per crawl (indexes included), and listed URLs kept: a site with more lists them past what
# one audit acts on, and a hostile index cannot make the crawl read forever.
MAX_SITEMAP_FILES = 50
MAX_SITEMAP_URLS = 50_000

# Crawl.sitemap_phase. READING is held by the one step that reads; another lane whose links run out meanwhile
# waits for it (sitemaps_pending), for at most READ_TIMEOUT after the crawl started (a reader that died).
NOT_READ, READ, ORPHANS_ADMITTED, READING = 0, 1, 2, 3
READ_TIMEOUT = timedelta(minutes=15)


def _declared(crawl: Crawl, session: CrawlSession) -> list[tuple[str, str]]:
    """(sitemap URL, where it was declared): robots.txt's, then the well-known /sitemap.xml."""
    start = session.config.start_url
    robots_text = (
        RobotsFile.objects.filter(crawl=crawl, origin=origin(start)).values_list("text", flat=True).first()
    )
    declared = [(url, "robots.txt") for url in sitemaps_in_robots(robots_text)]
    well_known = origin(start) + "/sitemap.xml"
    if well_known not in {url for url, _ in declared} and session.polite.allowed(well_known):
        declared.append((well_known, "/sitemap.xml"))
    return declared


def sitemaps_read(*, crawl: Crawl, session: CrawlSession) -> int:
    """Read the site's sitemaps once per crawl (the first step of any lane to get here does it); return the
    requests made. A sitemap that cannot be read is recorded with why, and the crawl goes on."""
    if not Crawl.objects.filter(pk=crawl.pk, sitemap_phase=NOT_READ).update(sitemap_phase=READING):
        return 0
    queue = _declared(crawl, session)
    seen: set[str] = set()
    listed: dict[str, str] = {}  # key -> URL, in the crawl's scope
    files: list[Sitemap] = []
    requests = 0
    while queue and len(files) < MAX_SITEMAP_FILES:
        url, declared_in = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        record = Sitemap(crawl=crawl, url=url, declared_in=declared_in)
        files.append(record)
        result = session.polite.fetch(url, max_bytes=MAX_FILE_BYTES)
        requests += 1 + len(result.redirects)
        record.status_code = result.status
        if result.error_kind or result.status is None:
            record.error = (result.error or result.error_kind or "no answer")[:300]
            continue
        if result.status >= 400:
            # Not declared anywhere and missing at the well-known place: the site simply has none there.
            if declared_in == "/sitemap.xml":
                files.pop()
            else:
                record.error = f"HTTP {result.status}"
            continue
        try:
            parsed = parse_sitemap(result.body, max_urls=MAX_SITEMAP_URLS)
        except NotASitemap as exc:
            # Undeclared and no sitemap at the well-known place (a site that answers every URL with a page or
            # a redirect home): the site has none, as with a 404.
            if declared_in == "/sitemap.xml":
                files.pop()
            else:
                record.error = str(exc)[:300]
            continue
        except SitemapError as exc:
            record.error = str(exc)[:300]
            continue
        record.is_index = bool(parsed.sitemaps)
        record.urls_listed = len(parsed.urls) + len(parsed.sitemaps) + parsed.cut
        queue.extend((child, "index") for child in parsed.sitemaps)
        for raw in parsed.urls:
            normalized = normalize_url(raw)
            if normalized and session.scope.same_site(normalized) and session.scope.contains(normalized):
                if len(listed) < MAX_SITEMAP_URLS:
                    listed.setdefault(url_key(normalized), normalized)
    Sitemap.objects.bulk_create(files)
    SitemapUrl.objects.bulk_create(
        [SitemapUrl(crawl=crawl, url=url, url_key=key) for key, url in listed.items()],
        batch_size=1000,
        ignore_conflicts=True,
    )
    Crawl.objects.filter(pk=crawl.pk, sitemap_phase=READING).update(sitemap_phase=READ)
    Crawl.objects.filter(pk=crawl.pk).update(requests_made=F("requests_made") + requests)
    return requests


def sitemaps_pending(*, crawl: Crawl) -> bool:
    """Whether another step is still reading the sitemaps (the crawl must not finish before their orphans)."""
    started = (
        Crawl.objects.filter(pk=crawl.pk, sitemap_phase=READING).values_list("started_at", flat=True).first()
    )
    return started is not None and timezone.now() - started < READ_TIMEOUT


def sitemap_orphans_admit(*, crawl: Crawl, config: CrawlConfig) -> int:
    """Once the links found no more pages: mark the listed pages, and admit the listed URLs no link reached
    (the orphans, depth 1: one step from the sitemap) within the page cap. Returns the orphans admitted; once per
    crawl."""
    if not Crawl.objects.filter(pk=crawl.pk, sitemap_phase=READ).update(sitemap_phase=ORPHANS_ADMITTED):
        return 0
    listed = SitemapUrl.objects.filter(crawl=crawl)
    with transaction.atomic():
        Page.objects.filter(crawl=crawl, url_key__in=listed.values("url_key")).update(in_sitemap=True)
        internal_admitted = (
            Crawl.objects.filter(pk=crawl.pk).values_list("internal_admitted", flat=True).get()
        )
        room = max(0, config.max_pages - internal_admitted)
        orphans = (
            listed.exclude(url_key__in=Page.objects.filter(crawl=crawl).values("url_key"))
            .order_by("id")
            .values_list("url", "url_key")[:room]
        )
        pages = [
            Page(crawl=crawl, url=url, url_key=key, depth=1, is_internal=True, in_sitemap=True)
            for url, key in orphans
        ]
        Page.objects.bulk_create(pages, ignore_conflicts=True, batch_size=500)
        Crawl.objects.filter(pk=crawl.pk).update(
            internal_admitted=F("internal_admitted") + len(pages), pages_queued=F("pages_queued") + len(pages)
        )
    return len(pages)
