"""What is wrong with a crawled site, ready to act on: the issues overview, the health score and broken targets.

Plain functions over one crawl, for the dashboard, `manage.py crawl_issues` and whatever compares two crawls:

- `crawl_issues`: each kind of problem with its count, severity, a one-line explanation and the filter that
  lists it (`issue_pages`);
- `crawl_health`: one 0-100 number a later crawl can be compared by (the formula is in `crawl_health`'s
  docstring and docs/crawling.md, "Issues and health");
- `crawl_broken_targets`: one row per broken or soft-404 target with how many links point to it (inlinks), from
  how many pages (unique inlinks) and which.

Analyses add issue kinds (decay's "high decay") through WEBAUDIT_CRAWL_ISSUE_PROVIDERS, so this module imports
none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils.module_loading import import_string

from sites.models import (
    BROKEN_CHECKED,
    NOT_CHECKED_KINDS,
    Crawl,
    Link,
    Page,
    Sitemap,
    Verdict,
)

# A page that takes longer than this to answer is slow. One second is where users notice a delay (Nielsen's
# response-time limits) and twice what search engines advise for the server's answer alone.
SLOW_PAGE_MS = 1000
# A page whose body is bigger than this is very large: ten times a typical HTML document, so slow on mobile.
LARGE_PAGE_BYTES = 1_000_000
# A redirect chain of this many hops or more costs every visitor and crawler that many extra round trips.
REDIRECT_CHAIN_HOPS = 3
# Source pages listed per broken target; the counts are always complete.
SOURCES_CAP = 100


class Severity:
    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"
    ORDER = {ERROR: 0, WARNING: 1, NOTICE: 2}
    # How much a page with a problem of this severity takes off the health score (crawl_health).
    WEIGHT = {ERROR: 1.0, WARNING: 0.5, NOTICE: 0.0}


@dataclass(frozen=True)
class CrawlIssue:
    """One kind of problem found in a crawl.

    `filter` is the query string of the list that shows it on the crawl page (with its `anchor`): the page table
    filtered by `?issue=KIND`, or the broken targets' table."""

    kind: str
    severity: str
    count: int
    title: str
    explanation: str
    filter: str = ""
    anchor: str = "pages"

    def as_report(self) -> dict:
        return {"kind": self.kind, "severity": self.severity, "count": self.count, "title": self.title}


# Pages -----------------------------------------------------------------------------------------------------


def _fetched_internal(crawl: Crawl) -> QuerySet[Page]:
    """The crawl's own pages that were asked (robots.txt and the address guard let us), the pages the health
    score is about: a crawl whose start URL the guard refused asked nothing, and its health is unknown, not 100."""
    return Page.objects.filter(crawl=crawl, is_internal=True, state=Page.State.DONE).exclude(
        error_kind__in=("robots", *NOT_CHECKED_KINDS)
    )


def _linked(crawl: Crawl, pages: QuerySet[Page]) -> Q:
    """Those of `pages` that a link of the crawl points to: one non-correlated subquery (links have no index on
    their target, sites.models.Link), never one per page."""
    return Q(id__in=Link.objects.filter(crawl=crawl, target__in=pages.values("id")).values("target_id"))


def _sources_of_links_to(crawl: Crawl, pages: QuerySet[Page]) -> Q:
    return Q(id__in=Link.objects.filter(crawl=crawl, target__in=pages.values("id")).values("source_id"))


def _crawl_pages(crawl: Crawl) -> QuerySet[Page]:
    return Page.objects.filter(crawl=crawl)


def _redirect_chain_q() -> Q:
    # The hop at index REDIRECT_CHAIN_HOPS - 1 exists: a JSON path both SQLite and PostgreSQL index into.
    return Q(**{f"redirects__{REDIRECT_CHAIN_HOPS - 1}__status__gte": 0})


