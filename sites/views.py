"""Dashboard views: thin interfaces over sites.services.

Every lookup goes through what the user may see, so someone else's site or crawl answers 404, never 403.
GET never changes anything; starting, cancelling, sharing and deleting are POST forms with CSRF.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from sites.access import can_manage
from sites.forms import BrokenTargetsForm, PageFilterForm, ShareForm, SiteForm
from sites.models import Crawl, Site
from sites.services.crawls import CrawlError, crawl_cancel, crawl_start
from sites.services.dashboard import (
    crawls_visible_to,
    inlinks_count,
    orphans_mark,
    report_broken_links,
    report_pages,
    report_soft404_pages,
    report_status_counts,
    site_active_crawl,
    site_crawls,
    site_shared_with,
    site_verdict_summary,
    sites_with_last_crawl,
)
from sites.services.issues import (
    broken_target_sources,
    crawl_broken_targets,
    crawl_health,
    crawl_issues,
    crawl_sitemap_summary,
    issues_broken_count,
)
from sites.services.reports import (
    CSV_LINK_COLUMNS,
    LINK_CHOICES,
    crawl_summary,
    csv_page_columns,
    iter_csv_rows,
    iter_report_json,
    iter_report_links,
    iter_report_pages,
    page_extension_columns,
)
from sites.services.retention import CrawlActiveError, crawl_delete, deletion_summary
from sites.services.sites import (
    SiteError,
    site_create,
    site_delete,
    site_deletion_summary,
    site_share,
    site_unshare,
    site_update,
)

SITES_PER_PAGE = 25
CRAWLS_PER_PAGE = 20
ROWS_PER_PAGE = 50
# Each soft-404 row carries its evidence and stands several lines tall: fewer rows keep the section scannable.
SOFT404_ROWS_PER_PAGE = 20
# Each broken target carries its (expandable) source pages.
TARGETS_PER_PAGE = 25
SITEMAP_URLS_SHOWN = 20
# json.iterencode yields tokens of a few bytes; sending them in ~64 KB pieces keeps the stream cheap.
JSON_CHUNK_CHARS = 64 * 1024


def _visible_site(request: HttpRequest, site_id: int) -> Site:
    return get_object_or_404(Site.objects.visible_to(request.user).select_related("owner"), pk=site_id)


def _visible_crawl(request: HttpRequest, crawl_id: int) -> Crawl:
    return get_object_or_404(crawls_visible_to(request.user), pk=crawl_id)


@login_required
@require_GET
def site_list(request: HttpRequest) -> HttpResponse:
    page_obj = Paginator(sites_with_last_crawl(user=request.user), SITES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(request, "sites/site_list.html", {"page_obj": page_obj})


@login_required
@require_http_methods(["GET", "POST"])
def site_add(request: HttpRequest) -> HttpResponse:
    form = SiteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            site = site_create(
                owner=request.user,
                url=form.cleaned_data["url"],
                name=form.cleaned_data["name"],
                **form.crawl_settings(),
            )
        except SiteError as exc:
            form.add_error("url", str(exc))
        else:
            messages.success(request, f"Added {site}. Start a crawl when you are ready.")
            return redirect("sites:detail", site_id=site.pk)
    return render(request, "sites/site_form.html", {"form": form})


def _managed_site(request: HttpRequest, site_id: int) -> Site:
    site = _visible_site(request, site_id)
    if not can_manage(request.user, site):
        raise PermissionDenied("Only the site's owner can change it.")
    return site


@login_required
@require_http_methods(["GET", "POST"])
def site_edit(request: HttpRequest, site_id: int) -> HttpResponse:
    site = _managed_site(request, site_id)
    form = SiteForm(request.POST or None, instance=site)
    if request.method == "POST" and form.is_valid():
        try:
            site_update(
                site=site,
                url=form.cleaned_data["url"],
                name=form.cleaned_data["name"],
                **form.crawl_settings(),
            )
        except SiteError as exc:
            form.add_error("url", str(exc))
        else:
            messages.success(request, f"Saved the settings of {site}; the next crawl uses them.")
            return redirect("sites:detail", site_id=site.pk)
    return render(request, "sites/site_form.html", {"form": form, "site": site})


@login_required
@require_http_methods(["GET", "POST"])
def site_delete_view(request: HttpRequest, site_id: int) -> HttpResponse:
    """GET asks for confirmation with what would be deleted, counted; POST deletes. Only the owner may."""
    site = _managed_site(request, site_id)
    if request.method == "POST":
        try:
            site_delete(site=site)
        except SiteError as exc:
            messages.error(request, str(exc))
            return redirect("sites:detail", site_id=site.pk)
        messages.success(request, f"Deleted {site} with its crawls and everything they found.")
        return redirect("sites:list")
    context = {
        "site": site,
        "summary": site_deletion_summary(site=site),
        "active_crawl": site_active_crawl(site=site),
    }
    return render(request, "sites/site_delete.html", context)


@login_required
@require_POST
def site_unshare_view(request: HttpRequest, site_id: int) -> HttpResponse:
    site = _managed_site(request, site_id)
    try:
        user_id = int(request.POST.get("user", ""))
    except ValueError:
        return HttpResponse("user must be a user's number", status=400, content_type="text/plain")
    if site_unshare(site=site, user_id=user_id):
        messages.success(request, f"{site} is no longer shared with that user.")
    else:
        messages.info(request, f"{site} was not shared with that user.")
    return redirect("sites:detail", site_id=site.pk)


def _site_detail(request: HttpRequest, site: Site, share_form: ShareForm | None = None) -> HttpResponse:
    crawls = Paginator(site_crawls(site=site), CRAWLS_PER_PAGE).get_page(request.GET.get("page"))
    manages = can_manage(request.user, site)
    context = {
        "site": site,
        "crawls": crawls,
        "active_crawl": site_active_crawl(site=site),
        "verdict_summary": site_verdict_summary(site=site),
        "settings_summary": _settings_summary(site),
        "can_manage": manages,
        "shared_with": site_shared_with(site=site) if manages else None,
        "share_form": share_form or (ShareForm() if manages else None),
    }
    return render(request, "sites/site_detail.html", context, status=400 if share_form else 200)


def _settings_summary(site: Site) -> list[tuple[str, object, bool]]:
    """(label, value in force, whether it is the deployment default) for the site's numeric settings."""
    rows = [
        ("Max pages", site.max_pages, settings.WEBAUDIT_CRAWL_MAX_PAGES),
        ("Max depth", site.max_depth, settings.WEBAUDIT_CRAWL_MAX_DEPTH),
        ("Concurrent requests", site.concurrency, settings.WEBAUDIT_CRAWL_CONCURRENCY),
        ("Delay between requests (s)", site.delay, settings.WEBAUDIT_CRAWL_DELAY),
        (
            "Reuse external verdicts (hours)",
            site.external_cache_hours,
            settings.WEBAUDIT_EXTERNAL_CACHE_HOURS,
        ),
    ]
    return [(label, default if value is None else value, value is None) for label, value, default in rows]


