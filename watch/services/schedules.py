"""Site schedules: when each site is due, and starting the crawls that are (beat calls `schedules_run_due` once a
minute through watch.tasks).

A schedule's `next_run_at` is moved past *now* (not past the time it was due) before its crawl starts, in the
transaction that claims it: a run missed while beat was down happens once when beat returns, never once per
missed time, and two beats (or a beat message delivered twice) cannot both start it.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from sites.models import Crawl, Site
from sites.services.crawls import CrawlError, crawl_start
from watch.cron import Cron, cron_parse
from watch.models import Schedule

log = logging.getLogger(__name__)

# Schedules started per beat tick: a burst of due sites is spread over the following minutes.
DUE_PER_TICK = 50


def schedule_cron(schedule: Schedule) -> Cron:
    """The schedule as a cron expression: daily and weekly are cron expressions of their hour and minute."""
    if schedule.frequency == Schedule.Frequency.DAILY:
        return cron_parse(f"{schedule.minute} {schedule.hour} * * *")
    if schedule.frequency == Schedule.Frequency.WEEKLY:
        return cron_parse(f"{schedule.minute} {schedule.hour} * * {(schedule.weekday + 1) % 7}")
    return cron_parse(schedule.cron)


def schedule_save(*, site: Site, now: datetime | None = None, **fields) -> Schedule:
    """Create or change the site's schedule (CronError for a bad expression) and set its next run."""
    schedule = Schedule.objects.filter(site=site).first() or Schedule(site=site)
    for name, value in fields.items():
        setattr(schedule, name, value)
    schedule.next_run_at = schedule_cron(schedule).next_after(now or timezone.now())
    schedule.last_error = ""
    schedule.save()
    return schedule


def schedules_run_due(*, now: datetime | None = None) -> list[int]:
    """Start a crawl of each enabled site whose next run has come; return the crawls started."""
    now = now or timezone.now()
    due = Schedule.objects.filter(enabled=True, next_run_at__lte=now).order_by("next_run_at")
    started = []
    for schedule_id in list(due.values_list("pk", flat=True)[:DUE_PER_TICK]):
        crawl = schedule_run(schedule_id=schedule_id, now=now)
        if crawl is not None:
            started.append(crawl.pk)
    return started


def schedule_run(*, schedule_id: int, now: datetime) -> Crawl | None:
    """Claim one due schedule (moving its next run past `now`) and start its crawl; None when another beat
    claimed it first or the crawl could not start (the reason is kept in `last_error`)."""
    with transaction.atomic():
        claimed = Schedule.objects.filter(pk=schedule_id, enabled=True, next_run_at__lte=now)
        if connection.features.has_select_for_update:
            claimed = claimed.select_for_update(
                skip_locked=connection.features.has_select_for_update_skip_locked
            )
        schedule = claimed.select_related("site").first()
        if schedule is None:
            return None
        schedule.next_run_at = schedule_cron(schedule).next_after(now)
        schedule.last_run_at = now
        try:
            with transaction.atomic():
                crawl = crawl_start(site=schedule.site)
        except CrawlError as exc:
            schedule.last_error = str(exc)[:1000]
            schedule.save(update_fields=["next_run_at", "last_run_at", "last_error"])
            log.warning("scheduled crawl of site %s not started: %s", schedule.site_id, exc)
            return None
        schedule.last_crawl, schedule.last_error = crawl, ""
        schedule.save(update_fields=["next_run_at", "last_run_at", "last_crawl", "last_error"])
    return crawl


def crawl_was_scheduled(crawl: Crawl) -> bool:
    return Schedule.objects.filter(last_crawl=crawl).exists()


def site_compares_crawls(*, site: Site) -> bool:
    """Whether the site's crawls are compared (retention keeps what that needs): it has an enabled schedule."""
    return Schedule.objects.filter(site=site, enabled=True).exists()
