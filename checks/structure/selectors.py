"""Read-side queries of structural filters and page types for the dashboard (writes: checks.structure.saved_filters)."""

from __future__ import annotations

from django.db.models import QuerySet

from checks.models import AnalysisJob
from checks.structure.models import PageSimilarity, PageTypeMember, StructureFilter
from sites.models import Crawl, Page, Site

FILTERS_LISTED = 20  # the newest saved filters of a site offered on the "new filter" page


def site_filters(*, site: Site, limit: int = FILTERS_LISTED) -> QuerySet[StructureFilter]:
    """The site's saved filters, newest first."""
    return StructureFilter.objects.filter(site=site)[:limit]


def site_filter(*, site: Site, filter_id) -> StructureFilter | None:
    """The saved filter `filter_id` if it belongs to `site`."""
    return StructureFilter.objects.filter(pk=filter_id, site=site).first()


def job_saved_filter(*, job: AnalysisJob, same_site: bool = True) -> StructureFilter | None:
    """The saved filter a filter job ran from (None for a run started without one)."""
    filters = StructureFilter.objects.filter(pk=job.parameters.get("filter_id"))
    return (filters.filter(site=job.site) if same_site else filters).first()


def crawl_page(*, crawl: Crawl, page_id) -> Page | None:
    """The crawl's page `page_id` (a query-string value: anything not a page of this crawl gives None, a word
    or a number too big for the database included)."""
    text = str(page_id or "")
    if not text.isdigit() or len(text) > 18:
        return None
    return Page.objects.filter(crawl=crawl, pk=int(text)).first()


def filter_similarities(*, job: AnalysisJob, matches_only: bool = False) -> QuerySet[PageSimilarity]:
    """A filter job's scored pages, most similar first."""
    rows = PageSimilarity.objects.filter(job=job).select_related("page").order_by("-similarity", "page_id")
    return rows.filter(match=True) if matches_only else rows


def pagetype_pages(*, job: AnalysisJob, index: int, broken_only: bool = False) -> QuerySet[Page]:
    """The pages a page-types job put in type `index`, shallowest first."""
    members = PageTypeMember.objects.filter(job=job, type_index=index).values("page_id")
    pages = Page.objects.filter(pk__in=members).order_by("depth", "id")
    return pages.broken() if broken_only else pages


def pagetype_member_urls(*, job: AnalysisJob) -> dict[int, list[str]]:
    """{type index: its pages' URLs} of a page-types job."""
    members: dict[int, list[str]] = {}
    for index, url in PageTypeMember.objects.filter(job=job).values_list("type_index", "page__url"):
        members.setdefault(index, []).append(url)
    return members
