"""Cron expressions of schedules: parsed by Celery's own crontab parser, bounded, and stepped forward in UTC.

Five fields, minute hour day-of-month month day-of-week (0 or 7 = Sunday, names allowed), as crontab(5). A schedule
re-crawls a whole site, so an expression must name one minute of the hour: at most one crawl an hour.
Day-of-month and day-of-week, when both are restricted, must both match (Celery's reading, not Vixie cron's OR).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from celery.schedules import ParseException, crontab_parser

MAX_EXPRESSION_LENGTH = 100
# How far ahead the next run is looked for: an expression that never matches in five years (31 February) is
# refused rather than searched for ever.
HORIZON_DAYS = 5 * 366


class CronError(ValueError):
    """An expression that is not a schedule webaudit runs; the message is for the user."""


@dataclass(frozen=True)
class Cron:
    minutes: frozenset[int]
    hours: frozenset[int]
    days_of_month: frozenset[int]
    months: frozenset[int]
    days_of_week: frozenset[int]  # 0 = Sunday
    text: str

    def matches_day(self, day: datetime) -> bool:
        return (
            day.month in self.months
            and day.day in self.days_of_month
            and (day.weekday() + 1) % 7 in self.days_of_week
        )

    def next_after(self, moment: datetime) -> datetime:
        """The first time strictly after `moment` (aware, UTC) that the expression names."""
        start = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.replace(hour=0, minute=0)
        for _ in range(HORIZON_DAYS):
            if self.matches_day(day):
                for hour in sorted(self.hours):
                    for minute in sorted(self.minutes):
                        candidate = day.replace(hour=hour, minute=minute)
                        if candidate >= start:
                            return candidate
            day += timedelta(days=1)
        raise CronError(f"{self.text!r} names no time in the next five years")


def cron_parse(text: str) -> Cron:
    """Parse and bound a five-field cron expression; CronError says what is wrong."""
    text = " ".join((text or "").split())
    if not text:
        raise CronError("a cron expression is needed (five fields: minute hour day month weekday)")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise CronError(f"a cron expression is at most {MAX_EXPRESSION_LENGTH} characters")
    fields = text.split(" ")
    if len(fields) != 5:
        raise CronError(f"{text!r} has {len(fields)} fields; cron takes five: minute hour day month weekday")
    parsed = []
    for value, (name, maximum, minimum) in zip(
        fields,
        (("minute", 60, 0), ("hour", 24, 0), ("day of month", 31, 1), ("month", 12, 1), ("weekday", 7, 0)),
        strict=True,
    ):
        try:
            numbers = crontab_parser(maximum, minimum).parse(value.lower())
        except (ParseException, ValueError, KeyError, IndexError) as exc:
            raise CronError(f"{name} field {value!r}: {exc}") from None
        if name == "weekday":
            numbers = {number % 7 for number in numbers}
        parsed.append(frozenset(numbers))
    if len(parsed[0]) != 1:
        raise CronError("the minute field must be one minute (e.g. 15): a schedule runs at most once an hour")
    cron = Cron(*parsed, text=text)
    cron.next_after(datetime(2000, 1, 1, tzinfo=UTC))  # refuses an expression that never matches
    return cron