@login_required
@require_GET
def site_detail(request: HttpRequest, site_id: int) -> HttpResponse:
    return _site_detail(request, _visible_site(request, site_id))


@login_required
@require_POST
def site_share_view(request: HttpRequest, site_id: int) -> HttpResponse:
    site = _visible_site(request, site_id)
    if not can_manage(request.user, site):
        raise PermissionDenied("Only the site's owner can share it.")
    form = ShareForm(request.POST)
    if form.is_valid():
        try:
            site_share(site=site, username=form.cleaned_data["username"])
        except SiteError as exc:
            form.add_error("username", str(exc))
        else:
            messages.success(request, f"Shared {site} with {form.cleaned_data['username'].strip()}.")
            return redirect("sites:detail", site_id=site.pk)
    return _site_detail(request, site, share_form=form)


@login_required
@require_POST
def crawl_start_view(request: HttpRequest, site_id: int) -> HttpResponse:
    site = _visible_site(request, site_id)
    try:
        crawl = crawl_start(site=site, requested_by=request.user)
    except CrawlError as exc:
        messages.error(request, f"The crawl could not start: {exc}")
        return redirect("sites:detail", site_id=site.pk)
    return redirect("sites:crawl", crawl_id=crawl.pk)


@never_cache
@login_required
@require_GET
def crawl_detail(request: HttpRequest, crawl_id: int) -> HttpResponse:
    """The crawl's report. While the crawl runs, the page polls itself (htmx) and swaps in its live sections, the
    progress card among them: one response, so the card's counts and the issues overview come from one moment."""
    crawl = _visible_crawl(request, crawl_id)
    filter_form = PageFilterForm(request.GET)
    page_filter = filter_form.page_filter()
    pages = Paginator(report_pages(crawl=crawl, page_filter=page_filter), ROWS_PER_PAGE)
    soft404_pages = Paginator(report_soft404_pages(crawl=crawl), SOFT404_ROWS_PER_PAGE)
    links = Paginator(report_broken_links(crawl=crawl), ROWS_PER_PAGE)
    targets_form = BrokenTargetsForm(request.GET)
    target_scope, target_order = targets_form.choice()
    targets = Paginator(
        crawl_broken_targets(crawl=crawl, scope=target_scope, order=target_order, with_sources=False),
        TARGETS_PER_PAGE,
    ).get_page(request.GET.get("tpage"))
    broken_target_sources(crawl=crawl, targets=targets.object_list)
    soft404_page = soft404_pages.get_page(request.GET.get("spage"))
    soft404_page.object_list = inlinks_count(crawl=crawl, pages=list(soft404_page.object_list))
    page_rows = pages.get_page(request.GET.get("page"))
    page_rows.object_list = orphans_mark(crawl=crawl, pages=list(page_rows.object_list))
    issues = crawl_issues(crawl=crawl)
    context = {
        "crawl": crawl,
        "site": crawl.site,
        "filter_form": filter_form,
        "page_filter": page_filter,
        "pages": page_rows,
        "page_columns": page_extension_columns(crawl, page_rows.object_list),
        "soft404_pages": soft404_page,
        "broken_links": links.get_page(request.GET.get("lpage")),
        "counts": report_status_counts(crawl=crawl),
        "can_manage": can_manage(request.user, crawl.site),
        "issues": issues,
        "broken": issues_broken_count(issues),
        "health": crawl_health(crawl=crawl),
        "broken_targets": targets,
        "target_scope": target_scope,
        "target_order": target_order,
        "sitemap": crawl_sitemap_summary(crawl=crawl, limit=SITEMAP_URLS_SHOWN, detail=True),
    }
    response = render(request, "sites/crawl_detail.html", context)
    if getattr(request, "htmx", False) and not crawl.is_active:
        # Only the live poll of a page opened while the crawl ran asks with htmx: the crawl has ended since. Reload
        # the whole page, whose sections are then laid out for a finished crawl.
        response["HX-Refresh"] = "true"
    return response