def _issue_queries(crawl: Crawl) -> dict[str, Q]:
    """The pages each page-kind issue lists, as conditions on the crawl's pages."""
    pages = _crawl_pages(crawl)
    redirected = pages.filter(~Q(redirects=[]), state=Page.State.DONE, verdict=Verdict.OK)
    noindex = pages.filter(is_internal=True, noindex=True)
    robots = pages.filter(
        error_kind="robots", is_internal=True
    )  # another site's robots.txt is not ours to fix
    listed = pages.filter(in_sitemap=True)
    return {
        "broken_internal": Q(is_internal=True, verdict=Verdict.DEAD) & ~Q(error_kind__in=NOT_CHECKED_KINDS),
        "broken_external": Q(is_internal=False, verdict__in=(Verdict.DEAD, Verdict.FAILING))
        & ~Q(error_kind__in=NOT_CHECKED_KINDS),
        "soft404": Q(verdict=Verdict.SOFT404),
        "failed": Q(is_internal=True, verdict=Verdict.FAILING),
        "redirect_loops": Q(error_kind__in=("redirect_loop", "too_many_redirects")),
        "redirect_chains": _redirect_chain_q() & Q(state=Page.State.DONE),
        "links_to_redirects": _linked(crawl, redirected),
        "slow": Q(is_internal=True, state=Page.State.DONE, response_ms__gte=SLOW_PAGE_MS),
        "large": Q(is_internal=True, state=Page.State.DONE, size__gte=LARGE_PAGE_BYTES),
        "noindex_linked": _linked(crawl, noindex),
        "robots_linked": _linked(crawl, robots),
        "orphans": Q(in_sitemap=True, is_internal=True) & ~_linked(crawl, listed),
        "sitemap_problems": Q(in_sitemap=True)
        & (BROKEN_CHECKED | ~Q(redirects=[]) | Q(noindex=True) | Q(error_kind="robots")),
        "not_in_sitemap": Q(
            is_internal=True,
            in_sitemap=False,
            state=Page.State.DONE,
            verdict=Verdict.OK,
            noindex=False,
            redirects=[],
            content_type__startswith="text/html",
        ),
        "not_checked": Q(error_kind__in=NOT_CHECKED_KINDS),
    }


@dataclass(frozen=True)
class IssueKind:
    kind: str
    severity: str
    title: str
    explanation: str
    anchor: str = "pages"
    filter: str = ""  # the query string when it is not ?issue=KIND


# The overview's kinds in the order it shows them (then by severity). Each title names the problem, each
# explanation says in plain words why it matters.
ISSUE_KINDS: tuple[IssueKind, ...] = (
    IssueKind(
        "broken_internal",
        Severity.ERROR,
        "Broken internal pages",
        "Pages of the site that answer 'not found' (or are gone) while links still point to them.",
        anchor="broken-targets",
        filter="targets=internal",
    ),
    IssueKind(
        "soft404",
        Severity.ERROR,
        "Soft-404 pages",
        "Pages that answer 'OK' but are really error pages; search engines index them as empty pages.",
        anchor="broken-targets",
        filter="targets=soft404",
    ),
    IssueKind(
        "failed",
        Severity.ERROR,
        "Pages that failed",
        "Pages of the site that timed out, refused the connection or answered a server error (5xx).",
    ),
    IssueKind(
        "redirect_loops",
        Severity.ERROR,
        "Redirect loops",
        "Redirects that go round in circles or never end: nobody reaches a page.",
    ),
    IssueKind(
        "broken_external",
        Severity.WARNING,
        "Broken external links",
        "Pages of other sites the site links to that are gone or failing.",
        anchor="broken-targets",
        filter="targets=external",
    ),
    IssueKind(
        "sitemap_problems",
        Severity.WARNING,
        "Sitemap problems",
        "URLs the sitemap lists that are dead, soft-404, redirected, noindex or blocked by robots.txt, "
        "and sitemaps that could not be read: the sitemap should list only live, final, indexable URLs.",
    ),
    IssueKind(
        "orphans",
        Severity.WARNING,
        "Orphan pages",
        "Pages the sitemap lists that no page of the site links to: visitors cannot reach them.",
    ),
    IssueKind(
        "redirect_chains",
        Severity.WARNING,
        f"Redirect chains ({REDIRECT_CHAIN_HOPS}+ hops)",
        f"URLs that redirect {REDIRECT_CHAIN_HOPS} times or more before a page: each hop costs a round trip.",
    ),
    IssueKind(
        "noindex_linked",
        Severity.WARNING,
        "Linked noindex pages",
        "Pages asking search engines not to index them while the site links to them: check they should be.",
    ),
    IssueKind(
        "slow",
        Severity.WARNING,
        "Slow pages",
        f"Pages that took {SLOW_PAGE_MS / 1000:g} s or more to download.",
    ),
    IssueKind(
        "large",
        Severity.WARNING,
        "Very large pages",
        f"Pages of {LARGE_PAGE_BYTES / 1_000_000:g} MB or more: slow to load, especially on phones.",
    ),
    IssueKind(
        "links_to_redirects",
        Severity.NOTICE,
        "Links to redirects",
        "Pages linked to by a URL that redirects: link to where it ends instead.",
    ),
    IssueKind(
        "robots_linked",
        Severity.NOTICE,
        "Linked pages blocked by robots.txt",
        "Pages the site links to that its robots.txt forbids crawlers to read.",
    ),
    IssueKind(
        "not_in_sitemap",
        Severity.NOTICE,
        "Pages missing from the sitemap",
        "Indexable pages of the site that its sitemap does not list.",
    ),
    IssueKind(
        "not_checked",
        Severity.NOTICE,
        "Links not checked (address not allowed)",
        "Link targets on private or local network addresses, which this deployment does not fetch.",
    ),
)
ISSUE_KINDS_BY_NAME = {kind.kind: kind for kind in ISSUE_KINDS}
# The kinds that between them list each broken page of the crawl once (BROKEN_CHECKED: dead, soft-404 or failing,
# of the site or another, and asked): the progress card's "Broken" is their sum, so it says what the overview says.
BROKEN_KINDS = ("broken_internal", "soft404", "failed", "broken_external")


