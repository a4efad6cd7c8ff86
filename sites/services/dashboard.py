"""Read-side queries behind the dashboard: visible sites with their last crawl, the report tables and filters."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery

from sites.models import BROKEN_CHECKED, NOT_CHECKED_KINDS, Crawl, Link, Page, Site, Verdict
from sites.services.issues import issue_condition

# What the URL itself answered. A redirected page counts as 3xx and also in the class of where it ended,
# so "3xx" lists every redirect while "4xx" still lists a redirect that ends on a missing page.
STATUS_CLASSES: dict[str, tuple[str, Q]] = {
    "2xx": ("2xx success", Q(status_code__gte=200, status_code__lt=300)),
    "3xx": ("3xx redirected", Q(status_code__gte=300, status_code__lt=400) | ~Q(redirects=[])),
    "4xx": ("4xx client error", Q(status_code__gte=400, status_code__lt=500)),
    "5xx": ("5xx server error", Q(status_code__gte=500, status_code__lt=600)),
    "error": (
        "Fetch error",
        Q(state=Page.State.DONE) & ~Q(error_kind="") & ~Q(error_kind__in=("robots", *NOT_CHECKED_KINDS)),
    ),
    "robots": ("Blocked by robots.txt", Q(error_kind="robots")),
    "pending": ("Not fetched yet", ~Q(state=Page.State.DONE)),
}
SCOPES: dict[str, tuple[str, Q]] = {
    "internal": ("Internal (crawled)", Q(is_internal=True)),
    "external": ("External (checked)", Q(is_internal=False)),
}
# A target the address guard refused is stored "dead" but was never asked: no verdict chip or filter counts it
# (the issue "Links not checked" lists them).
VERDICTS: dict[str, tuple[str, Q]] = {
    value: (label, Q(verdict=value) & ~Q(error_kind__in=NOT_CHECKED_KINDS))
    for value, label in Verdict.choices
}
# A page a link should not point to: the fetch failed, or the verdict says dead, soft-404 or still failing.
# A soft-404 page answers 200, so only its verdict tells it apart.


@dataclass(frozen=True)
class PageFilter:
    """The report's page-table filters; empty values mean no filtering."""

    status: str = ""
    scope: str = ""
    verdict: str = ""
    broken: bool = False
    search: str = ""
    issue: str = ""  # a page kind of the issues overview (sites.services.issues)

    @property
    def active(self) -> bool:
        return bool(self.status or self.scope or self.verdict or self.broken or self.search or self.issue)

    def query(self) -> str:
        """The filter as the page table's query string (sites.forms.PageFilterForm's names), empty values left
        out: what a link to the same pages carries, the pages CSV's."""
        values = {
            "status": self.status,
            "scope": self.scope,
            "verdict": self.verdict,
            "issue": self.issue,
            "q": self.search,
            "broken": "on" if self.broken else "",
        }
        return urlencode({name: value for name, value in values.items() if value})


def sites_with_last_crawl(*, user) -> QuerySet[Site]:
    """The user's visible sites, each annotated with its latest crawl's id, status, date and site pages done."""
    latest = Crawl.objects.filter(site=OuterRef("pk")).order_by("-created_at", "-id")
    return (
        Site.objects.visible_to(user)
        .select_related("owner")
        .annotate(
            last_crawl_id=Subquery(latest.values("id")[:1]),
            last_crawl_status=Subquery(latest.values("status")[:1]),
            last_crawl_at=Subquery(latest.values("created_at")[:1]),
            # The site's own pages, not the external link targets checked (Crawl.site_pages_done).
            last_crawl_pages=Subquery(latest.values(site_pages=F("pages_done") - F("external_done"))[:1]),
        )
        .order_by("name", "url", "id")
    )


def crawls_visible_to(user) -> QuerySet[Crawl]:
    """Crawls of the sites the user can see."""
    return Crawl.objects.filter(site__in=Site.objects.visible_to(user).values("pk")).select_related("site")


def report_pages(*, crawl: Crawl, page_filter: PageFilter) -> QuerySet[Page]:
    """The crawl's pages (never their bodies) narrowed by the filter, shallowest first."""
    pages = Page.objects.filter(crawl=crawl)
    if page_filter.status in STATUS_CLASSES:
        pages = pages.filter(STATUS_CLASSES[page_filter.status][1])
    if page_filter.scope in SCOPES:
        pages = pages.filter(SCOPES[page_filter.scope][1])
    if page_filter.verdict in VERDICTS:
        pages = pages.filter(VERDICTS[page_filter.verdict][1])
    if page_filter.broken:
        pages = pages.filter(BROKEN_CHECKED)
    if page_filter.search:
        pages = pages.filter(url__icontains=page_filter.search)
    if page_filter.issue:
        pages = pages.filter(issue_condition(crawl=crawl, kind=page_filter.issue))
    return pages.defer("content_hash", "canonical_url", "claim_token", "probe").order_by("depth", "id")


