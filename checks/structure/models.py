"""Saved structural filters and the per-page results of filter and page-type jobs (docs/structure.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class StructureFilter(models.Model):
    """A filter an auditor saved: template pages, the same-relationship, attributes, threshold, labels."""

    site = models.ForeignKey("sites.Site", on_delete=models.CASCADE, related_name="structure_filters")
    name = models.CharField(max_length=200, blank=True)
    templates = models.JSONField(default=list, help_text="URLs of the template pages.")
    relation = models.CharField(max_length=8, default="default", help_text="default, rsn, rpsa or csr.")
    attributes = models.JSONField(default=list, blank=True, help_text="RPSA's subset, as tag.attribute.")
    tags = models.JSONField(default=list, blank=True, help_text="Node kinds; empty for the relation's own.")
    threshold = models.FloatField(
        null=True, blank=True, help_text="Empty: calibrated (default) or the paper's."
    )
    combine = models.CharField(max_length=4, default="mean", help_text="How several templates combine.")
    target_pattern = models.CharField(
        max_length=500, blank=True, help_text="A regular expression: URLs it matches are labelled targets."
    )
    targets = models.JSONField(default=list, blank=True, help_text="URLs marked as targets.")
    non_targets = models.JSONField(default=list, blank=True, help_text="URLs marked as non-targets.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "checks"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name or f"Filter #{self.pk}"


class PageSimilarity(models.Model):
    """One page's similarity to a filter job's templates."""

    job = models.ForeignKey("checks.AnalysisJob", on_delete=models.CASCADE, related_name="similarities")
    page = models.ForeignKey("sites.Page", on_delete=models.CASCADE, related_name="+")
    similarity = models.FloatField()
    match = models.BooleanField()

    class Meta:
        app_label = "checks"
        ordering = ["-similarity", "page_id"]
        indexes = [models.Index(fields=["job", "-similarity"], name="similarity_by_job")]
        constraints = [models.UniqueConstraint(fields=["job", "page"], name="similarity_unique_page")]

    def __str__(self) -> str:
        return f"page {self.page_id}: {self.similarity:.3f}"


class PageTypeMember(models.Model):
    """A page's structural type in a page-types job (type 0 is the biggest)."""

    job = models.ForeignKey("checks.AnalysisJob", on_delete=models.CASCADE, related_name="type_members")
    page = models.ForeignKey("sites.Page", on_delete=models.CASCADE, related_name="+")
    type_index = models.PositiveIntegerField()

    class Meta:
        app_label = "checks"
        ordering = ["type_index", "page_id"]
        indexes = [models.Index(fields=["job", "type_index"], name="pagetype_by_job")]
        constraints = [models.UniqueConstraint(fields=["job", "page"], name="pagetype_unique_page")]

    def __str__(self) -> str:
        return f"page {self.page_id}: type {self.type_index}"
