"""Extended XML sitemaps (sitemaps.org 0.9 with the MWIM Content Extract Manifest, paper §VIII.2): write them,
split into a sitemap index past the protocol's limits, and read them back safely."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.sax.saxutils import escape

import defusedxml.ElementTree as SafeTree
from defusedxml import DefusedXmlException

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
CE_NS = "urn:mwimc/content-extract-manifest"
# The protocol's limits for one file: 50,000 URLs and 50 MiB uncompressed.
MAX_URLS = 50_000
MAX_BYTES = 50 * 1024 * 1024
# A sitemap read from outside larger than this is refused before parsing (a sitemap's own limit, gzip or not).
MAX_READ_BYTES = MAX_BYTES

_URLSET_OPEN = (
    f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" xmlns:ce="{CE_NS}">\n'
).encode()
_URLSET_CLOSE = b"</urlset>\n"


@dataclass(frozen=True)
class SitemapEntry:
    loc: str  # the page
    lastmod: datetime  # when the page last changed, as far as webaudit knows
    ce_loc: str  # its Content Extract file
    ce_lastupd: datetime  # when that file last changed
    fingerprint: str  # "sha256:<hex>" of the page the file was made from


class SitemapError(ValueError):
    """A sitemap that cannot be read: not XML, hostile XML, not a sitemap, too big."""


def w3c_datetime(moment: datetime) -> str:
    """W3C datetime in UTC to the second ("2026-11-25T06:33:53+00:00"), as sitemaps and xsd:dateTime take it."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _url_element(entry: SitemapEntry) -> bytes:
    # The standard elements first: sitemap.xsd admits foreign ones only after them.
    return (
        f"<url><loc>{escape(entry.loc)}</loc><lastmod>{w3c_datetime(entry.lastmod)}</lastmod>"
        f"<ce:loc>{escape(entry.ce_loc)}</ce:loc><ce:lastupd>{w3c_datetime(entry.ce_lastupd)}</ce:lastupd>"
        f"<ce:fingerprint>{escape(entry.fingerprint)}</ce:fingerprint></url>\n"
    ).encode()


def sitemap_parts(
    entries: Iterable[SitemapEntry], *, max_urls: int = MAX_URLS, max_bytes: int = MAX_BYTES
) -> list[tuple[bytes, datetime | None]]:
    """The urlset files of `entries`: one while they fit the protocol's limits, more past them; each with the
    latest change among its entries (for the index's lastmod)."""
    parts: list[tuple[bytes, datetime | None]] = []
    room = max_bytes - len(_URLSET_OPEN) - len(_URLSET_CLOSE)
    chunks: list[bytes] = []
    size, latest = 0, None
    for entry in entries:
        element = _url_element(entry)
        if chunks and (len(chunks) >= max_urls or size + len(element) > room):
            parts.append((_URLSET_OPEN + b"".join(chunks) + _URLSET_CLOSE, latest))
            chunks, size, latest = [], 0, None
        chunks.append(element)
        size += len(element)
        changed = max(entry.lastmod, entry.ce_lastupd)
        latest = changed if latest is None or changed > latest else latest
    if chunks or not parts:
        parts.append((_URLSET_OPEN + b"".join(chunks) + _URLSET_CLOSE, latest))
    return parts


def sitemap_index(locations: Sequence[tuple[str, datetime | None]]) -> bytes:
    """A sitemap index naming each part file (its URL, and when its entries last changed)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f'<sitemapindex xmlns="{SITEMAP_NS}">']
    for loc, lastmod in locations:
        modified = f"<lastmod>{w3c_datetime(lastmod)}</lastmod>" if lastmod else ""
        lines.append(f"<sitemap><loc>{escape(loc)}</loc>{modified}</sitemap>")
    lines.append("</sitemapindex>\n")
    return "\n".join(lines).encode()


def sitemap_files(
    entries: Iterable[SitemapEntry],
    *,
    part_url: Callable[[int], str],
    max_urls: int = MAX_URLS,
    max_bytes: int = MAX_BYTES,
) -> dict[str, bytes]:
    """File name -> bytes: {"sitemap.xml"} when the entries fit one file, else {"sitemap-index.xml",
    "sitemap-1.xml", ...} with `part_url(n)` the public URL of part n."""
    parts = sitemap_parts(entries, max_urls=max_urls, max_bytes=max_bytes)
    if len(parts) == 1:
        return {"sitemap.xml": parts[0][0]}
    files = {f"sitemap-{number}.xml": data for number, (data, _) in enumerate(parts, 1)}
    files["sitemap-index.xml"] = sitemap_index(
        [(part_url(number), latest) for number, (_, latest) in enumerate(parts, 1)]
    )
    return files


def gzipped(data: bytes) -> bytes:
    """The gzip form of a sitemap (mtime 0, so that equal sitemaps give equal bytes and ETags)."""
    return gzip.compress(data, compresslevel=6, mtime=0)


# Reading ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedSitemap:
    entries: list[SitemapEntry]  # of a urlset
    sitemaps: list[str]  # of a sitemap index: the part files to read


def _parse_time(text: str | None, where: str) -> datetime:
    value = (text or "").strip()
    try:
        if len(value) == 10:
            return datetime.fromisoformat(value).replace(tzinfo=UTC)
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise SitemapError(f"{where}: {value!r} is not a W3C datetime") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def sitemap_parse(data: bytes) -> ParsedSitemap:
    """Read an (optionally gzipped) extended sitemap or sitemap index; entries without a ce:loc are skipped
    (plain sitemap entries have no extract to fetch). Hostile XML (entities, DTDs) is refused."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = _gunzip(data)
        except (OSError, EOFError) as exc:
            raise SitemapError(f"not a gzip file ({exc})") from None
    if len(data) > MAX_READ_BYTES:
        raise SitemapError(f"the sitemap is over {MAX_READ_BYTES:,} bytes")
    try:
        root = SafeTree.fromstring(data, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise SitemapError(f"refused hostile XML ({type(exc).__name__})") from None
    except SafeTree.ParseError as exc:
        raise SitemapError(f"not XML ({exc})") from None
    if root.tag == f"{{{SITEMAP_NS}}}sitemapindex":
        locs = [(element.text or "").strip() for element in root.iter(f"{{{SITEMAP_NS}}}loc")]
        return ParsedSitemap(entries=[], sitemaps=[loc for loc in locs if loc])
    if root.tag != f"{{{SITEMAP_NS}}}urlset":
        raise SitemapError(f"not a sitemap (root element {root.tag!r})")
    entries = []
    for url in root.findall(f"{{{SITEMAP_NS}}}url"):
        loc = (url.findtext(f"{{{SITEMAP_NS}}}loc") or "").strip()
        ce_loc = (url.findtext(f"{{{CE_NS}}}loc") or "").strip()
        if not loc or not ce_loc:
            continue
        lastupd = _parse_time(url.findtext(f"{{{CE_NS}}}lastupd"), f"ce:lastupd of {loc}")
        lastmod_text = url.findtext(f"{{{SITEMAP_NS}}}lastmod")
        lastmod = _parse_time(lastmod_text, f"lastmod of {loc}") if lastmod_text else lastupd
        fingerprint = (url.findtext(f"{{{CE_NS}}}fingerprint") or "").strip()
        entries.append(SitemapEntry(loc, lastmod, ce_loc, lastupd, fingerprint))
    return ParsedSitemap(entries=entries, sitemaps=[])


def _gunzip(data: bytes) -> bytes:
    """Inflate at most MAX_READ_BYTES + 1 bytes: a gzip bomb stops there."""
    import io

    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        return stream.read(MAX_READ_BYTES + 1)
