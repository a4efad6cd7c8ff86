"""What the checks remember: directory probes shared by a crawl's workers, transient failures across checks,
and the analysis jobs run over crawls and sites."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from sites.models import Crawl, Site


class DirectoryProbe(models.Model):
    """How a server answered a random name in one directory (Bar-Yossef et al., Table 1), once per crawl."""

    crawl = models.ForeignKey(Crawl, on_delete=models.CASCADE, related_name="probes")
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
    url_key = models.CharField(max_length=40, unique=True)
    strikes = models.PositiveSmallIntegerField(default=0)
    failing_since = models.DateTimeField()
    last_strike_at = models.DateTimeField()
    last_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        verbose_name_plural = "URL health"

    def __str__(self) -> str:
        return f"{self.url}: {self.strikes} strikes since {self.failing_since:%Y-%m-%d %H:%M}"


class AnalysisJobQuerySet(models.QuerySet):
    def visible_to(self, user) -> AnalysisJobQuerySet:
        """Jobs over the sites the user may see (docs/analysis-jobs.md)."""
        return self.filter(site__in=Site.objects.visible_to(user))

    def active(self) -> AnalysisJobQuerySet:
        return self.filter(status__in=AnalysisJob.ACTIVE)


class AnalysisJob(models.Model):
    """One run of an analysis (decay, a structural filter, page types, a page search, CE generation) over a
    crawl or a site, worked through in steps by Celery tasks (checks.jobs, docs/analysis-jobs.md)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    kind = models.CharField(
        max_length=32, db_index=True, help_text="The registered kind (checks.jobs.kinds)."
    )
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="analysis_jobs")
    crawl = models.ForeignKey(
        Crawl, null=True, blank=True, on_delete=models.CASCADE, related_name="analysis_jobs"
    )
    parameters = models.JSONField(default=dict, blank=True, help_text="What the job was asked, as cleaned.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(null=True, blank=True)
    progress_note = models.CharField(max_length=300, blank=True)
    state = models.JSONField(
        default=dict, blank=True, help_text="The kind's cursor: where the next step goes on."
    )
    result = models.JSONField(default=dict, blank=True, help_text="The kind's summary of what it found.")
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    step_token = models.UUIDField(
        null=True, blank=True, help_text="The step working on the job now; a stale step finds it changed."
    )

    objects = AnalysisJobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["crawl", "kind", "-created_at"], name="job_by_crawl"),
            models.Index(fields=["site", "kind", "-created_at"], name="job_by_site"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} job #{self.pk}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def progress_percent(self) -> int | None:
        if not self.progress_total:
            return None
        return min(100, round(100 * self.progress_done / self.progress_total))

    @property
    def duration_seconds(self) -> float | None:
        if not self.started_at:
            return None
        from django.utils import timezone

        return ((self.finished_at or timezone.now()) - self.started_at).total_seconds()


# The structural filter's models live in its package (one analysis, one package); Django finds them here.
from checks.structure.models import PageSimilarity, PageTypeMember, StructureFilter  # noqa: E402, F401
