"""Sites, their crawls, the pages a crawl fetched (also its frontier) and the links between them."""

from __future__ import annotations

import hashlib
import zlib
from functools import lru_cache

from django.conf import settings
from django.db import models
from django.db.models import Q

from sites.crawler.urls import canonical_url


def url_key(url: str) -> str:
    """Fixed-size key of a URL string: URLs can be longer than any index allows."""
    return hashlib.sha1(url.encode("utf-8", "surrogatepass")).hexdigest()


@lru_cache(maxsize=100_000)
def page_key(url: str) -> str:
    """The key of a crawl's page: its URL's canonical form, so one page is one row however links write it
    (`?a=1&b=2` and `?b=2&a=1`); the row keeps the URL as first linked, which is what is fetched and shown."""
    return url_key(canonical_url(url))


class SiteQuerySet(models.QuerySet):
    def visible_to(self, user) -> SiteQuerySet:
        """Sites the user owns or that were shared with the user (superusers see all)."""
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self.all()
        return self.filter(Q(owner=user) | Q(shared_with=user)).distinct()


class Site(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sites")
    shared_with = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="shared_sites")
    name = models.CharField(max_length=200, blank=True)
    url = models.URLField("start URL", max_length=2000, help_text="Where crawls start; its host is the site.")
    created_at = models.DateTimeField(auto_now_add=True)

    # Crawl settings; blank means the deployment's default (settings.WEBAUDIT_CRAWL_*).
    max_pages = models.PositiveIntegerField(null=True, blank=True)
    max_depth = models.PositiveIntegerField(null=True, blank=True)
    include_patterns = models.TextField(
        blank=True, help_text="Regular expressions, one a line: crawl only URLs matching one."
    )
    exclude_patterns = models.TextField(
        blank=True, help_text="Regular expressions, one a line: never crawl URLs matching one."
    )
    concurrency = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Concurrent requests per host."
    )
    delay = models.FloatField(null=True, blank=True, help_text="Seconds between requests to one host.")
    obey_robots = models.BooleanField(default=True)
    check_external = models.BooleanField(default=True, help_text="Check (not crawl) outbound link targets.")
    external_cache_hours = models.FloatField(
        null=True,
        blank=True,
        help_text="Hours an external target's verdict is reused by the owner's later crawls instead of checked "
        "again; 0 checks every target every time.",
    )

    objects = SiteQuerySet.as_manager()

    # The fields a site sets for its crawls, in the order forms show them.
    CRAWL_SETTINGS = (
        "max_pages",
        "max_depth",
        "include_patterns",
        "exclude_patterns",
        "concurrency",
        "delay",
        "obey_robots",
        "check_external",
        "external_cache_hours",
    )

    class Meta:
        ordering = ["name", "url"]

    def __str__(self) -> str:
        return self.name or self.url