def issues_broken_count(issues: Iterable[CrawlIssue]) -> int:
    """How many broken pages and external targets the overview's issues list (BROKEN_KINDS), each once."""
    return sum(issue.count for issue in issues if issue.kind in BROKEN_KINDS)


def issue_condition(*, crawl: Crawl, kind: str) -> Q:
    """The condition on the crawl's pages that one issue kind lists (the page table's ?issue=KIND); ValueError
    for a kind it does not know."""
    queries = _issue_queries(crawl)
    if kind not in queries:
        raise ValueError(f"unknown issue kind {kind!r}")
    return queries[kind]


def issue_pages(*, crawl: Crawl, kind: str) -> QuerySet[Page]:
    return _crawl_pages(crawl).filter(issue_condition(crawl=crawl, kind=kind))


def issue_kind_choices() -> list[tuple[str, str]]:
    return [(kind.kind, kind.title) for kind in ISSUE_KINDS]


def _unreadable_sitemaps(crawl: Crawl) -> int:
    return Sitemap.objects.filter(crawl=crawl).exclude(error="").count()


def _sitemap_read(crawl: Crawl) -> bool:
    """Whether the crawl read a sitemap: without one, no page is missing from it (a declared sitemap that could
    not be read is a sitemap problem, not a site whose every page is unlisted)."""
    return Sitemap.objects.filter(crawl=crawl, error="").exists()


def crawl_issues(*, crawl: Crawl, with_empty: bool = False) -> list[CrawlIssue]:
    """The crawl's issues, most severe first, then by count. The page kinds are counted in one query; analyses
    add theirs through WEBAUDIT_CRAWL_ISSUE_PROVIDERS. Kinds with nothing found are left out unless
    `with_empty`; orphans and pages missing from the sitemap are left out of a crawl that read no sitemap."""
    queries = _issue_queries(crawl)
    counts = _crawl_pages(crawl).aggregate(**{name: Count("id", filter=q) for name, q in queries.items()})
    counts["sitemap_problems"] += _unreadable_sitemaps(crawl)
    has_sitemap = _sitemap_read(crawl)
    issues = []
    for kind in ISSUE_KINDS:
        if kind.kind in ("not_in_sitemap", "orphans") and not has_sitemap:
            continue
        count = counts[kind.kind]
        if count or with_empty:
            issues.append(
                CrawlIssue(
                    kind=kind.kind,
                    severity=kind.severity,
                    count=count,
                    title=kind.title,
                    explanation=kind.explanation,
                    filter=kind.filter or f"issue={kind.kind}",
                    anchor=kind.anchor,
                )
            )
    for provider in issue_providers():
        issues.extend(issue for issue in provider(crawl) if issue.count or with_empty)
    return sorted(issues, key=lambda issue: (Severity.ORDER.get(issue.severity, 3), -issue.count))


@cache
def _providers(paths: tuple[str, ...]) -> tuple[Callable[[Crawl], Iterable[CrawlIssue]], ...]:
    return tuple(import_string(path.replace(":", ".")) for path in paths)


def issue_providers() -> tuple[Callable[[Crawl], Iterable[CrawlIssue]], ...]:
    """The functions of WEBAUDIT_CRAWL_ISSUE_PROVIDERS: `(crawl) -> [CrawlIssue]`, the issue kinds analyses add
    (decay's "high decay") without this module importing them."""
    return _providers(tuple(getattr(settings, "WEBAUDIT_CRAWL_ISSUE_PROVIDERS", ())))


