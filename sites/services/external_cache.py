"""External link verdicts reused across crawls of one owner's sites for a while, as lychee's --cache does.

A crawl checks each external target once (its Page row is unique per crawl). What it found is also kept per owner
in ExternalCheck; a later crawl of any of the owner's sites takes a target's verdict from there, without a request,
while it is younger than the site's `external_cache_hours` (WEBAUDIT_EXTERNAL_CACHE_HOURS, a day by default), and
the page records when that verdict was checked (Page.verdict_cached_at), so the report can say which verdicts came
from the cache and how old they are. A failing verdict (timeout, 5xx, 429) is not kept: whether the target is dead
is decided by strikes spaced in time (checks.services.url_health), which a cached answer would skip.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection

from sites.models import FETCH_FOUND_FIELDS, VERDICT_FIELDS, ExternalCheck, Verdict
from sites.services.columns import ColumnValues

# The page fields a check found, copied to the page of a crawl that reuses it.
CACHED_FIELDS = (*FETCH_FOUND_FIELDS, "response_ms", *VERDICT_FIELDS)
# Keys looked up per query: well under SQLite's limit on a statement's parameters.
KEY_SLICE = 900


@dataclass(frozen=True)
class CachedVerdict:
    fields: dict
    checked_at: datetime


def external_cache_lookup(
    *, owner_id: int, url_keys: list[str], max_age_hours: float, now: datetime
) -> dict[str, CachedVerdict]:
    """The owner's kept verdicts for these URL keys that are younger than `max_age_hours`, by URL key."""
    if max_age_hours <= 0 or not url_keys:
        return {}
    oldest = now - timedelta(hours=max_age_hours)
    found: dict[str, CachedVerdict] = {}
    for start in range(0, len(url_keys), KEY_SLICE):
        rows = ExternalCheck.objects.filter(
            owner_id=owner_id, url_key__in=url_keys[start : start + KEY_SLICE], checked_at__gte=oldest
        ).values_list("url_key", "fields", "checked_at")
        found.update({key: CachedVerdict(fields, checked_at) for key, fields, checked_at in rows})
    return found


def external_cache_keepable(fields: dict) -> bool:
    """Whether a checked target's page fields may be reused: any final verdict, never a failing one."""
    return bool(fields.get("verdict")) and fields["verdict"] != Verdict.FAILING


def external_cache_store(*, owner_id: int, checked: list[tuple[str, str, dict]], now: datetime) -> int:
    """Keep (url_key, url, page fields) of targets this crawl checked, replacing older checks; return how many."""
    rows = {
        key: (url, {name: fields.get(name) for name in CACHED_FIELDS})
        for key, url, fields in checked
        if external_cache_keepable(fields)
    }
    if rows:
        _upsert(owner_id, rows, now)
    return len(rows)


def _upsert(owner_id: int, rows: dict[str, tuple[str, dict]], now: datetime) -> None:
    """One INSERT ... ON CONFLICT for every row (SQLite and PostgreSQL say it alike). bulk_create's model objects
    and per-field conversions cost 50-70 ms a batch of 300 targets, on the crawl's recording thread (issue 22)."""
    meta, quote = ExternalCheck._meta, connection.ops.quote_name
    names = ("owner", "url_key", "url", "checked_at", "fields")
    columns = [quote(meta.get_field(name).column) for name in names]
    updated = ", ".join(f"{column} = excluded.{column}" for column in columns[2:])
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT ({columns[0]}, {columns[1]}) DO UPDATE SET {updated}"
    )
    with connection.cursor() as cursor:
        checked_at = ColumnValues(meta.get_field("checked_at"), cursor.db)(now)
        fields = ColumnValues(meta.get_field("fields"), cursor.db)
        cursor.executemany(
            sql, [(owner_id, key, url, checked_at, fields(values)) for key, (url, values) in rows.items()]
        )


def external_cache_clear(*, owner_id: int) -> int:
    """Forget every verdict kept for the owner (their next crawls check every target); return how many."""
    deleted, _ = ExternalCheck.objects.filter(owner_id=owner_id).delete()
    return deleted
