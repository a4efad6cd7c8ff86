"""Publish an MWIM site: its extended sitemap entries (served by mwim.views), and the whole set exported to a
folder for the site's own host."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from django.core.cache import cache
from django.urls import reverse

from mwim import sitemap
from mwim.models import ContentExtractFile, MwimSite
from mwim.services.extracts import EXTRACT_NAME, new_extract, pages_listable
from mwim.services.notify import indexnow_key_file
from mwim.sitemap import SitemapEntry, gzipped, sitemap_files
from sites.models import Crawl, PageExtract, Site, url_key


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


# Built sitemaps are kept gzipped in the cache up to this size; a bigger site's sitemap is built per request
# (its ETag still spares the search engines' revalidations).
SITEMAP_CACHE_MAX_BYTES = 16 * 2**20
SITEMAP_CACHE_SECONDS = 3600


def published_sitemap_files(*, mwim_site: MwimSite, base_url: str) -> dict[str, bytes]:
    """The site's served sitemap files, gzipped, built once per publication: a site's sitemap changes only when
    a `ce` job or a push publishes (published_at), so the key holds that instant and the base URL."""
    seed = f"{mwim_site.pk}|{mwim_site.published_at}|{base_url}|{sitemap.MAX_URLS}"
    key = "mwim-sitemap:" + hashlib.sha256(seed.encode()).hexdigest()
    files = cache.get(key)
    if files is None:
        built = site_sitemap_files(mwim_site=mwim_site, base_url=base_url)
        files = {name: gzipped(data) for name, data in built.items()}
        if sum(map(len, files.values())) <= SITEMAP_CACHE_MAX_BYTES:
            cache.set(key, files, timeout=SITEMAP_CACHE_SECONDS)
    return files


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


# What an export writes, and so what it may remove again: anything else in the folder is the operator's.
EXPORTED_CE = re.compile(r"[0-9a-f]{40}\.ce")
EXPORTED_SITEMAP = re.compile(r"sitemap(-index|-[0-9]+)?\.xml(\.gz)?")


def _prune_export(folder: Path, written: set[str]) -> int:
    """Remove the CE files and sitemap parts an earlier export wrote that this one did not (pages gone from the
    site, a sitemap that shrank from an index to one file). Called only once every new file is in place, so a
    failed export never leaves a sitemap pointing at a removed file. Return how many files went."""
    removed = 0
    candidates = [(path, EXPORTED_CE) for path in (folder / "ce").iterdir()]
    candidates += [(path, EXPORTED_SITEMAP) for path in folder.iterdir()]
    for path, pattern in candidates:
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and pattern.fullmatch(path.name) and relative not in written:
            path.unlink()
            removed += 1
    return removed


def _export_extract(mwim_site: MwimSite | None, page_id: int, url: str, content_hash: str):
    """(CE file, when it last changed or None) of a page: the site's current file when it is of this very
    body, else one made now (from the reader's extract or the stored body); (None, None) without a body."""
    fingerprint = f"sha256:{content_hash}"
    if not content_hash:
        return None, None
    if mwim_site is not None:
        row = ContentExtractFile.objects.filter(
            mwim_site=mwim_site, url_key=url_key(url), fingerprint=fingerprint
        ).first()
        if row is not None:
            return bytes(row.data), row.updated_at
    reader_made = PageExtract.objects.filter(page_id=page_id, name=EXTRACT_NAME).values_list(
        "data", flat=True
    )
    data = new_extract(page_id, url, fingerprint, bytes(reader_made[0]) if reader_made else None)
    return data, None


def mwim_export(*, site: Site, folder: Path, base_url: str | None = None) -> dict:
    """Write the site's sitemap (or index and parts, each also gzipped), its CE files under ce/, and the
    IndexNow key file, from its latest finished crawl, into `folder`, to be published at `base_url` (default:
    the site's root); remove what an earlier export wrote that this one did not. Return a summary."""
    # The one that finished last: its extracts are the newest.
    crawl = Crawl.objects.filter(site=site).finished().order_by("-finished_at", "-pk").first()
    if crawl is None:
        raise LookupError(f"site #{site.pk} has no finished crawl to export")
    parts = urlsplit(site.url)
    base_url = (base_url or f"{parts.scheme}://{parts.netloc}/").rstrip("/") + "/"
    mwim_site = MwimSite.objects.filter(site=site).first()
    (folder / "ce").mkdir(parents=True, exist_ok=True)
    entries, skipped, ce_bytes, written = [], 0, 0, set()
    pages = pages_listable(crawl).order_by("url").values_list("pk", "url", "content_hash", "fetched_at")
    for page_id, url, content_hash, fetched_at in pages.iterator(chunk_size=500):
        data, changed = _export_extract(mwim_site, page_id, url, content_hash)
        if data is None:
            skipped += 1
            continue
        key = url_key(url)
        write_atomically(folder / "ce" / f"{key}.ce", data)
        written.add(f"ce/{key}.ce")
        ce_bytes += len(data)
        changed = changed or fetched_at or crawl.finished_at
        entries.append(
            SitemapEntry(url, changed, f"{base_url}ce/{key}.ce", changed, f"sha256:{content_hash}")
        )
    files = sitemap_files(entries, part_url=lambda n: f"{base_url}sitemap-{n}.xml", max_urls=sitemap.MAX_URLS)
    for name, data in files.items():
        write_atomically(folder / name, data)
        write_atomically(folder / (name + ".gz"), gzipped(data))
        written.update((name, name + ".gz"))
    summary = {
        "site": site.pk, "crawl": crawl.pk, "folder": str(folder), "base_url": base_url, "pages": len(entries),
        "skipped": skipped, "ce_bytes": ce_bytes, "sitemaps": sorted(files),
        "removed": _prune_export(folder, written),
    }  # fmt: skip
    if mwim_site is not None:
        where, key = indexnow_key_file(mwim_site)
        write_atomically(folder / f"{key}.txt", key.encode())
        summary["indexnow_key_file"] = f"{key}.txt"
    return summary