# Health ----------------------------------------------------------------------------------------------------

HEALTH_FORMULA = (
    "health = 100 × (1 − (E + ½·W) ÷ P), rounded: P is the site's pages fetched, E those with an error "
    "(the page is broken, or links to a broken page of the site), W the others with a warning (links to a "
    f"broken page of another site, slow, very large, a redirect chain of {REDIRECT_CHAIN_HOPS}+ hops)."
)


@dataclass(frozen=True)
class Health:
    score: int | None  # None: no page of the site was fetched
    pages: int
    with_errors: int
    with_warnings: int
    formula: str = field(default=HEALTH_FORMULA)


def crawl_health(*, crawl: Crawl) -> Health:
    """The crawl's health, 0-100, comparable between crawls of a site of any size.

    health = 100 × (1 − (E + ½·W) / P), rounded, where P counts the site's pages fetched (internal, not blocked
    by robots.txt or the address guard; None without any), E those with an error (the page itself is dead, soft-404 or failing, or it links to a page of
    the site that is: its visitors meet the error), W the rest with a warning (it links to a broken page of
    another site, which the owner can only unlink; slow; very large; a redirect chain of 3+ hops). A share, not
    a count, so a bigger site is not a sicker one; the "share of pages without errors" of the common site-audit
    tools, with warnings at half weight."""
    pages = _fetched_internal(crawl)
    broken = _crawl_pages(crawl).filter(BROKEN_CHECKED)
    error = BROKEN_CHECKED | _sources_of_links_to(crawl, broken.filter(is_internal=True))
    warning = (
        _sources_of_links_to(crawl, broken.filter(is_internal=False))
        | Q(response_ms__gte=SLOW_PAGE_MS)
        | Q(size__gte=LARGE_PAGE_BYTES)
        | _redirect_chain_q()
        | Q(error_kind__in=("redirect_loop", "too_many_redirects"))
    )
    totals = pages.aggregate(
        pages=Count("id"),
        with_errors=Count("id", filter=error),
        with_warnings=Count("id", filter=warning & ~error),
    )
    if not totals["pages"]:
        return Health(score=None, **totals)
    penalty = (
        Severity.WEIGHT[Severity.ERROR] * totals["with_errors"]
        + Severity.WEIGHT[Severity.WARNING] * totals["with_warnings"]
    ) / totals["pages"]
    return Health(score=round(100 * max(0.0, 1 - penalty)), **totals)


# Broken targets --------------------------------------------------------------------------------------------


@dataclass
class BrokenTarget:
    """A broken or soft-404 page with the links that point to it."""

    page_id: int
    url: str
    verdict: str
    reason: str
    status_code: int | None
    error_kind: str
    is_internal: bool
    inlinks: int
    unique_inlinks: int
    sources: list[str] = field(default_factory=list)

    def as_report(self) -> dict:
        return {
            "url": self.url,
            "verdict": self.verdict,
            "reason": self.reason,
            "inlinks": self.inlinks,
            "unique_inlinks": self.unique_inlinks,
            "sources": self.sources,
        }


BROKEN_TARGET_SCOPES = {
    "internal": Q(is_internal=True) & ~Q(verdict=Verdict.SOFT404),
    "external": Q(is_internal=False) & ~Q(verdict=Verdict.SOFT404),
    "soft404": Q(verdict=Verdict.SOFT404),
}
BROKEN_TARGET_ORDERS = ("inlinks", "-inlinks", "url", "unique_inlinks", "-unique_inlinks")


