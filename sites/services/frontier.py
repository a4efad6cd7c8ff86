"""The crawl frontier kept in the database: seed it, claim batches, record fetches, admit discovered URLs.

Every URL of a crawl is one Page row, unique per crawl, so no page is ever fetched twice. A batch is claimed
with a token; a worker that dies leaves its claim to go stale after the lease, and another worker claims it again.
A result is written only while its claim still holds, so a slow worker cannot write over a newer claim.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import uuid
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from functools import partial
from itertools import groupby
from typing import NamedTuple

from django.db import connection, transaction
from django.db.models import DateTimeField, F, Max, Min, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from sites.crawler.config import CrawlConfig
from sites.crawler.fetching import PageOutcome, Validators
from sites.crawler.parse import ExtractedLink, ParsedPage
from sites.crawler.urls import CrawlScope
from sites.models import (
    FETCH_FOUND_FIELDS,
    VERDICT_FIELDS,
    Crawl,
    Link,
    Page,
    PageBody,
    PageExtract,
    counts_as_broken,
    page_key,
)
from sites.services.columns import ColumnValues
from sites.services.external_cache import external_cache_store
from sites.services.soft404 import probes_save, url_health_clear, url_health_record

# SQLite refuses statements with more than 32766 parameters; keys are looked up in slices well below that.
KEY_SLICE = 900
# Link rows per INSERT on SQLite (8 parameters each; it allows 32766 a statement). An executemany gives up and
# re-takes the GIL for every row, which the parsing threads make costly: 165k rows took 1.1 s alone and 14 s
# beside two busy threads, against 7 s in 500-row statements (docs/benchmarks.md).
LINK_ROWS_PER_INSERT = 500


@dataclass(frozen=True)
class FrontierStatus:
    ready: bool
    finished: bool
    wait_seconds: float


@dataclass
class RecordStats:
    pages: int = 0
    failed: int = 0
    admitted: int = 0
    links: int = 0
    requests: int = 0
    external: int = 0  # external targets given a verdict
    external_cached: int = 0  # of them, reused from the owner's cache
    bytes_received: int = 0
    not_modified: int = 0


def frontier_seed(*, crawl: Crawl, url: str) -> Page:
    page, _ = Page.objects.get_or_create(
        crawl=crawl, url_key=page_key(url), defaults={"url": url, "depth": 0, "is_internal": True}
    )
    return page


def frontier_claim(
    *, crawl: Crawl, size: int, lease_seconds: float, token: uuid.UUID | None = None
) -> tuple[uuid.UUID, list[Page]]:
    """Claim up to `size` URLs, shallowest first (breadth-first, so a page's depth is its shortest path), under a
    new claim token or `token` (adding to a batch claimed under it).

    Two statements, each walking the (crawl, state, depth, id) index from its start: claims gone stale first
    (their worker died), then queued pages. One query with an OR of both made SQLite sort every queued page of
    the crawl for each batch, a cost that grew with the crawl (docs/benchmarks.md, "Generated sites"). Each is an
    UPDATE … RETURNING of the rows it claims: a statement costs a recrawl more than its work (the fetch threads
    hold the interpreter while it waits on the database), and three a claim were a tenth of a recrawl."""
    token, now = token or uuid.uuid4(), timezone.now()
    stale = now - timedelta(seconds=lease_seconds)
    pages: list[Page] = []
    with transaction.atomic():
        for claimable in (
            Page.objects.filter(crawl=crawl, state=Page.State.CLAIMED, claimed_at__lt=stale),
            Page.objects.filter(crawl=crawl, state=Page.State.QUEUED).filter(
                Q(not_before__isnull=True) | Q(not_before__lte=now)
            ),
        ):
            pages += _claim_rows(claimable, size - len(pages), token, now)
            if len(pages) >= size:
                break
    pages.sort(key=lambda page: (page.depth, page.pk))
    return token, pages


CLAIMED_FIELDS = ("id", "url", "url_key", "depth", "is_internal", "attempts")


def _claim_rows(claimable, size: int, token: uuid.UUID, now) -> list[Page]:
    """Claim the first `size` rows of `claimable` (by depth, then id) in one statement; the pages claimed."""
    candidates = claimable.order_by("depth", "id")
    if connection.features.has_select_for_update_skip_locked:
        candidates = candidates.select_for_update(skip_locked=True)
    select, params = candidates.values("id")[:size].query.sql_with_params()
    field = Page._meta.get_field
    table, quote = Page._meta.db_table, connection.ops.quote_name
    sql = (
        f"UPDATE {table} SET state = %s, claim_token = %s, claimed_at = %s WHERE id IN ({select}) "
        f"RETURNING {', '.join(quote(field(name).column) for name in CLAIMED_FIELDS)}"
    )
    values = [
        Page.State.CLAIMED,
        field("claim_token").get_db_prep_save(token, connection),
        field("claimed_at").get_db_prep_save(now, connection),
        *params,
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        rows = cursor.fetchall()
    return [
        Page.from_db(connection.alias, CLAIMED_FIELDS, (pk, url, key, depth, bool(internal), attempts))
        for pk, url, key, depth, internal, attempts in rows
    ]


def frontier_validators(*, crawl: Crawl, pages: list[Page]) -> dict[int, Validators]:
    """The baseline's validators of each claimed page that can be asked for conditionally, by page id: a page
    the baseline fetched with a 200 straight away (no redirect, no error) and an ETag or Last-Modified."""
    if not crawl.baseline_id or not pages:
        return {}
    by_key = {page.url_key: page.pk for page in pages}
    rows = Page.objects.filter(
        crawl_id=crawl.baseline_id, url_key__in=list(by_key), state=Page.State.DONE, status_code=200
    ).exclude(etag="", last_modified="")
    found = {}
    for baseline_id, key, etag, last_modified, redirects, error_kind in rows.values_list(
        "id", "url_key", "etag", "last_modified", "redirects", "error_kind"
    ):
        if not redirects and not error_kind:
            found[by_key[key]] = Validators(baseline_id, etag, last_modified)
    return found


def frontier_renew(*, crawl_id: int, tokens: list[uuid.UUID]) -> int:
    """Renew the claims of batches a live step is still fetching, so that only a dead step's claims go stale."""
    if not tokens:
        return 0
    return Page.objects.filter(crawl_id=crawl_id, state=Page.State.CLAIMED, claim_token__in=tokens).update(
        claimed_at=timezone.now()
    )


def frontier_status(*, crawl: Crawl, lease_seconds: float) -> FrontierStatus:
    """Whether anything is left, and how long to wait before asking again when nothing is claimable now."""
    now = timezone.now()
    # state IN (...) rather than "not done": the frontier index then reads the pending pages only.
    pending = Page.objects.filter(crawl=crawl, state__in=(Page.State.QUEUED, Page.State.CLAIMED))
    summary = pending.aggregate(
        next_retry=Min("not_before", filter=Q(state=Page.State.QUEUED)),
        last_claim=Max("claimed_at", filter=Q(state=Page.State.CLAIMED)),
    )
    if not pending.exists():
        return FrontierStatus(ready=False, finished=True, wait_seconds=0.0)
    waits = []
    if summary["next_retry"]:
        waits.append((summary["next_retry"] - now).total_seconds())
    if summary["last_claim"]:
        # Another worker is busy with a batch: look again soon, since it will add what it discovers.
        until_stale = (summary["last_claim"] + timedelta(seconds=lease_seconds) - now).total_seconds()
        waits.append(min(2.0, until_stale))
    wait = max(0.0, min(waits)) if waits else 0.0
    return FrontierStatus(ready=wait == 0.0, finished=False, wait_seconds=wait)


# What a page that was not fetched records: every page of a batch writes the same fields in one statement.
NOT_FETCHED = {
    "status_code": None,
    "final_url": "",
    "redirects": [],
    "content_type": "",
    "size": None,
    "content_hash": "",
    "response_ms": None,
    "title": "",
    "canonical_url": "",
    "noindex": False,
    "nofollow": False,
    "verdict": "",
    "verdict_reason": "",
    "soft404_probability": None,
    "probe": None,
    "strikes": 0,
    "failing_since": None,
    "verdict_cached_at": None,
}
VERDICT_DEFAULTS = {
    key: NOT_FETCHED[key]
    for key in ("verdict", "verdict_reason", "soft404_probability", "probe", "strikes", "failing_since")
}
RETRY_FIELDS = ["state", "attempts", "claim_token", "claimed_at", "not_before", "status_code"]


# What a page answering 304 takes over from its baseline row: everything its fetch and verdict found.
REUSED_FIELDS = (*FETCH_FOUND_FIELDS, "etag", "last_modified", *VERDICT_FIELDS, "strikes", "failing_since")


@dataclass
class BaselinePage:
    """What a batch needs in Python of a baseline page that answered 304: its verdict (for the crawl's counters),
    whether it said nofollow, and the links of it that may lead to a URL this crawl has not admitted (to admit).
    The rest of its row, its links, body and extracts are copied in the database (_reuse_rows, _copy_links,
    _copy_stored)."""

    verdict: str
    error_kind: str
    nofollow: bool
    parsed: ParsedPage = field(default_factory=ParsedPage)
    keyless: set[str] = field(default_factory=set)  # URLs of links the baseline gave no target


# Pages of a batch's 304s copied from their baseline rows per statement (4 parameters each).
REUSED_PER_STATEMENT = 1000


def _baseline_rows_kept(reused: dict[int, BaselinePage]) -> dict[int, BaselinePage]:
    """Those of the baseline rows read before the batch's transaction that are still there, held there until
    it ends: their row, links, body and extracts are copied inside it, and a baseline deleted in between (its
    crawl deleted by hand) would leave the pages that answered 304 with nothing."""
    if not reused:
        return reused
    present = Page.objects.filter(pk__in=list(reused))
    if connection.features.has_select_for_update:
        present = present.select_for_update()
    kept = set(present.values_list("id", flat=True))
    return {baseline_id: page for baseline_id, page in reused.items() if baseline_id in kept}


def _reused_chunks(copied: list[tuple[int, int]], answered_ms: list[int | None] | None = None):
    """The pages that answered 304 as a common table `reused (ord, page_id, baseline_id, response_ms)` of
    VALUES, in chunks: (the WITH clause, its parameters). One statement a chunk, not one a page: an executemany
    gives up the interpreter for every row, and the fetch threads take it each time."""
    answered_ms = answered_ms or [None] * len(copied)
    for start in range(0, len(copied), REUSED_PER_STATEMENT):
        chunk = copied[start : start + REUSED_PER_STATEMENT]
        # Typed in the first row, for PostgreSQL: a column of NULLs would otherwise be text.
        first = "(CAST(%s AS integer), CAST(%s AS bigint), CAST(%s AS bigint), CAST(%s AS integer))"
        rows = [first] + ["(%s, %s, %s, %s)"] * (len(chunk) - 1)
        params = [
            value
            for ordinal, ((page_id, baseline_id), elapsed) in enumerate(
                zip(chunk, answered_ms[start : start + len(chunk)], strict=True)
            )
            for value in (ordinal, page_id, baseline_id, elapsed)
        ]
        yield f"WITH reused (ord, page_id, baseline_id, response_ms) AS (VALUES {', '.join(rows)}) ", params


def _copy_stored(copied: list[tuple[int, int]], *, extractors: list[str]) -> None:
    """Copy the bodies of the baseline's pages, and the extracts of the extractors this crawl runs (what reading
    the page would have made), to the pages that answered 304, inside the database: bulk_create through Python
    cost a third of a recrawl's recording time on the postgres docs."""
    if not copied:
        return
    body, extract = PageBody._meta.db_table, PageExtract._meta.db_table
    names = ", ".join(["%s"] * len(extractors))
    with connection.cursor() as cursor:
        for reused, params in _reused_chunks(copied):
            cursor.execute(
                f"{reused}INSERT INTO {body} (page_id, data, encoding) SELECT reused.page_id, stored.data, "
                f"stored.encoding FROM reused JOIN {body} AS stored ON stored.page_id = reused.baseline_id",
                params,
            )
            if extractors:
                cursor.execute(
                    f"{reused}INSERT INTO {extract} (page_id, name, data) SELECT reused.page_id, stored.name, "
                    f"stored.data FROM reused JOIN {extract} AS stored ON stored.page_id = reused.baseline_id "
                    f"WHERE stored.name IN ({names})",
                    [*params, *extractors],
                )


def _baseline_pages(crawl: Crawl, outcomes: list[PageOutcome]) -> dict[int, BaselinePage]:
    """The baseline rows the 304 answers of a batch reuse, by baseline page id, read in two queries before the
    batch's transaction: verdict and nofollow, and the links whose target this crawl has not admitted (by the
    baseline's key of it; every link when the baseline had none). Only those can lead to a new URL: on an
    unchanged site they are a few external links a page, not its ~20 (postgres docs) to ~300 (python docs)."""
    ids = [outcome.job.baseline.page_id for outcome in outcomes]
    if not ids:
        return {}
    found = {
        baseline_id: BaselinePage(verdict=verdict, error_kind=error_kind, nofollow=nofollow)
        for baseline_id, verdict, error_kind, nofollow in Page.objects.filter(
            pk__in=ids, crawl_id=crawl.baseline_id
        ).values_list("id", "verdict", "error_kind", "nofollow")
    }
    if not found:
        return found
    page, link = Page._meta.db_table, Link._meta.db_table
    marks = ", ".join(["%s"] * len(found))
    # By source, so the source's index is walked: with the crawl too, SQLite chose the (crawl, id) index and
    # read every link of the baseline for each batch (2.5 s of a 6 s recrawl of the python docs).
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT link.source_id, link.target_url, old.id IS NULL FROM {link} AS link "
            f"LEFT JOIN {page} AS old ON old.id = link.target_id "
            f"LEFT JOIN {page} AS target ON target.crawl_id = %s AND target.url_key = old.url_key "
            f"WHERE link.source_id IN ({marks}) AND target.id IS NULL ORDER BY link.source_id, link.id",
            [crawl.pk, *found],
        )
        for source_id, url, keyless in cursor.fetchall():
            found[source_id].parsed.links.append(ExtractedLink(url, "", ""))
            if keyless:
                found[source_id].keyless.add(url)
    return found


