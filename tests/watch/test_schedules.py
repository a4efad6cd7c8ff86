"""Schedules: cron expressions, due runs driven by a clock of the test's own, missed runs, retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sites.models import Crawl
from sites.services.crawls import crawl_run
from sites.services.retention import crawls_prune
from sites.services.sites import site_create
from tests.sites.recrawl_site import ValidatingSite
from tests.sites.sitebuilder import html
from watch.cron import CronError, cron_parse
from watch.models import Schedule
from watch.services.schedules import schedule_save, schedules_run_due

DAY1 = datetime(2026, 11, 2, 0, 0, tzinfo=UTC)  # a Monday


def at(days: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return DAY1 + timedelta(days=days, hours=hour, minutes=minute, seconds=second)


@pytest.mark.parametrize(
    ("expression", "after", "expected"),
    [
        ("30 4 * * *", at(0, 5), at(1, 4, 30)),
        ("0 */6 * * *", at(0, 6), at(0, 12)),
        ("15 9 * * mon-fri", at(4, 10), at(7, 9, 15)),  # Friday 10:00 -> Monday 9:15
        ("0 0 1 * *", at(0, 0), datetime(2026, 12, 1, tzinfo=UTC)),
        ("0 12 * * 0", at(0, 0), at(6, 12)),  # 0 is Sunday
    ],
)
def test_a_cron_expression_runs_next_at_the_first_time_it_names_after_now(expression, after, expected):
    assert cron_parse(expression).next_after(after) == expected


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("", "needed"),
        ("* * * * *", "once an hour"),
        ("0,30 * * * *", "once an hour"),
        ("61 * * * *", "minute"),
        ("0 25 * * *", "hour"),
        ("0 0 * *", "five"),
        ("0 0 31 2 *", "no time"),
        ("0 0 * * funday", "weekday"),
        ("0 " * 60, "at most"),
    ],
)
def test_a_cron_expression_that_is_malformed_too_frequent_or_never_due_is_refused_clearly(expression, says):
    with pytest.raises(CronError, match=says):
        cron_parse(expression)


@pytest.fixture
def small_site(httpserver, user):
    served = ValidatingSite(httpserver, {"/": html("Home", "/a"), "/a": html("A", "/")})
    return site_create(owner=user, url=served.root)


def run_started(crawl_ids: list[int]) -> list[Crawl]:
    return [crawl_run(crawl=Crawl.objects.get(pk=pk)) for pk in crawl_ids]


@pytest.mark.django_db
def test_a_site_scheduled_daily_is_crawled_each_day_without_anyone_asking(small_site):
    schedule = schedule_save(site=small_site, frequency="daily", hour=3, minute=0, now=at(0, 0))
    assert schedule.next_run_at == at(0, 3)
    assert schedules_run_due(now=at(0, 2, 59)) == []
    first = run_started(schedules_run_due(now=at(0, 3, 0, 20)))
    assert [crawl.status for crawl in first] == ["finished"]
    assert schedules_run_due(now=at(0, 3, 1)) == []  # beat's next tick: not again the same day
    second = run_started(schedules_run_due(now=at(1, 3, 0, 5)))
    third = run_started(schedules_run_due(now=at(2, 3, 0, 40)))
    assert len(second) == len(third) == 1
    assert Crawl.objects.filter(site=small_site, status="finished").count() == 3
    schedule.refresh_from_db()
    assert schedule.last_crawl == third[0] and schedule.next_run_at == at(3, 3)
    assert third[0].requested_by is None and third[0].baseline == second[0]


@pytest.mark.django_db
def test_a_run_missed_while_beat_was_down_runs_once_when_beat_returns_never_twice(small_site):
    schedule_save(site=small_site, frequency="daily", hour=3, minute=0, now=at(0, 0))
    # Beat was down from day 0, 02:00 until day 3, 10:00: three runs were missed.
    started = schedules_run_due(now=at(3, 10))
    assert len(started) == 1
    assert schedules_run_due(now=at(3, 10)) == []  # a second beat, or the same tick delivered twice
    assert schedules_run_due(now=at(3, 10, 1)) == []
    assert Schedule.objects.get(site=small_site).next_run_at == at(4, 3)
    assert Crawl.objects.filter(site=small_site).count() == 1


@pytest.mark.django_db
def test_a_due_schedule_whose_site_is_still_crawling_waits_for_its_next_time_and_says_why(small_site):
    schedule_save(site=small_site, frequency="weekly", weekday=0, hour=3, minute=0, now=at(0, 0))
    Crawl.objects.create(site=small_site, status="running")
    assert schedules_run_due(now=at(0, 3)) == []
    schedule = Schedule.objects.get(site=small_site)
    assert "still running" in schedule.last_error and schedule.next_run_at == at(7, 3)


@pytest.mark.django_db
def test_a_disabled_schedule_never_runs(small_site):
    schedule_save(site=small_site, frequency="daily", hour=3, minute=0, now=at(0, 0), enabled=False)
    assert schedules_run_due(now=at(5, 0)) == []


@pytest.mark.django_db
def test_retention_keeps_the_crawl_a_scheduled_comparison_needs(small_site, settings):
    settings.WEBAUDIT_CRAWLS_KEPT = 1
    older = Crawl.objects.create(site=small_site, status="finished")
    previous = Crawl.objects.create(site=small_site, status="finished")
    failed = Crawl.objects.create(site=small_site, status="failed")
    assert crawls_prune(site=small_site) == [older.pk, previous.pk]  # no schedule: one kept, a failed one

    older = Crawl.objects.create(site=small_site, status="finished")
    previous = Crawl.objects.create(site=small_site, status="finished")
    newest = Crawl.objects.create(site=small_site, status="finished")
    schedule_save(site=small_site, frequency="daily", hour=3, minute=0, now=at(0, 0))
    assert crawls_prune(site=small_site) == sorted([older.pk, failed.pk])
    assert set(Crawl.objects.filter(site=small_site).values_list("pk", flat=True)) == {previous.pk, newest.pk}
