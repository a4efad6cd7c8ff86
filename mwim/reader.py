"""The search engine's side of MWIM: pull an extended sitemap, download only the Content Extract files that
changed since the previous pull, decode them, and measure the savings against fetching the HTML (the paper's
ΔS, §X). State lives in a folder: `state.json` and `ce/<sha1 of ce:loc>.ce`.

A pull is a crawler like any other, so it fetches through the project's polite fetcher: robots.txt is read and
obeyed, requests to the site are spaced by the delay (or its Crawl-delay), and a 429 or 503 with a Retry-After of
at most RETRY_AFTER_LIMIT is waited out and asked once more."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from mwim.ce import CEFormatError, decode
from mwim.services.publish import write_atomically
from mwim.sitemap import SitemapEntry, SitemapError, sitemap_parse
from sites.http import FetchResult, FetchSettings, PoliteFetcher

STATE_FILE = "state.json"
# Sitemap index files followed per pull; the protocol's own limit on an index is 50,000 parts.
MAX_PARTS = 1000
# The longest Retry-After a pull waits out before asking a URL once more; past it, the URL fails this pull.
RETRY_AFTER_LIMIT = 60.0


class PullError(Exception):
    """The sitemap itself could not be read: nothing was changed in the folder."""


@dataclass
class PullReport:
    sitemap: str
    entries: int = 0
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    downloaded: int = 0
    failed: list[dict] = field(default_factory=list)
    sitemap_bytes: int = 0
    ce_bytes: int = 0  # S_C: the CE files downloaded
    html_bytes: int | None = None  # S_M: the same pages' HTML, when measured
    html_pages: int = 0

    def as_dict(self) -> dict:
        data = dict(self.__dict__)
        if self.html_bytes:
            data["delta_s"] = self.html_bytes - self.ce_bytes
            data["ce_percent_of_html"] = round(100 * self.ce_bytes / self.html_bytes, 2)
            data["savings_percent"] = round(100 - data["ce_percent_of_html"], 2)
        return data


def _same_origin(url: str, origin: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and f"{parts.scheme}://{parts.netloc}" == origin


def _name(ce_loc: str) -> str:
    return hashlib.sha1(ce_loc.encode()).hexdigest() + ".ce"


def _get(polite: PoliteFetcher, url: str) -> FetchResult | None:
    """GET `url` politely, once more after a slow-down answer whose Retry-After is short enough; None when
    robots.txt keeps the pull out of it."""
    if not polite.allowed(url):
        return None
    answer = polite.fetch(url)
    if (
        polite.retry_wait(url, answer, longest=RETRY_AFTER_LIMIT, without_retry_after=None, cap=False)
        is not None
    ):
        answer = polite.fetch(url)  # the host is paused for the wait: this waits it out
    return answer


def _refusal(polite: PoliteFetcher, url: str) -> str:
    """Why robots.txt keeps the pull out of `url`: its rules, or robots.txt itself could not be fetched."""
    failure = polite.robots_failure(url)
    return failure[1] if failure is not None else "disallowed by robots.txt"


def _fetch_sitemaps(polite: PoliteFetcher, url: str, origin: str, report: PullReport) -> list[SitemapEntry]:
    pending, entries, read = [url], [], 0
    while pending:
        current = pending.pop(0)
        read += 1
        if read > MAX_PARTS:
            raise PullError(f"the sitemap index names over {MAX_PARTS} parts")
        answer = _get(polite, current)
        if answer is None:
            raise PullError(f"{current}: {_refusal(polite, current)}")
        if answer.error_kind or answer.status != 200:
            raise PullError(f"{current}: {answer.error or f'HTTP {answer.status}'}")
        report.sitemap_bytes += len(answer.body)
        try:
            parsed = sitemap_parse(answer.body)
        except SitemapError as exc:
            raise PullError(f"{current}: {exc}") from None
        for part in parsed.sitemaps:
            if not _same_origin(part, origin):
                raise PullError(f"{current} points off-site, to {part}")
            pending.append(part)
        entries += parsed.entries
    return entries


def mwim_pull(
    *, sitemap_url: str, folder: Path, settings: FetchSettings, compare_html: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> PullReport:  # fmt: skip
    """Bring `folder` up to date with the sitemap at `sitemap_url`; a CE file that cannot be fetched or decoded
    is reported and its previous copy kept."""
    parts = urlsplit(sitemap_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise PullError(f"{sitemap_url!r} is not an http(s) URL")
    origin = f"{parts.scheme}://{parts.netloc}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ce").mkdir(exist_ok=True)
    state_path = folder / STATE_FILE
    try:
        previous = json.loads(state_path.read_text()) if state_path.exists() else {"entries": {}}
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise PullError(f"{state_path} is not a previous pull's state") from None
    old = previous.get("entries", {})
    report = PullReport(sitemap=sitemap_url)
    with PoliteFetcher(settings) as polite:
        if settings.obey_robots:
            polite.fetch_robots(origin)
        entries = _fetch_sitemaps(polite, sitemap_url, origin, report)
        report.entries = len(entries)
        current: dict[str, dict] = {}
        todo = []
        for entry in entries:
            record = {
                "ce_loc": entry.ce_loc,
                "lastupd": entry.ce_lastupd.isoformat(),
                "fingerprint": entry.fingerprint,
            }
            before = old.get(entry.loc)
            if not _same_origin(entry.ce_loc, origin):
                report.failed.append({"url": entry.loc, "error": f"ce:loc points off-site: {entry.ce_loc}"})
                if before:
                    current[entry.loc] = before
                continue
            if (
                before
                and {k: before.get(k) for k in record} == record
                and (folder / "ce" / _name(entry.ce_loc)).exists()
            ):
                report.unchanged += 1
                current[entry.loc] = before
                continue
            report.new += before is None
            report.changed += before is not None
            todo.append((entry, record, before))
        for done, (entry, record, before) in enumerate(todo, 1):
            problem = _download(polite, entry, folder, report)
            if problem:
                report.failed.append({"url": entry.loc, "error": problem})
                if before:
                    current[entry.loc] = before  # the previous good file stays
            else:
                current[entry.loc] = record
                if compare_html:
                    answer = _get(polite, entry.loc)
                    if answer is not None and answer.status == 200 and not answer.error_kind:
                        report.html_bytes = (report.html_bytes or 0) + len(answer.body)
                        report.html_pages += 1
            if on_progress:
                on_progress(done, len(todo))
    listed = {entry.loc for entry in entries}
    for loc, record in old.items():
        if loc not in listed:
            report.removed += 1
            (folder / "ce" / _name(record["ce_loc"])).unlink(missing_ok=True)
    write_atomically(state_path, json.dumps({"sitemap": sitemap_url, "entries": current}, indent=1).encode())
    return report


def _download(polite: PoliteFetcher, entry: SitemapEntry, folder: Path, report: PullReport) -> str:
    answer = _get(polite, entry.ce_loc)
    if answer is None:
        return _refusal(polite, entry.ce_loc)
    if answer.error_kind or answer.status != 200:
        return answer.error or f"HTTP {answer.status}"
    try:
        extract = decode(answer.body)
    except CEFormatError as exc:
        return str(exc)
    if entry.fingerprint and extract.fingerprint_text != entry.fingerprint:
        return f"the file's fingerprint {extract.fingerprint_text} is not the sitemap's {entry.fingerprint}"
    write_atomically(folder / "ce" / _name(entry.ce_loc), answer.body)
    report.downloaded += 1
    report.ce_bytes += len(answer.body)
    return ""