def _page_fields(outcome: PageOutcome, now) -> dict:
    if outcome.cached is not None:
        # A verdict checked by an earlier crawl of the owner's: what it found, and when.
        return {
            **NOT_FETCHED,
            **outcome.cached.fields,
            "fetched_at": now,
            "verdict_cached_at": outcome.cached.checked_at,
        }
    if outcome.robots_failure is not None:
        error_kind, message = outcome.robots_failure
        return {"error_kind": error_kind, "fetch_error": message, "fetched_at": now}
    if outcome.blocked_by_robots or outcome.result is None:
        return {
            "error_kind": "robots",
            "fetch_error": "Disallowed by robots.txt; not fetched.",
            "fetched_at": now,
            "verdict_cached_at": None,
        }
    result = outcome.result
    parsed = outcome.parsed or ParsedPage()
    fetch_error = result.error or (f"Page not read: {parsed.error}" if parsed.error and result.body else "")
    return {
        "status_code": result.status,
        "final_url": result.final_url,
        "redirects": [asdict(hop) for hop in result.redirects],
        "content_type": result.content_type[:200],
        "size": len(result.body) if result.status is not None else None,
        "content_hash": hashlib.sha256(result.body).hexdigest() if result.body else "",
        "response_ms": result.elapsed_ms,
        "title": parsed.title[:1000],
        "canonical_url": parsed.canonical,
        "noindex": outcome.noindex,
        "nofollow": outcome.nofollow,
        "error_kind": result.error_kind,
        "fetch_error": fetch_error,
        "fetched_at": now,
        "verdict_cached_at": None,
        "etag": _validator(result.headers.get("etag", ""), 200),
        "last_modified": _validator(result.headers.get("last-modified", ""), 64),
        "not_modified": False,
        **_verdict_fields(outcome, now),
    }