class RunStatus(models.TextChoices):
    """Where a crawl or an analysis job is in its life: queued, running, then ended one of three ways."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class CrawlQuerySet(models.QuerySet):
    def finished(self) -> CrawlQuerySet:
        """The finished crawls, newest first (in the order they were asked for)."""
        return self.filter(status=RunStatus.FINISHED).order_by("-created_at", "-pk")


class Crawl(models.Model):
    Status = RunStatus
    ACTIVE = (Status.QUEUED, Status.RUNNING)

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="crawls")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED, db_index=True)
    settings = models.JSONField(default=dict, help_text="The crawl settings in force, snapshotted at start.")
    pages_done = models.PositiveIntegerField(default=0)
    pages_failed = models.PositiveIntegerField(default=0)
    pages_queued = models.PositiveIntegerField(default=0)
    links_found = models.PositiveIntegerField(default=0)
    requests_made = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Last time a worker reported progress."
    )
    error = models.TextField(blank=True)
    # Bumped each time the crawl's task chains are (re-)enqueued; a step of an older generation stops, so a
    # resumed crawl never runs twice over (docs/operations.md).
    generation = models.PositiveIntegerField(default=0)
    # The last step of the current generation each lane started ({"0": 7}): a step message the broker delivers
    # again while (or after) it ran is refused instead of starting a second chain.
    lane_steps = models.JSONField(default=dict, blank=True)
    # URLs admitted to the frontier so far (the page cap's count), kept here so that no batch counts the crawl.
    internal_admitted = models.PositiveIntegerField(default=0)
    external_admitted = models.PositiveIntegerField(default=0)
    # External targets with a verdict so far (checked, or reused from the owner's cache), and when the first of
    # them was written: the dashboard's "external targets left, at what rate".
    external_done = models.PositiveIntegerField(default=0)
    external_cached = models.PositiveIntegerField(default=0)
    external_started_at = models.DateTimeField(null=True, blank=True)
    # The site's previous finished crawl when this one started: its pages' ETag / Last-Modified make this
    # crawl's requests conditional, and a page that answers 304 reuses its row there (docs/crawling.md).
    baseline = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False
    )
    bytes_received = models.PositiveBigIntegerField(default=0, help_text="Body bytes of the pages fetched.")
    not_modified = models.PositiveIntegerField(default=0, help_text="Pages that answered 304 Not Modified.")
    # Where the crawl is with the site's sitemaps (sites.services.sitemaps): not read yet, read (their URLs are in
    # SitemapUrl), their orphans admitted to the frontier (once the links found no more pages), or being read.
    sitemap_phase = models.PositiveSmallIntegerField(default=0)

    objects = CrawlQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Crawl #{self.pk} of {self.site}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def requests_per_page(self) -> float:
        """HTTP requests per fetched page: robots.txt, redirect hops and soft-404 probes included."""
        return self.requests_made / self.pages_done if self.pages_done else 0.0

    @property
    def site_pages_done(self) -> int:
        """Pages of the site fetched: pages_done counts the external link targets checked too (external_done)."""
        return max(0, self.pages_done - self.external_done)

    @property
    def site_pages_queued(self) -> int:
        """Pages of the site waiting to be fetched: pages_queued less the external targets left to check."""
        return max(0, self.pages_queued - self.external_left)

    @property
    def external_left(self) -> int:
        """External targets admitted and not yet given a verdict."""
        return max(0, self.external_admitted - self.external_done)

    @property
    def external_rate(self) -> float | None:
        """External targets given a verdict a second since the first was (reused ones included); None before."""
        if not self.external_started_at or not self.external_done:
            return None
        from django.utils import timezone

        end = self.finished_at or (timezone.now() if self.is_active else self.heartbeat_at) or timezone.now()
        return self.external_done / max(1.0, (end - self.external_started_at).total_seconds())

    @property
    def duration_seconds(self) -> float | None:
        if not self.started_at:
            return None
        from django.utils import timezone

        return ((self.finished_at or timezone.now()) - self.started_at).total_seconds()


# What fetching a page found (FETCH_FOUND_FIELDS) and what was judged of it (VERDICT_FIELDS): the Page fields a
# page answering 304 takes over from its baseline (sites/services/frontier.py), an external target's kept check
# carries to a later crawl (sites/services/external_cache.py), and the admin shows under "Fetch" and "Verdict".
FETCH_FOUND_FIELDS = (
    "status_code",
    "final_url",
    "redirects",
    "content_type",
    "size",
    "content_hash",
    "title",
    "canonical_url",
    "noindex",
    "nofollow",
    "error_kind",
    "fetch_error",
)
VERDICT_FIELDS = ("verdict", "verdict_reason", "soft404_probability", "probe")

# Broken: dead, failing, or a soft-404 (answers but does not exist). A page robots.txt forbade is not broken.
BROKEN_VERDICTS = ("dead", "soft404", "failing")
BROKEN = Q(verdict__in=BROKEN_VERDICTS)
# A target the address guard refused was never asked: its stored verdict is "dead" (a reader cannot reach it),
# but it is not known to be broken, and the overview and the progress counter call it "not checked".
NOT_CHECKED_KINDS = ("blocked_address",)
BROKEN_CHECKED = BROKEN & ~Q(error_kind__in=NOT_CHECKED_KINDS)


def counts_as_broken(*, verdict: str | None, error_kind: str | None) -> bool:
    """Whether a page is broken as far as anyone asked it (BROKEN_CHECKED, for one page's fields)."""
    return verdict in BROKEN_VERDICTS and error_kind not in NOT_CHECKED_KINDS


class PageQuerySet(models.QuerySet):
    def broken(self) -> PageQuerySet:
        return self.filter(BROKEN)


class Verdict(models.TextChoices):
    OK = "ok", "OK"
    DEAD = "dead", "Dead"
    SOFT404 = "soft404", "Soft-404"
    FAILING = "failing", "Failing"


class Page(models.Model):
    """A URL of one crawl: first a frontier entry (queued, claimed), then a fetched page (done)."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        CLAIMED = "claimed", "Being fetched"
        DONE = "done", "Done"

    # No index of its own: the (crawl, url_key) constraint's index serves every lookup by crawl, and one index
    # fewer is maintained for every URL admitted (docs/benchmarks.md, "Generated sites").
    crawl = models.ForeignKey(Crawl, on_delete=models.CASCADE, related_name="pages", db_index=False)
    url = models.TextField(help_text="The URL as first linked (resolved): what is fetched and shown.")
    url_key = models.CharField(
        max_length=40,
        editable=False,
        help_text="sha1 of the URL's canonical form (page_key): one row a page.",
    )
    depth = models.PositiveIntegerField(default=0)
    is_internal = models.BooleanField(
        default=True, help_text="In the crawl's scope (crawled) or outside (only checked)."
    )

    # Frontier bookkeeping.
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    not_before = models.DateTimeField(null=True, blank=True, help_text="Retry time after a 429/503.")
    attempts = models.PositiveSmallIntegerField(default=0)
    claim_token = models.UUIDField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)

    # What the fetch found.
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    final_url = models.TextField(blank=True)
    redirects = models.JSONField(default=list, blank=True, help_text="Every hop: {url, status, location}.")
    content_type = models.CharField(max_length=200, blank=True)
    size = models.PositiveIntegerField(null=True, blank=True, help_text="Body bytes after content decoding.")
    content_hash = models.CharField(max_length=64, blank=True)
    response_ms = models.PositiveIntegerField(null=True, blank=True)
    title = models.TextField(blank=True)
    canonical_url = models.TextField(blank=True)
    noindex = models.BooleanField(default=False)
    nofollow = models.BooleanField(default=False)
    error_kind = models.CharField(max_length=32, blank=True, db_index=True)
    fetch_error = models.TextField(blank=True)
    fetched_at = models.DateTimeField(null=True, blank=True)
    # The validators the answer carried, sent back by the next crawl of the site (If-None-Match, If-Modified-Since).
    etag = models.CharField(max_length=200, blank=True)
    last_modified = models.CharField(max_length=64, blank=True)
    not_modified = models.BooleanField(
        default=False, help_text="Answered 304: what it found was reused from the crawl's baseline."
    )

    # The dead / soft-404 verdict (sites.crawler.soft404.verdict): empty until fetched, and for robots-blocked pages.
    verdict = models.CharField(max_length=8, choices=Verdict.choices, blank=True, db_index=True)
    verdict_reason = models.CharField(max_length=300, blank=True)
    soft404_probability = models.FloatField(null=True, blank=True)
    probe = models.JSONField(
        null=True,
        blank=True,
        help_text="The directory probe: {url, final_url, redirects, status, resemblance}.",
    )
    strikes = models.PositiveSmallIntegerField(
        default=0, help_text="Checks that failed transiently in a row."
    )
    failing_since = models.DateTimeField(null=True, blank=True)
    verdict_cached_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="For an external target whose verdict was reused from an earlier crawl: when it was checked.",
    )

    # The site's sitemaps list this URL (sites.services.sitemaps). A listed page no crawled page links to is an
    # orphan: the crawl fetches it all the same, from the sitemap.
    in_sitemap = models.BooleanField(default=False)

    objects = PageQuerySet.as_manager()

    class Meta:
        ordering = ["depth", "id"]
        constraints = [models.UniqueConstraint(fields=["crawl", "url_key"], name="page_unique_url_per_crawl")]
        indexes = [
            models.Index(fields=["crawl", "state", "depth", "id"], name="page_frontier"),
            models.Index(fields=["crawl", "status_code"], name="page_status"),
        ]

    def __str__(self) -> str:
        return self.url

    @property
    def is_broken(self) -> bool:
        """Broken as far as anyone asked it: a target the address guard refused is not (counts_as_broken)."""
        return counts_as_broken(verdict=self.verdict, error_kind=self.error_kind)


class ExternalCheck(models.Model):
    """The last check of an external link target for one owner, reused by the owner's crawls for a while (the
    site's external_cache_hours, WEBAUDIT_EXTERNAL_CACHE_HOURS by default), as lychee's --cache does."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    url_key = models.CharField(max_length=40)
    url = models.TextField()
    checked_at = models.DateTimeField()
    # The page fields of that check (status, final URL, redirects, verdict...), as frontier_record wrote them.
    fields = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "url_key"], name="external_check_unique")]

    def __str__(self) -> str:
        return self.url