@never_cache
@login_required
@require_GET
def crawl_progress_json(request: HttpRequest, crawl_id: int) -> JsonResponse:
    return JsonResponse(crawl_summary(_visible_crawl(request, crawl_id)))


@login_required
@require_POST
def crawl_cancel_view(request: HttpRequest, crawl_id: int) -> HttpResponse:
    crawl = _visible_crawl(request, crawl_id)
    if crawl_cancel(crawl=crawl):
        messages.success(request, "The crawl was cancelled; the pages fetched so far are kept.")
    else:
        messages.info(request, f"The crawl had already ended ({crawl.get_status_display().lower()}).")
    return redirect("sites:crawl", crawl_id=crawl.pk)


@login_required
@require_http_methods(["GET", "POST"])
def crawl_delete_view(request: HttpRequest, crawl_id: int) -> HttpResponse:
    """GET asks for confirmation, with what would be deleted; POST deletes. Only the site's owner may."""
    crawl = _visible_crawl(request, crawl_id)
    if not can_manage(request.user, crawl.site):
        raise PermissionDenied("Only the site's owner can delete its crawls.")
    if request.method == "POST":
        try:
            crawl_delete(crawl=crawl)
        except CrawlActiveError:
            messages.error(request, "The crawl is still running: cancel it before deleting it.")
            return redirect("sites:crawl", crawl_id=crawl.pk)
        messages.success(request, f"Deleted crawl #{crawl_id} and everything it found.")
        return redirect("sites:detail", site_id=crawl.site_id)
    summary = {
        name: count
        for name, count in deletion_summary(crawl_ids=[crawl.pk]).items()
        if count and name != "crawls"  # the one being deleted
    }
    return render(
        request, "sites/crawl_delete.html", {"crawl": crawl, "site": crawl.site, "summary": summary}
    )


def _attachment(response: HttpResponse, crawl: Crawl, suffix: str) -> HttpResponse:
    response["Content-Disposition"] = f'attachment; filename="webaudit-crawl-{crawl.pk}-{suffix}"'
    return response


def _chunked(pieces: Iterable[str], size: int = JSON_CHUNK_CHARS) -> Iterator[str]:
    buffer: list[str] = []
    length = 0
    for piece in pieces:
        buffer.append(piece)
        length += len(piece)
        if length >= size:
            yield "".join(buffer)
            buffer, length = [], 0
    if buffer:
        yield "".join(buffer)


@login_required
@require_GET
def crawl_report_json(request: HttpRequest, crawl_id: int) -> HttpResponse:
    crawl = _visible_crawl(request, crawl_id)
    links = request.GET.get("links", "all")
    if links not in LINK_CHOICES:
        return HttpResponse(
            f"links must be one of {', '.join(LINK_CHOICES)}", status=400, content_type="text/plain"
        )
    response = StreamingHttpResponse(
        _chunked(iter_report_json(crawl, links)), content_type="application/json; charset=utf-8"
    )
    return _attachment(response, crawl, "report.json")


@login_required
@require_GET
def crawl_pages_csv(request: HttpRequest, crawl_id: int) -> StreamingHttpResponse:
    """Every page of the crawl, or with the page table's filters (its query string) all the pages it lists."""
    crawl = _visible_crawl(request, crawl_id)
    page_filter = PageFilterForm(request.GET).page_filter()
    rows = iter_csv_rows(iter_report_pages(crawl, page_filter), csv_page_columns())
    name = "pages-filtered.csv" if page_filter.active else "pages.csv"
    return _attachment(StreamingHttpResponse(rows, content_type="text/csv; charset=utf-8"), crawl, name)


@login_required
@require_GET
def crawl_links_csv(request: HttpRequest, crawl_id: int) -> StreamingHttpResponse:
    crawl = _visible_crawl(request, crawl_id)
    rows = iter_csv_rows(iter_report_links(crawl), CSV_LINK_COLUMNS)
    return _attachment(
        StreamingHttpResponse(rows, content_type="text/csv; charset=utf-8"), crawl, "links.csv"
    )