def _validator(value: str, limit: int) -> str:
    """A validator to send back as it came; one too long for its column is dropped, never cut (a cut ETag
    would never match, and a server might not expect it)."""
    return value if len(value) <= limit else ""


def _verdict_fields(outcome: PageOutcome, now) -> dict:
    judgement = outcome.judgement
    if judgement is None:
        return VERDICT_DEFAULTS
    verdict = judgement.verdict
    fields = {
        "verdict": verdict.verdict,
        "verdict_reason": verdict.reason[:300],
        "soft404_probability": judgement.probability,
        "probe": judgement.probe_evidence(),
        "strikes": 0,
        "failing_since": None,
    }
    if verdict.transient:
        health = url_health_record(url=outcome.job.url, verdict=verdict, now=now)
        fields.update(
            verdict=health.verdict,
            verdict_reason=health.reason[:300],
            strikes=health.strikes,
            failing_since=health.failing_since,
        )
    return fields


def frontier_record(
    *,
    crawl: Crawl,
    scope: CrawlScope,
    config: CrawlConfig,
    tokens: list[uuid.UUID],
    pages: list[Page],
    outcomes: list[PageOutcome],
    extra_requests: int = 0,
) -> RecordStats:
    """Write a fetched batch: page results, bodies, links, the URLs they lead to and the crawl's counters, in
    one transaction (so a worker killed at any point leaves counters that match the pages)."""
    stats, now = RecordStats(), timezone.now()
    by_id = {page.pk: page for page in pages}
    discovered: list[Discovered] = []
    bodies: list[PageBody] = []
    extracts: list[PageExtract] = []
    done: list[tuple[int, dict]] = []
    retried: list[Page] = []
    reused = _baseline_pages(crawl, [o for o in outcomes if o.not_modified])
    copied: list[tuple[int, int]] = []  # (page id, baseline page id) of the 304s: their rows carry over
    answered_ms: list[int | None] = []  # and how fast each answered
    checked_external: list[tuple[str, str, dict]] = []  # (url_key, url, fields) to keep for later crawls
    # User patterns and URL keys are worked out before the transaction: nothing a user typed runs while the
    # database's write lock is held (docs/crawling.md, "Scope").
    # The links of pages that answered 304 are their baseline's, judged alike.
    judged = _judge_links(
        scope, [o.parsed for o in outcomes if o.parsed is not None] + [b.parsed for b in reused.values()]
    )
    with transaction.atomic():
        held = Page.objects.filter(pk__in=list(by_id), claim_token__in=tokens, state=Page.State.CLAIMED)
        if connection.features.has_select_for_update:
            held = held.select_for_update()
        mine = set(held.values_list("id", flat=True))
        if not _still_active(crawl):
            # Cancelled (or ended) while the batch was out: nothing more is stored, so the count the user saw
            # when cancelling is the count kept. The crawl's row lock orders this against crawl_cancel.
            return stats
        reused = _baseline_rows_kept(reused)
        for outcome in outcomes:
            stats.requests += outcome.requests
            stats.bytes_received += outcome.bytes_received
            page = by_id[outcome.job.page_id]
            if page.pk not in mine:
                continue  # our claim went stale and another worker took the page over: its result stands
            if outcome.not_modified:
                baseline = reused.get(outcome.job.baseline.page_id)
                if baseline is None:  # the baseline crawl was deleted meanwhile: fetch it again, in full
                    page.state, page.attempts = Page.State.QUEUED, page.attempts + 1
                    page.claim_token = page.claimed_at = page.not_before = None
                    retried.append(page)
                    continue
                stats.pages += 1
                stats.external += not page.is_internal
                stats.not_modified += 1
                stats.failed += counts_as_broken(verdict=baseline.verdict, error_kind=baseline.error_kind)
                copied.append((page.pk, outcome.job.baseline.page_id))
                answered_ms.append(outcome.result.elapsed_ms)
                follow = not baseline.nofollow or not config.fetch.obey_robots
                discovered.append(
                    Discovered(page, baseline.parsed, follow, outcome.job.baseline.page_id, baseline.keyless)
                )
                continue
            if outcome.retry_in is not None:
                page.state, page.attempts = Page.State.QUEUED, page.attempts + 1
                page.claim_token = page.claimed_at = None
                page.not_before = now + timedelta(seconds=outcome.retry_in)
                page.status_code = outcome.result.status
                retried.append(page)
                continue
            fields = _page_fields(outcome, now)
            done.append((page.pk, fields))
            stats.pages += 1
            if not page.is_internal:
                stats.external += 1
                stats.external_cached += outcome.cached is not None
                if outcome.cached is None and outcome.result is not None:
                    checked_external.append((page.url_key, page.url, fields))
            stats.failed += counts_as_broken(
                verdict=fields.get("verdict"), error_kind=fields.get("error_kind")
            )
            if outcome.compressed_body is not None:
                bodies.append(PageBody(page=page, data=outcome.compressed_body, encoding=outcome.encoding))
            extracts += (
                PageExtract(page=page, name=name, data=data) for name, data in outcome.extracts.items()
            )
            if outcome.parsed and outcome.parsed.links:
                discovered.append(
                    Discovered(page, outcome.parsed, not outcome.nofollow or not config.fetch.obey_robots)
                )
        _update_done(done)
        _reuse_rows(copied, answered_ms, now)
        Page.objects.bulk_update(retried, RETRY_FIELDS)
        PageBody.objects.bulk_create(bodies, batch_size=100)
        PageExtract.objects.bulk_create(extracts, batch_size=100)
        _copy_stored(copied, extractors=[name for name, _ in config.extractors])
        probes_save(
            crawl=crawl,
            answers=[o.judgement.probe for o in outcomes if o.judgement and o.judgement.probe_fetched],
        )
        url_health_clear(
            urls=[o.job.url for o in outcomes if o.judgement and not o.judgement.verdict.transient]
        )
        external_cache_store(owner_id=crawl.site.owner_id, checked=checked_external, now=now)
        stats.links, stats.admitted = _admit_and_link(crawl, judged, config, discovered)
        stats.requests += extra_requests
        _count_progress(crawl, stats)
    return stats