class PageBody(models.Model):
    """A page's body, zlib-compressed, kept apart so page lists never load it."""

    page = models.OneToOneField(Page, on_delete=models.CASCADE, primary_key=True, related_name="body")
    data = models.BinaryField()
    encoding = models.CharField(max_length=40, blank=True)

    def __str__(self) -> str:
        return f"body of page {self.page_id}"

    @property
    def content(self) -> bytes:
        return zlib.decompress(self.data)


class PageExtract(models.Model):
    """What one extractor of the page readers' hook read from a page (docs/analysis-jobs.md), in its own
    compact format; written with the page, or later from its stored body (sites.services.extracts)."""

    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="extracts")
    name = models.CharField(max_length=16, help_text="The extractor's name in WEBAUDIT_PAGE_EXTRACTORS.")
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["page", "name"], name="extract_unique_name_per_page")]

    def __str__(self) -> str:
        return f"{self.name} of page {self.page_id}"


class Link(models.Model):
    class Tag(models.TextChoices):
        ANCHOR = "a", "Link (a)"
        IMAGE = "img", "Image (img)"

    # A copy of source.crawl, kept so that a crawl's links are found without a join. No index of its own (the
    # (crawl, id) index below serves lookups by crawl) and no constraint in the database (the source's
    # holds it, and Django cascades deletions itself): each is paid on every one of the ~300 links a
    # documentation page holds, the constraint as a check at commit that cost PostgreSQL 0.6 s of a 5.8 s
    # crawl of the python docs.
    crawl = models.ForeignKey(
        Crawl, on_delete=models.CASCADE, related_name="links", db_index=False, db_constraint=False
    )
    source = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="outlinks")
    # A link and its target page always belong to one crawl and are deleted with it (the crawl's cascade deletes
    # links by crawl and by source), so the target needs no index (lookups, always made within a crawl, read the
    # crawl's links), no constraint in the database, and not Django's SET_NULL, which would null targets page by
    # page. Each was paid for every link written, at a random place in a tree that outgrows the cache: with them
    # a page's links cost twice as much at 100,000 pages as at 5,000.
    target = models.ForeignKey(
        Page,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_index=False,
        db_constraint=False,
        related_name="inlinks",
        help_text="The target's page in this crawl; empty when it was out of scope or over the page limit.",
    )
    target_url = models.TextField()
    text = models.TextField(blank=True, help_text="Anchor text, or the image's alt text.")
    tag = models.CharField(max_length=4, choices=Tag.choices, default=Tag.ANCHOR)
    is_internal = models.BooleanField(default=True)
    nofollow = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        # Appended to as links are written. An index on (crawl, target) cost each link a random place in a tree
        # that outgrew the cache, and made a page's links cost more the bigger the crawl (docs/benchmarks.md);
        # lookups by target scan the crawl's links in this index instead (sites.services.dashboard).
        indexes = [models.Index(fields=["crawl", "id"], name="link_crawl_order")]

    def __str__(self) -> str:
        return f"{self.source_id} -> {self.target_url}"