def _verdict_aggregates() -> dict[str, Count]:
    return {key: Count("id", filter=condition) for key, (_, condition) in VERDICTS.items()}


def report_status_counts(*, crawl: Crawl) -> dict[str, int]:
    """How many of the crawl's pages fall in each status class and verdict, plus the broken ones, in one query."""
    aggregates = {key: Count("id", filter=condition) for key, (_, condition) in STATUS_CLASSES.items()}
    return Page.objects.filter(crawl=crawl).aggregate(
        **aggregates, **_verdict_aggregates(), broken=Count("id", filter=BROKEN_CHECKED)
    )


def report_soft404_pages(*, crawl: Crawl) -> QuerySet[Page]:
    """The crawl's soft-404 pages with their evidence, shallowest first (`inlinks_count` adds their inlinks)."""
    return (
        Page.objects.filter(crawl=crawl, verdict=Verdict.SOFT404)
        .only(
            "id",
            "url",
            "final_url",
            "title",
            "status_code",
            "is_internal",
            "depth",
            "verdict",
            "verdict_reason",
            "soft404_probability",
            "probe",
            "fetched_at",
            "verdict_cached_at",
        )
        .order_by("depth", "id")
    )


def inlinks_count(*, crawl: Crawl, pages: list[Page]) -> list[Page]:
    """Set `inlink_count` on each of these pages of the crawl: how many of its links point there. One grouped
    query over the crawl's links (links have no index on their target: it grew with every link written, see
    docs/benchmarks.md), for the few pages a list shows at a time."""
    counts = dict(
        Link.objects.filter(crawl=crawl, target__in=[page.pk for page in pages])
        .order_by()
        .values_list("target")
        .annotate(count=Count("id"))
    )
    for page in pages:
        page.inlink_count = counts.get(page.pk, 0)
    return pages


def orphans_mark(*, crawl: Crawl, pages: list[Page]) -> list[Page]:
    """Set `is_orphan` on each of these pages of the crawl: listed in the sitemap and linked from no page, so the
    crawl reached it from the sitemap only. One query over the links to the listed ones, none without any."""
    listed = [page.pk for page in pages if page.in_sitemap and page.is_internal]
    linked = (
        set(
            Link.objects.filter(crawl=crawl, target__in=listed).values_list("target_id", flat=True).distinct()
        )
        if listed
        else set()
    )
    for page in pages:
        page.is_orphan = page.pk in listed and page.pk not in linked
    return pages


def report_broken_links(*, crawl: Crawl) -> QuerySet[Link]:
    """Links of the crawl whose target is broken, dead, soft-404 or failing, in the order they were found; not
    those the address guard refused, which were never asked (shown "not checked")."""
    broken_targets = Page.objects.filter(crawl=crawl).filter(BROKEN_CHECKED).values("id")
    return (
        Link.objects.filter(crawl=crawl, target__in=broken_targets)
        .select_related("source", "target")
        .only(
            "id",
            "text",
            "tag",
            "target_url",
            "is_internal",
            "source__url",
            "target__status_code",
            "target__error_kind",
            "target__fetch_error",
            "target__state",
            "target__verdict",
            "target__verdict_reason",
            "target__soft404_probability",
            "target__strikes",
            "target__failing_since",
            "target__fetched_at",
            "target__verdict_cached_at",
        )
        .order_by("id")
    )


@dataclass(frozen=True)
class VerdictSummary:
    """The verdict counts of a site's latest finished crawl; `unjudged` counts fetched pages without one."""

    crawl: Crawl
    counts: dict[str, int]
    unjudged: int


def site_verdict_summary(*, site: Site) -> VerdictSummary | None:
    """Verdict counts of the site's latest finished crawl, or None when no crawl of it has finished."""
    crawl = site.crawls.finished().only("id", "site_id", "finished_at", "created_at", "pages_done").first()
    if crawl is None:
        return None
    counts = Page.objects.filter(crawl=crawl).aggregate(
        **_verdict_aggregates(), unjudged=Count("id", filter=Q(state=Page.State.DONE, verdict=""))
    )
    unjudged = counts.pop("unjudged")
    return VerdictSummary(crawl=crawl, counts=counts, unjudged=unjudged)


def site_crawls(*, site: Site) -> QuerySet[Crawl]:
    """The site's crawls for its page, newest first (the model's order), with who asked for each."""
    return site.crawls.select_related("requested_by")


def site_active_crawl(*, site: Site) -> Crawl | None:
    """The site's crawl that is queued or running, if any (a site runs one at a time)."""
    return site.crawls.filter(status__in=Crawl.ACTIVE).first()


def site_shared_with(*, site: Site):
    """The users the site is shared with, by name."""
    return site.shared_with.order_by("username")