def _still_active(crawl: Crawl) -> bool:
    active = Crawl.objects.filter(pk=crawl.pk, status__in=Crawl.ACTIVE)
    if connection.features.has_select_for_update:
        active = active.select_for_update()
    return active.exists()


def _count_progress(crawl: Crawl, stats: RecordStats) -> None:
    """Add a batch to the crawl's counters. Counting the crawl's pages instead (an aggregate over all of them
    for every batch) made each page cost more the bigger the crawl: 40% more at 100,000 pages."""
    external = {}
    if stats.external:
        external = {
            "external_done": F("external_done") + stats.external,
            "external_cached": F("external_cached") + stats.external_cached,
            "external_started_at": Coalesce(
                F("external_started_at"), Value(timezone.now(), output_field=DateTimeField())
            ),
        }
    Crawl.objects.filter(pk=crawl.pk).update(
        **external,
        pages_done=F("pages_done") + stats.pages,
        pages_queued=F("pages_queued") + stats.admitted - stats.pages,
        pages_failed=F("pages_failed") + stats.failed,
        links_found=F("links_found") + stats.links,
        requests_made=F("requests_made") + stats.requests,
        bytes_received=F("bytes_received") + stats.bytes_received,
        not_modified=F("not_modified") + stats.not_modified,
        heartbeat_at=timezone.now(),
    )


