"""Publish an MWIM site: its extended sitemap entries (served by mwim.views), and the whole set exported to a
folder for the site's own host."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from django.urls import reverse

from mwim import sitemap
from mwim.ce import CEFormatError, fingerprint_of
from mwim.models import ContentExtractFile, MwimSite
from mwim.services.extracts import EXTRACT_NAME, pages_listable
from mwim.services.notify import indexnow_key_file
from mwim.sitemap import SitemapEntry, gzipped, sitemap_files
from sites.models import Crawl, PageExtract, Site, url_key
from sites.services.extracts import page_extracts_backfill


def sitemap_entries(*, mwim_site: MwimSite, base_url: str) -> list[SitemapEntry]:
    """The served sitemap's entries: every listed CE file of the site, its ce:loc under `base_url`."""
    rows = ContentExtractFile.objects.filter(mwim_site=mwim_site, listed=True).order_by("url")
    return [
        SitemapEntry(
            loc=url,
            lastmod=updated_at,
            ce_loc=base_url + reverse("mwim:ce", args=[mwim_site.site_id, key]),
            ce_lastupd=updated_at,
            fingerprint=fingerprint,
        )
        for url, key, fingerprint, updated_at in rows.values_list(
            "url", "url_key", "fingerprint", "updated_at"
        )
    ]


def site_sitemap_files(*, mwim_site: MwimSite, base_url: str) -> dict[str, bytes]:
    entries = sitemap_entries(mwim_site=mwim_site, base_url=base_url)
    return sitemap_files(
        entries,
        part_url=lambda n: base_url + reverse("mwim:sitemap-part", args=[mwim_site.site_id, n]),
        max_urls=sitemap.MAX_URLS,  # read now, not at import: a test lowers it
    )


def write_atomically(path: Path, data: bytes) -> None:
    """The whole file or none of it: written beside, then renamed over the old one."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def mwim_export(*, site: Site, folder: Path, base_url: str | None = None) -> dict:
    """Write the site's sitemap (or index and parts, each also gzipped), its CE files under ce/, and the
    IndexNow key file, from its latest finished crawl, into `folder`, to be published at `base_url` (default:
    the site's root). Return a summary."""
    crawl = (
        Crawl.objects.filter(site=site, status=Crawl.Status.FINISHED).order_by("-finished_at", "-pk").first()
    )
    if crawl is None:
        raise LookupError(f"site #{site.pk} has no finished crawl to export")
    parts = urlsplit(site.url)
    base_url = (base_url or f"{parts.scheme}://{parts.netloc}/").rstrip("/") + "/"
    page_extracts_backfill(crawl=crawl, name=EXTRACT_NAME)
    mwim_site = MwimSite.objects.filter(site=site).first()
    known = {}
    if mwim_site is not None:
        known = dict(
            ContentExtractFile.objects.filter(mwim_site=mwim_site).values_list("fingerprint", "updated_at")
        )
    (folder / "ce").mkdir(parents=True, exist_ok=True)
    entries, skipped, ce_bytes = [], 0, 0
    pages = pages_listable(crawl).order_by("url").values_list("pk", "url", "fetched_at")
    for page_id, url, fetched_at in pages.iterator(chunk_size=500):
        data = bytes(
            PageExtract.objects.filter(page_id=page_id, name=EXTRACT_NAME)
            .values_list("data", flat=True)
            .first()
            or b""
        )
        try:
            fingerprint = fingerprint_of(data)
        except CEFormatError:
            skipped += 1
            continue
        key = url_key(url)
        write_atomically(folder / "ce" / f"{key}.ce", data)
        ce_bytes += len(data)
        changed = known.get(fingerprint) or fetched_at or crawl.finished_at
        entries.append(SitemapEntry(url, changed, f"{base_url}ce/{key}.ce", changed, fingerprint))
    files = sitemap_files(entries, part_url=lambda n: f"{base_url}sitemap-{n}.xml")
    for name, data in files.items():
        write_atomically(folder / name, data)
        write_atomically(folder / (name + ".gz"), gzipped(data))
    summary = {
        "site": site.pk, "crawl": crawl.pk, "folder": str(folder), "base_url": base_url, "pages": len(entries),
        "skipped": skipped, "ce_bytes": ce_bytes, "sitemaps": sorted(files),
    }  # fmt: skip
    if mwim_site is not None:
        where, key = indexnow_key_file(mwim_site)
        write_atomically(folder / f"{key}.txt", key.encode())
        summary["indexnow_key_file"] = f"{key}.txt"
    return summary