class RobotsFile(models.Model):
    """robots.txt of one origin as a crawl fetched it, shared by every worker of that crawl."""

    crawl = models.ForeignKey(Crawl, on_delete=models.CASCADE, related_name="robots_files")
    origin = models.CharField(max_length=300)
    # Null and empty mean different things here (RFC 9309: unreachable vs. no rules).
    text = models.TextField(  # noqa: DJ001
        null=True, blank=True, help_text="Empty: allow all. Null: unreachable, so disallow all."
    )
    # Why a null text: the fetch failed (timeout, reset...), which pages kept out report instead of a refusal.
    error_kind = models.CharField(max_length=32, blank=True)
    error = models.TextField(blank=True)
    fetched_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["crawl", "origin"], name="robots_unique_origin_per_crawl")
        ]

    def __str__(self) -> str:
        return f"{self.origin}/robots.txt"


class DirectoryProbe(models.Model):
    """How a server answered a random name in one directory (Bar-Yossef et al., Table 1), once per crawl."""

    crawl = models.ForeignKey("Crawl", on_delete=models.CASCADE, related_name="probes")
    directory = models.TextField()
    directory_key = models.CharField(max_length=40)
    url = models.TextField(help_text="The probe URL: the directory and 25 random lower-case letters.")
    final_url = models.TextField(blank=True)
    redirects = models.PositiveSmallIntegerField(default=0)
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    error_kind = models.CharField(max_length=32, blank=True)
    text = models.TextField(blank=True, help_text="Visible text of the answer, for the resemblance test.")
    body = models.BinaryField(
        null=True, blank=True, help_text="The HTML answer, zlib-compressed: a soft-404 page by construction."
    )
    fetched_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "checks_directoryprobe"  # created by the checks app, which held it before (sites 0008)
        constraints = [
            models.UniqueConstraint(
                fields=["crawl", "directory_key"], name="probe_unique_directory_per_crawl"
            )
        ]

    def __str__(self) -> str:
        return self.url


