"""Django admin for MWIM registrations and their CE files (read-only data: the `ce` job writes it)."""

from __future__ import annotations

from django.contrib import admin

from mwim.models import ContentExtractFile, MwimSite


@admin.register(MwimSite)
class MwimSiteAdmin(admin.ModelAdmin):
    list_display = ["site", "enabled", "verified_at", "verified_by", "published_at"]
    list_filter = ["enabled", "verified_by"]
    raw_id_fields = ["site"]
    readonly_fields = ["verification_token", "push_token_hash", "indexnow_key", "published_at", "created_at"]


@admin.register(ContentExtractFile)
class ContentExtractFileAdmin(admin.ModelAdmin):
    list_display = ["url", "mwim_site", "updated_at", "listed", "fingerprint"]
    list_filter = ["listed"]
    show_full_result_count = False
    raw_id_fields = ["mwim_site", "crawl"]
    exclude = ["data"]
    readonly_fields = ["url", "url_key", "fingerprint", "updated_at"]
