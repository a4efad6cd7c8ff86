"""Reading the sitemaps a site declares (sitemaps.org 0.9): where they are, and what one file lists.

Pure functions over bytes; the fetching is sites.services.sitemaps'. Sitemaps come from strangers: gzip is
inflated only up to a cap (a gzip bomb stops there), XML with a DTD or entities is refused (defusedxml), and a
file lists at most a capped number of URLs.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

import defusedxml.ElementTree as SafeTree
from defusedxml import DefusedXmlException

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# The protocol's limits for one file: 50,000 URLs and 50 MiB uncompressed.
MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_FILE_URLS = 50_000


class SitemapError(ValueError):
    """A sitemap that cannot be read; the message says why, for the report."""


class NotASitemap(SitemapError):
    """A document that is no sitemap at all: an HTML page, other XML, text that lists no URL (a sitemap that is
    not well-formed XML is a broken sitemap, not this). At the well-known /sitemap.xml of a site that answers
    every URL (a soft-404 page, a redirect home) it means the site has no sitemap there."""


# How far into a document to look for the marks of an HTML page, whose doctype would otherwise be refused as
# a hostile DTD: its doctype and <html> come first, after at most a comment or two.
HTML_SNIFF_BYTES = 1024


def _looks_like_html(start: bytes) -> bool:
    head = start[:HTML_SNIFF_BYTES].lower()
    is_sitemap = b"<urlset" in head or b"<sitemapindex" in head
    return not is_sitemap and (b"<!doctype html" in head or b"<html" in head)


@dataclass(frozen=True)
class ParsedSitemap:
    urls: list[str]  # the <loc> of each <url> of a urlset (or each line of a text sitemap)
    sitemaps: list[str]  # the <loc> of each <sitemap> of a sitemap index
    cut: int = 0  # entries over the cap, not listed


def sitemaps_in_robots(text: str | None) -> list[str]:
    """The `Sitemap:` lines of a robots.txt, in order, without repeats (the field name is case-insensitive and
    stands outside any group, RFC 9309 §2.2.4)."""
    found: list[str] = []
    for line in (text or "").splitlines():
        name, _, value = line.partition(":")
        value = value.split("#", 1)[0].strip()
        if name.strip().lower() == "sitemap" and value and value not in found:
            found.append(value)
    return found


def _inflate(data: bytes, limit: int) -> bytes:
    """gzip-inflate at most `limit` + 1 bytes, so a bomb costs no more than a file at the cap."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise SitemapError(f"not a gzip file ({exc})") from None
    if len(out) > limit:
        raise SitemapError(f"over {limit:,} bytes once uncompressed")
    return out


def parse_sitemap(
    data: bytes, *, max_urls: int = MAX_FILE_URLS, max_bytes: int = MAX_FILE_BYTES
) -> ParsedSitemap:
    """Read one sitemap file (XML urlset, XML sitemap index or plain text; gzipped or not)."""
    if data[:2] == b"\x1f\x8b":
        data = _inflate(data, max_bytes)
    if len(data) > max_bytes:
        raise SitemapError(f"over {max_bytes:,} bytes")
    start = data.removeprefix(b"\xef\xbb\xbf").lstrip()
    if start and start[:1] != b"<":
        return _parse_text(data, max_urls)
    if _looks_like_html(start):
        raise NotASitemap("an HTML page, not a sitemap")
    try:
        root = SafeTree.parse(io.BytesIO(data), forbid_dtd=True).getroot()
    except DefusedXmlException as exc:
        raise SitemapError(f"refused hostile XML ({type(exc).__name__})") from None
    except SafeTree.ParseError as exc:
        raise SitemapError(f"not XML ({exc})") from None
    tag = root.tag.removeprefix(SITEMAP_NS)
    if tag not in ("urlset", "sitemapindex"):
        raise NotASitemap(f"not a sitemap (root element {root.tag!r})")
    child = "url" if tag == "urlset" else "sitemap"
    locs: list[str] = []
    cut = 0
    # Sitemaps without the namespace are common enough to read too.
    for element in root:
        if element.tag.removeprefix(SITEMAP_NS) != child:
            continue
        loc = next((item for item in element if item.tag.removeprefix(SITEMAP_NS) == "loc"), None)
        text = (loc.text or "").strip() if loc is not None else ""
        if not text:
            continue
        if len(locs) >= max_urls:
            cut += 1
            continue
        locs.append(text)
    if tag == "urlset":
        return ParsedSitemap(urls=locs, sitemaps=[], cut=cut)
    return ParsedSitemap(urls=[], sitemaps=locs, cut=cut)


def _parse_text(data: bytes, max_urls: int) -> ParsedSitemap:
    """A text sitemap: one absolute URL a line (sitemaps.org, "Text file")."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotASitemap("neither XML nor a UTF-8 text sitemap") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    urls = [line for line in lines if line.startswith(("http://", "https://"))]
    if lines and not urls:
        raise NotASitemap("neither XML nor a list of URLs")
    return ParsedSitemap(urls=urls[:max_urls], sitemaps=[], cut=max(0, len(urls) - max_urls))
