"""Admin for what the checks remember: analysis jobs and what they found (decay scores, links to fix first)."""

from django.contrib import admin

from checks.jobs import job_cancel
from checks.models import AnalysisJob, DecayFix, DecayScore
from checks.structure.models import StructureFilter


@admin.register(AnalysisJob)
class AnalysisJobAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "site", "crawl", "progress_done", "progress_total", "created_at")
    list_filter = ("kind", "status")
    search_fields = ("site__url", "site__name")
    raw_id_fields = ("site", "crawl", "requested_by")
    readonly_fields = (
        "kind",
        "site",
        "crawl",
        "parameters",
        "status",
        "progress_done",
        "progress_total",
        "progress_note",
        "state",
        "result",
        "error",
        "requested_by",
        "created_at",
        "started_at",
        "finished_at",
        "heartbeat_at",
        "step_token",
    )
    actions = ["cancel_jobs"]
    show_full_result_count = False

    def has_add_permission(self, request) -> bool:
        return False  # jobs are started from the dashboard or the command line, with their parameters checked

    @admin.action(description="Cancel the selected jobs")
    def cancel_jobs(self, request, queryset) -> None:
        cancelled = sum(job_cancel(job=job) for job in queryset.filter(status__in=AnalysisJob.ACTIVE))
        self.message_user(request, f"Cancelled {cancelled} job{'s' if cancelled != 1 else ''}.")


@admin.register(StructureFilter)
class StructureFilterAdmin(admin.ModelAdmin):
    """Saved structural filters (docs/structure.md); they run from the dashboard or `filterpages`."""

    list_display = ("__str__", "site", "relation", "threshold", "combine", "created_by", "created_at")
    list_filter = ("relation",)
    search_fields = ("name", "site__url")
    raw_id_fields = ("site", "created_by")


class AnalysisResultAdmin(admin.ModelAdmin):
    """What a job computed is its record: shown, searchable, deleted with its job, never edited by hand."""

    show_full_result_count = False  # a decay job over a large crawl stores a row per page and σ

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(DecayScore)
class DecayScoreAdmin(AnalysisResultAdmin):
    list_display = ("page", "sigma", "decay", "dead_link_fraction", "error_bound", "job")
    list_filter = ("sigma",)
    search_fields = ("page__url",)
    raw_id_fields = ("job", "page")
    list_select_related = ("page",)
    ordering = ("-decay",)


@admin.register(DecayFix)
class DecayFixAdmin(AnalysisResultAdmin):
    list_display = ("rank", "target", "gain", "exact", "job")
    list_filter = ("exact",)
    search_fields = ("target",)
    raw_id_fields = ("job", "page")
    ordering = ("job", "rank")