def _update_done(done: list[tuple[int, dict]]) -> None:
    """Write a batch's fetched pages with one executemany. An ORM update a page cost ~0.5 ms of Python on SQLite
    and a round trip on PostgreSQL (35% and 58% of the recording thread's time on the postgres docs), and
    bulk_update's CASE statements were slower still: 294 ms a 64-page batch on SQLite against 7 ms."""
    groups: dict[tuple[str, ...], list[tuple[int, dict]]] = {}
    for page_id, values in done:
        groups.setdefault(tuple(sorted(values)), []).append((page_id, values))
    with connection.cursor() as cursor:
        for names, group in groups.items():
            fields = [Page._meta.get_field(name) for name in names]
            assignments = ", ".join(f"{connection.ops.quote_name(field.column)} = %s" for field in fields)
            sql = f"UPDATE {Page._meta.db_table} SET state = %s, claim_token = NULL, {assignments} WHERE id = %s"
            columns = [ColumnValues(field, cursor.db) for field in fields]
            rows = [
                [Page.State.DONE, *(column(values[column.name]) for column in columns), pk]
                for pk, values in group
            ]
            cursor.executemany(sql, rows)


def _reuse_rows(copied: list[tuple[int, int]], answered_ms: list[int | None], now) -> None:
    """Write the pages that answered 304 as their baseline rows (REUSED_FIELDS), copied in the database: reading
    the rows into Python and writing them back cost 1.5 s of a 2.5 s recrawl of the postgres docs."""
    if not copied:
        return
    quote, table = connection.ops.quote_name, Page._meta.db_table
    columns = [quote(Page._meta.get_field(name).column) for name in REUSED_FIELDS]
    assignments = ", ".join(f"{column} = baseline.{column}" for column in columns)
    done, reused = Page.State.DONE, Page._meta.get_field("not_modified").get_db_prep_save(True, connection)
    fetched_at = Page._meta.get_field("fetched_at").get_db_prep_save(now, connection)
    with connection.cursor() as cursor:
        for with_reused, params in _reused_chunks(copied, answered_ms):
            cursor.execute(
                f"{with_reused}UPDATE {table} SET {assignments}, response_ms = reused.response_ms, state = %s, "
                "claim_token = NULL, not_modified = %s, fetched_at = %s "
                f"FROM reused JOIN {table} AS baseline ON baseline.id = reused.baseline_id "
                f"WHERE {table}.id = reused.page_id",
                [*params, done, reused, fetched_at],
            )


