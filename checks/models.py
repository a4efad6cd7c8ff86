"""What the checks remember: the analysis jobs run over crawls and sites, and what they found."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from sites.models import Crawl, RunStatus, Site


class AnalysisJobQuerySet(models.QuerySet):
    def visible_to(self, user) -> AnalysisJobQuerySet:
        """Jobs over the sites the user may see (docs/analysis-jobs.md)."""
        return self.filter(site__in=Site.objects.visible_to(user))

    def active(self) -> AnalysisJobQuerySet:
        return self.filter(status__in=AnalysisJob.ACTIVE)


class AnalysisJob(models.Model):
    """One run of an analysis (decay, a structural filter, page types, a page search, CE generation) over a
    crawl or a site, worked through in steps by Celery tasks (checks.jobs, docs/analysis-jobs.md)."""

    Status = RunStatus
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


class JobScratch(models.Model):
    """A job's partial result between its steps that is too big for its cursor (`AnalysisJob.state` is written
    by every progress call): named, compressed JSON, written in the transaction of the chunk it belongs to and
    replaced when that chunk is redone (checks.jobs.scratch). Dropped when the job finishes."""

    job = models.ForeignKey(AnalysisJob, on_delete=models.CASCADE, related_name="scratch")
    name = models.CharField(max_length=100)
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "name"], name="scratch_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} of job {self.job_id}"


class DecayScore(models.Model):
    """A page's decay at one σ in one decay job, beside its fraction of dead links (docs/decay.md)."""

    job = models.ForeignKey(AnalysisJob, on_delete=models.CASCADE, related_name="decay_scores")
    page = models.ForeignKey("sites.Page", on_delete=models.CASCADE, related_name="decay_scores")
    sigma = models.FloatField()
    decay = models.FloatField()
    dead_link_fraction = models.FloatField(null=True, blank=True, help_text="Empty for a page without links.")
    error_bound = models.FloatField(default=0.0, help_text="Walks: the Chernoff bound at 95%; exact: 0.")
    # At the job's first σ only: an example path to a dead page, and the outlinks (exact) or dead pages (walks)
    # that carry most of the decay, as [url, share of the decay].
    path = models.JSONField(default=list, blank=True)
    dead_ends = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "page", "sigma"], name="decay_unique_page_sigma")
        ]
        indexes = [models.Index(fields=["job", "sigma", "decay"], name="decay_by_score")]

    def __str__(self) -> str:
        return f"D={self.decay:.3f} (σ={self.sigma}) of page {self.page_id}"


class DecayFix(models.Model):
    """A dead link target ranked by how much the site's total decay would drop if it were alive."""

    job = models.ForeignKey(AnalysisJob, on_delete=models.CASCADE, related_name="decay_fixes")
    rank = models.PositiveIntegerField()
    target = models.TextField()
    page = models.ForeignKey("sites.Page", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    gain = models.FloatField()
    exact = models.BooleanField(
        default=False, help_text="Recomputed by a full solve, else the first-order gain."
    )
    linked_from = models.JSONField(default=list)

    class Meta:
        ordering = ["rank"]
        verbose_name = "decay fix"
        verbose_name_plural = "decay fixes"  # Django would say "decay fixs"
        constraints = [models.UniqueConstraint(fields=["job", "rank"], name="decay_fix_unique_rank")]

    def __str__(self) -> str:
        return f"#{self.rank} {self.target} (−{self.gain:.3f})"


class DecayVisit(models.Model):
    """A page a decay job's walks fetched beyond its crawl: remembered so that no later step fetches it again."""

    job = models.ForeignKey(AnalysisJob, on_delete=models.CASCADE, related_name="decay_visits")
    url = models.TextField()
    state = models.CharField(max_length=4)  # dead, live, open
    outlinks = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"{self.url}: {self.state}"


# The structural filter's models live in its package (one analysis, one package); Django finds them here.
from checks.structure.models import PageSimilarity, PageTypeMember, StructureFilter  # noqa: E402, F401