def crawl_broken_targets(
    *,
    crawl: Crawl,
    scope: str = "",
    order: str = "-inlinks",
    with_sources: bool = True,
    sources_cap: int = SOURCES_CAP,
) -> list[BrokenTarget]:
    """One row per broken (dead, failing) or soft-404 page of the crawl, most linked first (`order`: one of
    BROKEN_TARGET_ORDERS), narrowed to a scope of BROKEN_TARGET_SCOPES ("" for all). The inlink counts come from
    one grouped query over the crawl's links; the sources (at most `sources_cap` per target) from one more, or
    later by `broken_target_sources` for the rows a table shows."""
    if order not in BROKEN_TARGET_ORDERS:
        raise ValueError(f"order must be one of {', '.join(BROKEN_TARGET_ORDERS)}")
    pages = _crawl_pages(crawl).filter(BROKEN_CHECKED, state=Page.State.DONE)
    if scope:
        if scope not in BROKEN_TARGET_SCOPES:
            raise ValueError(f"scope must be one of {', '.join(BROKEN_TARGET_SCOPES)}")
        pages = pages.filter(BROKEN_TARGET_SCOPES[scope])
    counts = {
        target: (inlinks, unique)
        for target, inlinks, unique in Link.objects.filter(crawl=crawl, target__in=pages.values("id"))
        .order_by()
        .values_list("target_id")
        .annotate(inlinks=Count("id"), unique=Count("source_id", distinct=True))
    }
    rows = [
        BrokenTarget(
            page_id=page_id,
            url=url,
            verdict=verdict,
            reason=reason,
            status_code=status_code,
            error_kind=error_kind,
            is_internal=is_internal,
            inlinks=counts.get(page_id, (0, 0))[0],
            unique_inlinks=counts.get(page_id, (0, 0))[1],
        )
        for page_id, url, verdict, reason, status_code, error_kind, is_internal in pages.values_list(
            "id", "url", "verdict", "verdict_reason", "status_code", "error_kind", "is_internal"
        )
    ]
    name = order.lstrip("-")
    rows.sort(key=lambda row: row.url)
    if name != "url":
        rows.sort(key=lambda row: getattr(row, name), reverse=order.startswith("-"))
    if with_sources:
        broken_target_sources(crawl=crawl, targets=rows, cap=sources_cap)
    return rows


# Targets whose sources one query fetches: bounded so that a crawl with many broken pages is read in pieces.
SOURCES_BATCH = 500


def broken_target_sources(*, crawl: Crawl, targets: list[BrokenTarget], cap: int = SOURCES_CAP) -> None:
    """Fill `sources` of these targets: the URLs of the pages linking to each, in crawl order, at most `cap`."""
    by_id = {target.page_id: target for target in targets}
    ids = list(by_id)
    for start in range(0, len(ids), SOURCES_BATCH):
        batch = ids[start : start + SOURCES_BATCH]
        pairs = (
            Link.objects.filter(crawl=crawl, target__in=batch)
            .order_by("target_id", "source_id")
            .values_list("target_id", "source_id", "source__url")
            .distinct()
        )
        for target_id, _, source_url in pairs.iterator(chunk_size=5000):
            sources = by_id[target_id].sources
            if len(sources) < cap:
                sources.append(source_url)


# Sitemap ---------------------------------------------------------------------------------------------------


def crawl_sitemap_summary(*, crawl: Crawl, limit: int | None = None, detail: bool = False) -> dict:
    """The sitemap section of `crawl_issues_report`: how many URLs the sitemaps list, the listed URLs that are
    dead, soft-404 or redirected, the orphans, and how many crawled pages the sitemaps miss; with `detail`, also
    the sitemap files read and the listed URLs that are noindex or blocked by robots.txt (the dashboard's)."""
    pages = _crawl_pages(crawl)
    queries = _issue_queries(crawl)
    listed = pages.filter(in_sitemap=True)

    def urls(query: QuerySet[Page]) -> list[str]:
        chosen = query.order_by("id").values_list("url", flat=True)
        return list(chosen[:limit] if limit else chosen)

    has_sitemap = _sitemap_read(crawl)
    summary = {
        "urls": listed.count(),
        "dead": urls(listed.filter(BROKEN_CHECKED & ~Q(verdict=Verdict.SOFT404))),
        "soft404": urls(listed.filter(verdict=Verdict.SOFT404)),
        "redirected": urls(listed.exclude(redirects=[])),
        "orphans": urls(pages.filter(queries["orphans"])),
        "not_in_sitemap": pages.filter(queries["not_in_sitemap"]).count() if has_sitemap else 0,
    }
    if detail:
        summary["sitemaps"] = list(
            Sitemap.objects.filter(crawl=crawl).values(
                "url", "declared_in", "status_code", "urls_listed", "error"
            )
        )
        summary["noindex"] = urls(listed.filter(noindex=True))
        summary["blocked"] = urls(listed.filter(error_kind="robots"))
    return summary


def crawl_issues_report(*, crawl: Crawl) -> dict:
    """What `manage.py crawl_issues --json` writes (issue 20's shape): health, issues, broken targets, sitemap."""
    return {
        "crawl": crawl.pk,
        "health": crawl_health(crawl=crawl).score,
        "issues": [issue.as_report() for issue in crawl_issues(crawl=crawl)],
        "broken_targets": [target.as_report() for target in crawl_broken_targets(crawl=crawl)],
        "sitemap": crawl_sitemap_summary(crawl=crawl),
    }