# Page ids by key of the crawls this process records, newest used last. A page's id never changes once its URL is
# admitted, and a batch links mostly to URLs earlier batches saw (navigation): looking them all up again cost each
# batch two or three queries of 900 keys. At most this many crawls, and keys a crawl (then emptied and refilled).
IDS_KEPT_CRAWLS = 8
IDS_KEPT_KEYS = 200_000
_page_ids: OrderedDict[tuple, dict[str, int]] = OrderedDict()
_page_ids_lock = threading.Lock()


def _remembered_ids(crawl: Crawl) -> dict[str, int]:
    # With its creation time: a crawl id handed out again (a rolled-back transaction's, on SQLite) is another crawl.
    crawl_key = (connection.alias, crawl.pk, crawl.created_at)
    with _page_ids_lock:
        ids = _page_ids.pop(crawl_key, None)
        if ids is None or len(ids) > IDS_KEPT_KEYS:
            ids = {}
        _page_ids[crawl_key] = ids
        while len(_page_ids) > IDS_KEPT_CRAWLS:
            _page_ids.popitem(last=False)
        return ids


def _known_ids(crawl: Crawl, keys: set[str]) -> dict[str, int]:
    """The ids of the crawl's pages among `keys`: remembered, else looked up (and remembered)."""
    remembered = _remembered_ids(crawl)
    found = {key: remembered[key] for key in keys if key in remembered}
    missing = sorted(keys - found.keys())
    if missing:
        looked_up = _existing_ids(crawl, missing)
        remembered.update(looked_up)  # committed rows only: this batch has inserted none yet
        found.update(looked_up)
    return found