class UrlHealth(models.Model):
    """Transient failures (timeouts, resets, 5xx) of one URL across checks: dead only after repeated strikes."""

    url = models.TextField()
    url_key = models.CharField(max_length=40, unique=True, help_text="page_key(url): one row a page.")
    strikes = models.PositiveSmallIntegerField(default=0)
    failing_since = models.DateTimeField()
    last_strike_at = models.DateTimeField()
    last_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        db_table = "checks_urlhealth"  # created by the checks app, which held it before (sites 0008)
        verbose_name_plural = "URL health"

    def __str__(self) -> str:
        return f"{self.url}: {self.strikes} strikes since {self.failing_since:%Y-%m-%d %H:%M}"


class Sitemap(models.Model):
    """One sitemap file a crawl read: declared in robots.txt, at /sitemap.xml, or listed by a sitemap index."""

    crawl = models.ForeignKey(Crawl, on_delete=models.CASCADE, related_name="sitemaps")
    url = models.TextField()
    declared_in = models.CharField(
        max_length=16, help_text="robots.txt, the well-known /sitemap.xml, or a sitemap index."
    )
    is_index = models.BooleanField(default=False)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    urls_listed = models.PositiveIntegerField(default=0, help_text="<loc> entries it held.")
    error = models.CharField(
        max_length=300, blank=True, help_text="Why it could not be read, if it could not."
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.url


class SitemapUrl(models.Model):
    """A URL of the site that its sitemaps list, kept until the crawl's end tells the listed pages (in_sitemap)
    and the orphans (listed, reached by no link) apart."""

    crawl = models.ForeignKey(Crawl, on_delete=models.CASCADE, related_name="sitemap_urls")
    url = models.TextField()
    url_key = models.CharField(max_length=40)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["crawl", "url_key"], name="sitemap_url_unique_per_crawl")
        ]

    def __str__(self) -> str:
        return self.url
