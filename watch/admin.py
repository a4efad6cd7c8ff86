from django.contrib import admin

from watch.models import AlertSubscription, Schedule, WebhookDelivery


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    list_display = ("site", "enabled", "frequency", "cron", "next_run_at", "last_run_at", "last_crawl")
    list_filter = ("enabled", "frequency")
    raw_id_fields = ("site", "last_crawl")


@admin.register(AlertSubscription)
class AlertSubscriptionAdmin(admin.ModelAdmin):
    list_display = ("site", "user", "email", "webhook_url", "even_when_unchanged")
    raw_id_fields = ("site", "user")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "site", "url", "status", "attempts", "response_status", "created_at")
    list_filter = ("status",)
    raw_id_fields = ("subscription", "site", "crawl")