def _existing_ids(crawl: Crawl, keys: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for start in range(0, len(keys), KEY_SLICE):
        chunk = keys[start : start + KEY_SLICE]
        found.update(Page.objects.filter(crawl=crawl, url_key__in=chunk).values_list("url_key", "id"))
    return found


class Discovered(NamedTuple):
    """A page recorded with links: those its reading found, or, for a page that answered 304 (`baseline_id`),
    those of its baseline row that may lead to a URL not admitted yet (its links are copied: _copy_links)."""

    source: Page
    parsed: ParsedPage
    follow: bool
    baseline_id: int | None = None
    keyless: set[str] | None = None  # of a 304: URLs of links its baseline gave no target


@dataclass
class JudgedLinks:
    """What a batch's distinct link URLs are: their page keys, whether on the site, whether in the scope."""

    keys: dict[str, str]
    same_site: dict[str, bool]
    in_scope: dict[str, bool]


def _judge_links(scope: CrawlScope, parsed_pages: list[ParsedPage]) -> JudgedLinks:
    # Pages of one site repeat the same navigation links: judge each distinct URL once a batch, and look up what
    # earlier batches found (page_key and the scope's placement remember).
    distinct = {link.url for parsed in parsed_pages for link in parsed.links}
    placements = {url: scope.placement(url) for url in distinct}
    return JudgedLinks(
        keys={url: page_key(url) for url in distinct},
        same_site={url: placed[0] for url, placed in placements.items()},
        in_scope={url: placed[1] for url, placed in placements.items()},
    )


def _admit_and_link(
    crawl: Crawl, judged: JudgedLinks, config: CrawlConfig, discovered: list[Discovered]
) -> tuple[int, int]:
    """Create frontier rows for new URLs within the limits, then one Link row per link found; return the links
    written and the URLs admitted."""
    if not discovered:
        return 0, 0
    keys, same_site, in_scope = judged.keys, judged.same_site, judged.in_scope
    wanted: dict[str, tuple[str, int, bool]] = {}  # key -> (url, depth, internal)
    for source, parsed, follow, *_ in discovered:
        for link in parsed.links:
            key = keys[link.url]
            if key in wanted:
                continue
            if in_scope[link.url]:
                if follow and source.depth + 1 <= config.max_depth:
                    wanted[key] = (link.url, source.depth + 1, True)
            elif config.check_external and not same_site[link.url]:
                wanted[key] = (link.url, source.depth + 1, False)

    # The crawl's row is locked first, so lanes admit one after another: each sees what the other admitted and
    # the counters below stay exact.
    counted = Crawl.objects.filter(pk=crawl.pk)
    if connection.features.has_select_for_update:
        counted = counted.select_for_update()
    internal_admitted, external_admitted = counted.values_list("internal_admitted", "external_admitted").get()
    all_keys = {keys[link.url] for found in discovered for link in found.parsed.links}
    known = _known_ids(crawl, all_keys)
    fresh = [(key, value) for key, value in wanted.items() if key not in known]
    admitted: list[tuple[str, str, int, bool]] = []  # (key, url, depth, internal)
    if fresh:
        # External checks are capped like pages, so a link farm cannot turn an audit into a web crawl.
        room = {True: config.max_pages - internal_admitted, False: config.max_pages - external_admitted}
        for key, (url, depth, internal) in fresh:
            if room[internal] > 0:
                room[internal] -= 1
                admitted.append((key, url, depth, internal))
        inserted = _insert_pages(crawl, admitted)
        known.update(inserted)
        # Remembered once they are there for good: a batch rolled back leaves no id behind.
        transaction.on_commit(partial(_remembered_ids(crawl).update, inserted))
        internal = sum(page[3] for page in admitted)
        counted.update(
            internal_admitted=F("internal_admitted") + internal,
            external_admitted=F("external_admitted") + len(admitted) - internal,
        )

    # In the order the pages came, as a full crawl writes them (a report lists links by id): runs of pages that
    # answered 304 are copied from the baseline in the database, the others written from what they read.
    written = 0
    for copied, run in groupby(discovered, key=lambda found: found.baseline_id is not None):
        if copied:
            written += _copy_links(crawl, list(run), known, keys)
            continue
        rows = [
            (
                crawl.pk,
                source.pk,
                known.get(keys[link.url]),
                link.url,
                link.text,
                link.tag,
                same_site[link.url],
            )
            + (link.nofollow,)
            for source, parsed, *_ in run
            for link in parsed.links
        ]
        _insert_links(rows)
        written += len(rows)
    return written, len(admitted)


def _copy_links(crawl: Crawl, run: list[Discovered], known: dict[str, int], keys: dict[str, str]) -> int:
    """Copy the links of pages that answered 304 from their baseline rows: the same URL, text, tag, nofollow and
    internal flag (a baseline is a crawl of the same site: crawl_baseline_for), each led to this crawl's page of
    its baseline target's key. A link whose target the baseline never admitted has no key there: those were read
    (_baseline_pages), and get this crawl's page of their URL's key afterwards. Returns the links written.
    Reading each link into Python to write it back cost a quarter of a recrawl of the postgres docs."""
    page, link = Page._meta.db_table, Link._meta.db_table
    columns = "crawl_id, source_id, target_id, target_url, text, tag, is_internal, nofollow"
    written = 0
    with connection.cursor() as cursor:
        for reused, params in _reused_chunks([(found.source.pk, found.baseline_id) for found in run]):
            cursor.execute(
                # WITH after INSERT: Python's sqlite3 counts the rows only of a statement that starts INSERT.
                f"INSERT INTO {link} ({columns}) {reused}SELECT %s, reused.page_id, target.id, stored.target_url, "
                "stored.text, stored.tag, stored.is_internal, stored.nofollow "
                f"FROM reused JOIN {link} AS stored ON stored.source_id = reused.baseline_id "
                f"LEFT JOIN {page} AS old ON old.id = stored.target_id "
                f"LEFT JOIN {page} AS target ON target.crawl_id = %s AND target.url_key = old.url_key "
                "ORDER BY reused.ord, stored.id",
                [*params, crawl.pk, crawl.pk],
            )
            written += cursor.rowcount
        # The links the baseline gave no target (its target never admitted there) to a URL admitted here: few
        # (a crawl now checking the external links its baseline left unchecked), each found by its source.
        late = [
            (known[keys[url]], found.source.pk, url)
            for found in run
            for url in found.keyless
            if keys[url] in known
        ]
        if late:
            cursor.executemany(
                f"UPDATE {link} SET target_id = %s WHERE source_id = %s AND target_url = %s AND target_id IS NULL",
                late,
            )
    return written


def _insert_pages(crawl: Crawl, admitted: list[tuple[str, str, int, bool]]) -> dict[str, int]:
    """Insert frontier rows (key, url, depth, internal), skipping a key another lane inserted meanwhile; return
    the ids of all of them by key. Not by bulk_create: Django prepares each of a page's 36 values one by one
    (1.7 s for the postgres docs' 1,170 pages, 40 ms for the 300 targets of one page of links, on the path
    between fetching that page and fetching its targets). Every other column takes a new page's value, the same
    for all, prepared once a batch."""
    if not admitted:
        return {}
    fields = [field for field in Page._meta.concrete_fields if not field.primary_key]
    blank = Page(crawl=crawl, url="", url_key="", depth=0, is_internal=True)
    template = [field.get_db_prep_save(field.pre_save(blank, True), connection) for field in fields]
    slots = [fields.index(Page._meta.get_field(name)) for name in ("url_key", "url", "depth", "is_internal")]
    rows = []
    for page in admitted:
        row = list(template)
        for slot, value in zip(slots, page, strict=True):
            row[slot] = value
        rows.append(tuple(row))
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    ids = dict(
        _insert_rows(Page._meta.db_table, columns, rows, ignore_conflicts=True, returning="url_key, id")
    )
    missing = [key for key, *_ in admitted if key not in ids]  # inserted by another lane first
    ids.update(_existing_ids(crawl, missing) if missing else {})
    return ids


def _insert_rows(
    table: str, columns: str, rows: list[tuple], *, ignore_conflicts: bool = False, returning: str = ""
) -> list[tuple]:
    """Insert rows in multi-row INSERTs, each under SQLite's 32766-parameter limit; the `returning` columns of
    the rows inserted. On SQLite the statement is written with its own "?" and run on the sqlite3 cursor
    underneath Django's: Django rewrites every "%s" of every statement with a regular expression, 4,000 of them
    a statement, which cost the recording thread a quarter of its time on the python docs."""
    if not rows:
        return []
    per_insert = max(1, min(LINK_ROWS_PER_INSERT, 32766 // len(rows[0])))
    sqlite = connection.vendor == "sqlite"
    mark = "?" if sqlite else "%s"
    row_marks = "(" + ", ".join([mark] * len(rows[0])) + ")"
    verb = "INSERT OR IGNORE INTO" if sqlite and ignore_conflicts else "INSERT INTO"
    conflict = " ON CONFLICT DO NOTHING" if ignore_conflicts and not sqlite else ""
    tail = f" RETURNING {returning}" if returning else ""
    found: list[tuple] = []
    with connection.cursor() as cursor:
        for start in range(0, len(rows), per_insert):
            chunk = rows[start : start + per_insert]
            sql = (
                f"{verb} {table} ({columns}) VALUES " + ", ".join([row_marks] * len(chunk)) + conflict + tail
            )
            params = [value for row in chunk for value in row]
            if sqlite:
                done = sqlite3.Cursor.execute(cursor.cursor, sql, params)
            else:
                done = cursor.execute(sql, params) or cursor
            if returning:
                found += done.fetchall()
    return found


def _insert_links(rows: list[tuple]) -> None:
    """Insert link rows in bulk, without building Link objects: documentation pages carry ~300 links each, and
    bulk_create spent 31 s of a 47 s crawl of the python docs (166k links) building them. PostgreSQL gets COPY;
    SQLite multi-row INSERTs (_insert_rows)."""
    table = Link._meta.db_table
    columns = "crawl_id, source_id, target_id, target_url, text, tag, is_internal, nofollow"
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        return
    _insert_rows(table, columns, rows)
