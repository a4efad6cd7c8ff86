"""What MWIM keeps: a site's registration (ownership verification, push token, IndexNow endpoints) and the
Content Extract file of each of its pages, as served to search engines."""

from __future__ import annotations

import secrets

from django.db import models

from sites.models import Crawl, Site


def new_token() -> str:
    return secrets.token_hex(16)


def published_registration(path: str = "") -> models.Q:
    """The condition for a registration whose MWIM URLs (sitemap, CE files, push) may answer: enabled and
    verified; `path` reaches the registration from another model ("mwim_site__")."""
    return models.Q(**{f"{path}enabled": True, f"{path}verified_at__isnull": False})


class MwimSiteQuerySet(models.QuerySet):
    def published(self) -> MwimSiteQuerySet:
        """Registrations whose MWIM URLs may answer (published_registration)."""
        return self.filter(published_registration())


class ContentExtractFileQuerySet(models.QuerySet):
    def published(self) -> ContentExtractFileQuerySet:
        """The CE files search engines may read: listed, of a published registration."""
        return self.filter(published_registration("mwim_site__"), listed=True)


class MwimSite(models.Model):
    """A site its owner registered for MWIM. Its MWIM URLs answer only once `verified_at` is set: the owner
    proved control by a meta tag or a token file that webaudit fetched from the site."""

    class Method(models.TextChoices):
        META = "meta", "Meta tag on the start page"
        FILE = "file", "Token file at the site's root"

    site = models.OneToOneField(Site, on_delete=models.CASCADE, related_name="mwim")
    enabled = models.BooleanField(default=True, help_text="Crawls of the site build content extracts.")
    verification_token = models.CharField(max_length=64, default=new_token, editable=False)
    verified_at = models.DateTimeField(null=True, blank=True)
    verified_by = models.CharField(max_length=8, choices=Method.choices, blank=True)
    verification_error = models.CharField(max_length=500, blank=True)
    # The push endpoint's token is kept hashed: it is shown once, when made.
    push_token_hash = models.CharField(max_length=64, blank=True)
    indexnow_key = models.CharField(max_length=64, default=new_token, editable=False)
    indexnow_endpoints = models.JSONField(
        default=list,
        blank=True,
        help_text="IndexNow endpoints to announce changed URLs to (none by default).",
    )
    published_at = models.DateTimeField(
        null=True, blank=True, help_text="When the sitemap last changed (its Last-Modified)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MwimSiteQuerySet.as_manager()

    class Meta:
        verbose_name = "MWIM site"

    def __str__(self) -> str:
        return f"MWIM of {self.site}"

    @property
    def is_verified(self) -> bool:
        return self.verified_at is not None


class ContentExtractFile(models.Model):
    """The current Content Extract of one page of an MWIM site. The row outlives crawls: a recrawl replaces
    its data only when the page's fingerprint changed, and a page that failed to extract keeps its last good
    file."""

    mwim_site = models.ForeignKey(MwimSite, on_delete=models.CASCADE, related_name="extracts")
    url = models.TextField()
    url_key = models.CharField(max_length=40, help_text="sha1 of the URL: the stable name of its CE file.")
    data = models.BinaryField()
    fingerprint = models.CharField(max_length=80)
    updated_at = models.DateTimeField(help_text="When this file last changed (the sitemap's ce:lastupd).")
    crawl = models.ForeignKey(
        Crawl, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The last crawl that found the page.",
    )  # fmt: skip
    listed = models.BooleanField(
        default=True, help_text="In the sitemap: the last crawl found the page live, indexable, canonical."
    )

    objects = ContentExtractFileQuerySet.as_manager()

    class Meta:
        ordering = ["url"]
        constraints = [
            models.UniqueConstraint(fields=["mwim_site", "url_key"], name="ce_unique_url_per_site")
        ]

    def __str__(self) -> str:
        return self.url

    @property
    def size(self) -> int:
        return len(self.data)


class PushWindow(models.Model):
    """Pushes a site's backend made in one minute: counted in the database, which every web process shares (a
    count in each process's memory let two gunicorn workers pass twice the limit)."""

    mwim_site = models.ForeignKey(MwimSite, on_delete=models.CASCADE, related_name="push_windows")
    minute = models.BigIntegerField(help_text="Minutes since the epoch.")
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["mwim_site", "minute"], name="push_window_unique_minute")
        ]

    def __str__(self) -> str:
        return f"{self.count} pushes to {self.mwim_site} in minute {self.minute}"
