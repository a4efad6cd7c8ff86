"""Django admin for sites, crawls, pages and links; its actions call sites.services.

Page and Link tables grow to hundreds of thousands of rows: their lists never count every row, never load page
bodies, order by primary key, and use raw id widgets instead of select boxes.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, F, QuerySet
from django.http import HttpRequest
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst

from sites.forms import SiteForm
from sites.models import (
    FETCH_FOUND_FIELDS,
    VERDICT_FIELDS,
    Crawl,
    DirectoryProbe,
    Link,
    Page,
    Site,
    UrlHealth,
    Verdict,
)
from sites.services.crawls import CrawlError, crawl_cancel, crawl_start
from sites.services.retention import deletion_summary

admin.site.site_header = "webaudit administration"
admin.site.site_title = "webaudit admin"

# Crawls offered in the page and link list filters: the most recent ones, since a long list is unusable.
RECENT_CRAWLS_IN_FILTER = 30
# The directory probe's evidence (Page.probe), in reading order; any other key is shown after these.
PROBE_LABELS = {
    "url": "Probe URL",
    "final_url": "Probe final URL",
    "redirects": "Redirects",
    "status": "Status",
    "resemblance": "Resemblance",
    "verdict": "Probe verdict",
    "reason": "Probe reason",
}


def _crawls(count: int) -> str:
    return f"{count} crawl{pluralize(count)}"


def _start_crawls(modeladmin: admin.ModelAdmin, request: HttpRequest, sites: list[Site]) -> None:
    started, failed = [], []
    for site in sites:
        try:
            started.append(crawl_start(site=site, requested_by=request.user))
        except CrawlError as exc:
            failed.append(f"{site}: {exc}")
    if started:
        ids = ", ".join(f"#{crawl.pk}" for crawl in started)
        modeladmin.message_user(request, f"Started {_crawls(len(started))}: {ids}.", messages.SUCCESS)
    for message in failed:
        modeladmin.message_user(request, f"Could not start a crawl of {message}", messages.ERROR)


class CountedDeletionMixin:
    """Confirm a deletion with counts per table, not Django's list of every row it removes.

    The default lists every page and link a crawl holds: 22 s and 165,000 lines for one python docs crawl.
    """

    def crawl_ids_of(self, objs) -> list[int]:
        raise NotImplementedError

    def get_deleted_objects(self, objs, request: HttpRequest):
        counts = deletion_summary(crawl_ids=self.crawl_ids_of(objs))
        listed = [
            f"{capfirst(self.model._meta.verbose_name)}: {obj}" for obj in objs
        ]  # the counts go to Summary
        perms_needed = {
            model._meta.verbose_name
            for model in (self.model, Crawl, Page, Link)
            if self.admin_site.is_registered(model)
            and not self.admin_site.get_model_admin(model).has_delete_permission(request)
        }
        return listed, {name: count for name, count in counts.items() if count}, perms_needed, []

    # Crawls still running are cancelled first, so their workers stop instead of writing to deleted rows.
    def delete_model(self, request: HttpRequest, obj) -> None:
        _cancel_active(self.crawl_ids_of([obj]))
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        _cancel_active(self.crawl_ids_of(queryset))
        super().delete_queryset(request, queryset)


def _cancel_active(crawl_ids: list[int]) -> None:
    for crawl in Crawl.objects.filter(pk__in=crawl_ids, status__in=Crawl.ACTIVE):
        crawl_cancel(crawl=crawl)


@admin.register(Site)
class SiteAdmin(CountedDeletionMixin, admin.ModelAdmin):
    form = SiteForm  # the dashboard's URL and pattern checks
    list_display = ("name", "url", "owner", "created_at", "crawl_count")
    list_filter = ("owner",)
    search_fields = ("url", "name")
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    filter_horizontal = ("shared_with",)
    date_hierarchy = "created_at"
    actions = ["start_crawl"]
    fieldsets = (
        (None, {"fields": ("url", "name", "owner", "shared_with")}),
        ("Crawl settings", {"fields": Site.CRAWL_SETTINGS}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Site]:
        return super().get_queryset(request).annotate(crawl_total=Count("crawls"))

    def crawl_ids_of(self, sites) -> list[int]:
        return list(Crawl.objects.filter(site__in=list(sites)).values_list("pk", flat=True))

    @admin.display(description="Crawls", ordering="crawl_total")
    def crawl_count(self, site: Site) -> int:
        return site.crawl_total

    @admin.action(description="Start a crawl")
    def start_crawl(self, request: HttpRequest, queryset: QuerySet[Site]) -> None:
        _start_crawls(self, request, list(queryset))


@admin.register(Crawl)
class CrawlAdmin(CountedDeletionMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "site",
        "status",
        "pages_done",
        "pages_failed",
        "pages_queued",
        "requests_made",
        "started_at",
        "finished_at",
    )
    list_display_links = ("id", "site")
    list_filter = ("status", "site")
    list_select_related = ("site",)
    search_fields = ("site__url", "site__name")
    date_hierarchy = "created_at"
    actions = ["cancel", "start_again"]
    raw_id_fields = ("site", "requested_by")
    readonly_fields = (
        "site",
        "requested_by",
        "status",
        "dashboard",
        "pages_done",
        "pages_failed",
        "pages_queued",
        "links_found",
        "requests_made",
        "bytes_received",
        "not_modified",
        "baseline",
        "created_at",
        "started_at",
        "finished_at",
        "heartbeat_at",
        "error",
        "settings",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a crawl needs its seeded frontier: start one with the Sites action

    def crawl_ids_of(self, crawls) -> list[int]:
        return [crawl.pk for crawl in crawls]

    @admin.display(description="Dashboard")
    def dashboard(self, crawl: Crawl) -> str:
        return format_html('<a href="{}">Progress and report</a>', reverse("sites:crawl", args=[crawl.pk]))

    @admin.action(description="Cancel")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Crawl]) -> None:
        cancelled = sum(crawl_cancel(crawl=crawl) for crawl in queryset)
        skipped = queryset.count() - cancelled
        self.message_user(request, f"Cancelled {_crawls(cancelled)}.", messages.SUCCESS)
        if skipped:
            self.message_user(request, f"{_crawls(skipped)} had already ended.", messages.WARNING)

    @admin.action(description="Start again (a new crawl of the same site)")
    def start_again(self, request: HttpRequest, queryset: QuerySet[Crawl]) -> None:
        sites = {crawl.site_id: crawl.site for crawl in queryset.select_related("site")}
        _start_crawls(self, request, list(sites.values()))


class RecentCrawlFilter(admin.SimpleListFilter):
    """Filter by crawl, listing recent crawls with their site in one query (no query per crawl)."""

    title = "crawl"
    parameter_name = "crawl__id__exact"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        crawls = Crawl.objects.select_related("site").order_by("-id")[:RECENT_CRAWLS_IN_FILTER]
        return [(str(crawl.pk), f"#{crawl.pk} {crawl.site}") for crawl in crawls]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return queryset.filter(crawl_id=self.value()) if self.value() else queryset


class ReadOnlyRecordAdmin(admin.ModelAdmin):
    """Pages and links are what a crawl found: viewable and deletable, never edited or added by hand."""

    show_full_result_count = False
    ordering = ("-id",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class TargetVerdictFilter(admin.SimpleListFilter):
    """Filter links by their target page's verdict."""

    title = "target verdict"
    parameter_name = "target_verdict"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return list(Verdict.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return queryset.filter(target__verdict=self.value()) if self.value() else queryset


@admin.register(Page)
class PageAdmin(ReadOnlyRecordAdmin):
    list_display = (
        "url",
        "status_code",
        "verdict",
        "depth",
        "size",
        "response_ms",
        "is_internal",
        "error_kind",
        "crawl_number",
    )
    list_filter = ("verdict", "status_code", "is_internal", "state", "error_kind", RecentCrawlFilter)
    search_fields = ("url", "title")
    raw_id_fields = ("crawl",)
    exclude = ("claim_token",)
    readonly_fields = ("probe_evidence",)
    fieldsets = (
        (None, {"fields": ("crawl", "url", "is_internal", "depth", "state")}),
        (
            "Fetch",
            {
                "fields": (
                    *FETCH_FOUND_FIELDS,
                    "response_ms",
                    "in_sitemap",
                    "fetched_at",
                    "etag",
                    "last_modified",
                    "not_modified",
                )
            },
        ),
        (
            "Verdict",
            {
                "fields": (
                    *(
                        name for name in VERDICT_FIELDS if name != "probe"
                    ),  # the probe: as its evidence, below
                    "strikes",
                    "failing_since",
                    "verdict_cached_at",
                    "probe_evidence",
                )
            },
        ),
        ("Frontier", {"classes": ("collapse",), "fields": ("not_before", "attempts", "claimed_at")}),
    )

    @admin.display(description="Crawl", ordering="crawl_id")
    def crawl_number(self, page: Page) -> str:
        return f"#{page.crawl_id}"  # the id alone, so the list never loads a crawl per row

    @admin.display(description="Probe evidence")
    def probe_evidence(self, page: Page) -> str:
        if not page.probe:
            return "Not probed"
        keys = [key for key in PROBE_LABELS if key in page.probe]
        keys += [key for key in page.probe if key not in PROBE_LABELS]
        rows = format_html_join(
            "",
            "<tr><th scope='row'>{}</th><td>{}</td></tr>",
            ((PROBE_LABELS.get(key, key), _evidence_value(page.probe[key])) for key in keys),
        )
        return format_html("<table>{}</table>", rows)


def _evidence_value(value: object) -> object:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return value


@admin.register(Link)
class LinkAdmin(ReadOnlyRecordAdmin):
    list_display = ("source", "target_verdict", "target_url", "text", "tag", "is_internal")
    list_filter = ("tag", "is_internal", TargetVerdictFilter, RecentCrawlFilter)
    search_fields = ("target_url", "text")
    raw_id_fields = ("crawl", "source", "target")
    list_select_related = ("source",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Link]:
        # The source column shows only its URL; skip the rest of the page row. The target's verdict comes
        # through one joined column rather than its whole page row.
        return (
            super()
            .get_queryset(request)
            .defer("source__title", "source__redirects", "source__fetch_error", "source__canonical_url")
            .annotate(target_verdict_value=F("target__verdict"))
        )

    @admin.display(description="Target verdict", ordering="target_verdict_value")
    def target_verdict(self, link: Link) -> str:
        value = getattr(link, "target_verdict_value", None)
        if not value:
            return "–"  # never checked, out of scope, or not judged
        return Verdict(value).label


@admin.register(DirectoryProbe)
class DirectoryProbeAdmin(admin.ModelAdmin):
    list_display = ("directory", "status", "redirects", "final_url", "error_kind", "crawl", "fetched_at")
    list_filter = ("status", "error_kind")
    search_fields = ("directory", "final_url")
    raw_id_fields = ("crawl",)
    exclude = ("body",)
    readonly_fields = (
        "crawl",
        "directory",
        "directory_key",
        "url",
        "final_url",
        "redirects",
        "status",
        "error_kind",
        "text",
        "fetched_at",
    )
    show_full_result_count = False

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(UrlHealth)
class UrlHealthAdmin(admin.ModelAdmin):
    list_display = ("url", "strikes", "failing_since", "last_strike_at", "last_reason")
    search_fields = ("url",)
    readonly_fields = ("url", "url_key", "failing_since", "last_strike_at", "last_reason")
    ordering = ("-last_strike_at",)

    def has_add_permission(self, request) -> bool:
        return False
