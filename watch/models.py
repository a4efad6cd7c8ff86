"""Watching a site over time: its re-crawl schedule, who is told what changed, and each webhook delivery."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models

from sites.models import Crawl, Site


class Schedule(models.Model):
    """When a site is crawled again without anyone asking (watch.services.schedules); times are UTC."""

    class Frequency(models.TextChoices):
        DAILY = "daily", "Daily"
        WEEKLY = "weekly", "Weekly"
        CRON = "cron", "Cron expression"

    WEEKDAYS = [(0, "Monday"), (1, "Tuesday"), (2, "Wednesday"), (3, "Thursday"), (4, "Friday")]
    WEEKDAYS += [(5, "Saturday"), (6, "Sunday")]

    site = models.OneToOneField(Site, on_delete=models.CASCADE, related_name="schedule")
    enabled = models.BooleanField(default=True)
    frequency = models.CharField(max_length=8, choices=Frequency.choices, default=Frequency.DAILY)
    hour = models.PositiveSmallIntegerField(default=3, help_text="Hour of the day (UTC), daily and weekly.")
    minute = models.PositiveSmallIntegerField(default=0)
    weekday = models.PositiveSmallIntegerField(choices=WEEKDAYS, default=0, help_text="For weekly schedules.")
    cron = models.CharField(max_length=100, blank=True, help_text="minute hour day month weekday, in UTC.")
    # The next run, computed when the schedule is saved and each time it runs: beat starts schedules whose time
    # has come, and moves this past now before starting the crawl, so a run missed while beat was down runs
    # once when it returns, never once per missed time.
    next_run_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_crawl = models.ForeignKey(Crawl, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    last_error = models.TextField(blank=True)
    analyses = models.BooleanField(default=True, help_text="Run decay and page types after each crawl.")

    def __str__(self) -> str:
        return f"schedule of {self.site}"


class AlertSubscription(models.Model):
    """One user's choice of how to hear what got worse after a scheduled crawl of a site they can see."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="alert_subscriptions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    email = models.BooleanField(default=True, help_text="Send an email to the account's address.")
    webhook_url = models.URLField(max_length=2000, blank=True)
    webhook_secret = models.CharField(max_length=64, default="", blank=True, editable=False)
    even_when_unchanged = models.BooleanField(
        default=False, help_text="Also tell me after crawls where nothing got worse."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["site", "user"], name="alert_one_per_user_and_site")]

    def __str__(self) -> str:
        return f"alerts of {self.user} for {self.site}"

    def save(self, *args, **kwargs) -> None:
        if not self.webhook_secret:
            self.webhook_secret = secrets.token_hex(32)
        super().save(*args, **kwargs)


class WebhookDelivery(models.Model):
    """One alert POSTed to a webhook, with every attempt's answer (shown on the site's watch page)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"

    subscription = models.ForeignKey(AlertSubscription, on_delete=models.CASCADE, related_name="deliveries")
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    crawl = models.ForeignKey(Crawl, null=True, on_delete=models.SET_NULL, related_name="+")
    url = models.URLField(max_length=2000)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True, help_text="The answer's first bytes.")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"delivery {self.pk} to {self.url}"


class CrawlFigures(models.Model):
    """A finished crawl's figures for the site's trend charts, counted once (watch.services.trends)."""

    crawl = models.OneToOneField(Crawl, on_delete=models.CASCADE, primary_key=True, related_name="+")
    pages = models.PositiveIntegerField()
    broken_targets = models.PositiveIntegerField()
    soft404_pages = models.PositiveIntegerField()
    health = models.PositiveSmallIntegerField(null=True)

    def __str__(self) -> str:
        return f"figures of crawl {self.crawl_id}"


class WaitingAlert(models.Model):
    """A scheduled crawl whose alerts wait for the analyses its schedule started (watch.services.alerts): sent,
    and this row deleted, when the last of them ends."""

    crawl = models.OneToOneField(Crawl, on_delete=models.CASCADE, primary_key=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"alerts of crawl {self.crawl_id}, waiting"
