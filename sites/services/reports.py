"""A crawl's report as plain data: the JSON the CLI writes and the dashboard offers, and its CSV tables."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, QuerySet
from django.utils.module_loading import import_string

from sites import models
from sites.models import BROKEN_VERDICTS, NOT_CHECKED_KINDS, Crawl, Link, Page, Verdict
from sites.services.dashboard import PageFilter, report_pages

# A page's verdict as the reports give it: what was judged, and its strikes while it was failing.
VERDICT_FIELDS = (*models.VERDICT_FIELDS, "strikes", "failing_since")
PAGE_FIELDS = VERDICT_FIELDS + (
    "id",
    "url",
    "state",
    "status_code",
    "final_url",
    "redirects",
    "title",
    "depth",
    "size",
    "response_ms",
    "content_type",
    "is_internal",
    "error_kind",
    "fetch_error",
    "noindex",
    "nofollow",
    "canonical_url",
    "fetched_at",
    "verdict_cached_at",
)
CSV_PAGE_COLUMNS = (
    "url",
    "status",
    "final_url",
    "redirects",
    "title",
    "depth",
    "size",
    "response_ms",
    "content_type",
    "internal",
    "error",
    "verdict",
    "reason",
    "checked_at",
    "from_cache",
)
CSV_LINK_COLUMNS = ("source", "target", "text", "tag", "internal", "status", "error", "verdict", "reason")


def page_as_report(values: dict) -> dict:
    return {
        "url": values["url"],
        "status": values["status_code"],
        "final_url": values["final_url"] or None,
        "redirects": values["redirects"],
        "title": values["title"],
        "depth": values["depth"],
        "size": values["size"],
        "response_ms": values["response_ms"],
        "content_type": values["content_type"],
        "internal": values["is_internal"],
        "error": values["fetch_error"] or None,
        "error_kind": values["error_kind"] or None,
        "fetched": values["state"] == Page.State.DONE,
        "noindex": values["noindex"],
        "nofollow": values["nofollow"],
        "canonical": values["canonical_url"] or None,
        **verdict_as_report(values),
        **checked_as_report(values),
    }


def checked_as_report(values: dict) -> dict:
    """When the page's verdict was checked, and whether it was reused from an earlier crawl's check of the same
    owner (an external target; sites/services/external_cache.py) and how old it was then."""
    fetched_at, cached_at = values["fetched_at"], values["verdict_cached_at"]
    checked_at = cached_at or fetched_at
    return {
        "checked_at": checked_at.isoformat() if checked_at else None,
        "from_cache": cached_at is not None,
        "cache_age_seconds": round((fetched_at - cached_at).total_seconds())
        if cached_at is not None and fetched_at is not None
        else None,
    }


def verdict_as_report(values: dict, prefix: str = "") -> dict:
    """The dead / soft-404 verdict of a page (or of a link's target, with prefix "target__")."""
    failing_since = values[prefix + "failing_since"]
    return {
        "verdict": values[prefix + "verdict"] or None,
        "reason": values[prefix + "verdict_reason"] or None,
        "soft404_probability": values[prefix + "soft404_probability"],
        "probe": values[prefix + "probe"],
        "strikes": values[prefix + "strikes"],
        "failing_since": failing_since.isoformat() if failing_since else None,
    }


def report_page_extensions() -> list:
    """The functions of WEBAUDIT_REPORT_PAGE_EXTENSIONS: analyses (decay...) that add columns to every page of the
    report without this module importing them. Each is `(crawl, page_ids=None) -> {page_id: {column: value}}`
    (every page, or those of page_ids), names its columns in its `columns` attribute and may give a
    `headings` dict {column: (heading, description)} for the dashboard; a page it says nothing of gets None."""
    return [import_string(path.replace(":", ".")) for path in settings.WEBAUDIT_REPORT_PAGE_EXTENSIONS]


def csv_page_columns() -> tuple[str, ...]:
    return CSV_PAGE_COLUMNS + tuple(
        column for extension in report_page_extensions() for column in extension.columns
    )


@dataclass(frozen=True)
class ExtensionColumn:
    name: str
    heading: str
    description: str


def page_extension_columns(crawl: Crawl, pages: list[Page]) -> list[ExtensionColumn]:
    """The extensions' columns for one page of the dashboard's table: sets `extension_values` (in column order)
    on each page and returns the columns, or [] when no extension has a value for any of these pages (no decay
    job has run), so that the table shows no empty columns."""
    columns: list[ExtensionColumn] = []
    values: dict[int, list] = {page.pk: [] for page in pages}
    for extension in report_page_extensions():
        found = extension(crawl, page_ids=list(values))
        if not found:
            continue
        headings = getattr(extension, "headings", {})
        for column in extension.columns:
            heading, description = headings.get(column, (column.replace("_", " "), ""))
            columns.append(ExtensionColumn(column, heading, description))
            for page_id, row in values.items():
                row.append(found.get(page_id, {}).get(column))
    for page in pages:
        page.extension_values = values[page.pk] if columns else []
    return columns


def iter_report_pages(crawl: Crawl, page_filter: PageFilter | None = None) -> Iterator[dict]:
    """The crawl's pages as the report gives them, shallowest first: every one, or those the page table shows
    under `page_filter` (all of them, not one table page)."""
    extensions = [(extension.columns, extension(crawl)) for extension in report_page_extensions()]
    pages = report_pages(crawl=crawl, page_filter=page_filter or PageFilter()).values(*PAGE_FIELDS)
    for values in pages.iterator(chunk_size=2000):
        page = page_as_report(values)
        for columns, extra in extensions:
            found = extra.get(values["id"], {})
            page.update({column: found.get(column) for column in columns})
        yield page


# Which links a report carries: every one (the default), only those whose target is broken, or none (a
# 100,000-page crawl's report is 757 MB with all of its links, nearly all of it links).
LINK_CHOICES = ("all", "broken", "none")


def report_links(crawl: Crawl, links: str = "all") -> QuerySet:
    chosen = Link.objects.filter(crawl=crawl)
    if links == "broken":
        chosen = chosen.filter(target__state=Page.State.DONE, target__verdict__in=BROKEN_VERDICTS).exclude(
            target__error_kind__in=NOT_CHECKED_KINDS
        )
    elif links == "none":
        chosen = chosen.none()
    return chosen.order_by("id").values(
        *(f"target__{name}" for name in VERDICT_FIELDS),
        "source__url",
        "target_url",
        "text",
        "tag",
        "is_internal",
        "target__status_code",
        "target__fetch_error",
        "target__state",
        "target__error_kind",
        "target__verdict_cached_at",
    )


def link_as_report(values: dict) -> dict:
    done = values["target__state"] == Page.State.DONE
    # Checked: the target was asked (one the address guard refused never was: neither broken nor fine, its error
    # says why).
    checked = done and values["target__error_kind"] not in NOT_CHECKED_KINDS
    return {
        "source": values["source__url"],
        "target": values["target_url"],
        "text": values["text"],
        "tag": values["tag"],
        "internal": values["is_internal"],
        "status": values["target__status_code"] if done else None,
        "error": (values["target__fetch_error"] or None) if done else None,
        "checked": checked,
        **verdict_as_report(values, prefix="target__"),
        # The target's verdict was reused from an earlier crawl's check (external_cache.py), not checked now.
        "from_cache": checked and values["target__verdict_cached_at"] is not None,
        # Broken: the target is dead, failing or a soft-404 (a page that answers but does not exist).
        "broken": checked and values["target__verdict"] in BROKEN_VERDICTS,
    }


def iter_report_links(crawl: Crawl, links: str = "all") -> Iterator[dict]:
    for values in report_links(crawl, links).iterator(chunk_size=5000):
        yield link_as_report(values)


def verdict_counts(crawl: Crawl) -> dict[str, int]:
    """Pages of the crawl (external targets included) by verdict: ok, dead, soft404, failing."""
    rows = Page.objects.filter(crawl=crawl).exclude(verdict="").values_list("verdict").annotate(n=Count("id"))
    counts = {verdict.value: 0 for verdict in Verdict}
    counts.update(dict(rows))
    return counts


def crawl_summary(crawl: Crawl) -> dict:
    return {
        "id": crawl.pk,
        "status": crawl.status,
        "error": crawl.error or None,
        "started_at": crawl.started_at.isoformat() if crawl.started_at else None,
        "finished_at": crawl.finished_at.isoformat() if crawl.finished_at else None,
        # pages_done and pages_queued count the external link targets too (as ever: pipelines read them);
        # site_pages_done and site_pages_queued are the site's own pages, what the dashboard shows.
        "pages_done": crawl.pages_done,
        "pages_queued": crawl.pages_queued,
        "site_pages_done": crawl.site_pages_done,
        "site_pages_queued": crawl.site_pages_queued,
        "pages_failed": crawl.pages_failed,
        "links_found": crawl.links_found,
        "requests": crawl.requests_made,
        "requests_per_page": round(crawl.requests_per_page, 3),
        "external": {
            "admitted": crawl.external_admitted,
            "done": crawl.external_done,
            "left": crawl.external_left,
            "from_cache": crawl.external_cached,
            "per_second": round(crawl.external_rate, 2) if crawl.external_rate is not None else None,
        },
        "bytes_received": crawl.bytes_received,
        "not_modified": crawl.not_modified,
        "baseline": crawl.baseline_id,
        "verdicts": verdict_counts(crawl),
        # Of those, targets the address guard refused: stored "dead" (nobody can reach them from here), never
        # asked, so not known to be broken (the overview's "not checked").
        "not_checked": Page.objects.filter(crawl=crawl, error_kind__in=NOT_CHECKED_KINDS).count(),
        "settings": {key: value for key, value in crawl.settings.items() if key != "allowed_networks"},
    }


def crawl_report(crawl: Crawl) -> dict:
    """The whole report: {"site", "crawl", "pages", "links"}; later checks add their verdicts to it."""
    return json.loads("".join(iter_report_json(crawl)))


def iter_report_json(crawl: Crawl, links: str = "all") -> Iterator[str]:
    """The report of `crawl_report` as JSON text in pieces, a page or link at a time, for any size of crawl;
    `links` (LINK_CHOICES) says which links it lists, and the report says which under crawl.links."""
    if links not in LINK_CHOICES:
        raise ValueError(f"links must be one of {', '.join(LINK_CHOICES)}, not {links!r}")
    head = {
        "site": {"id": crawl.site_id, "url": crawl.site.url, "name": crawl.site.name},
        "crawl": {**crawl_summary(crawl), "links": links},
    }
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "pages": ['
    for section, rows in (("pages", iter_report_pages(crawl)), ("links", iter_report_links(crawl, links))):
        if section == "links":
            yield '], "links": ['
        separator = "\n"
        for row in rows:
            yield separator + json.dumps(row, ensure_ascii=False)
            separator = ",\n"
    yield "]}\n"


def _csv_value(value) -> str:
    if isinstance(value, list):
        return " -> ".join(f"{hop['status']} {hop['location']}" for hop in value)
    text = "" if value is None else str(value)
    # A cell starting with = + - @ is a formula to spreadsheets; page titles come from strangers' sites.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def iter_csv_rows(rows: Iterator[dict], columns: tuple[str, ...]) -> Iterator[str]:
    """CSV text line by line (streamed to the browser), header first."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    yield buffer.getvalue()
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([_csv_value(row.get(column)) for column in columns])
        yield buffer.getvalue()
