"""What the checks remember: directory probes shared by a crawl's workers, and transient failures across checks."""

from __future__ import annotations

from django.db import models

from sites.models import Crawl


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
