"""Admin for what the checks remember: directory probes and URLs with transient failures."""

from django.contrib import admin

from checks.models import DirectoryProbe, UrlHealth


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
