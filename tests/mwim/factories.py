"""Rows for the MWIM tests, written directly: a registered site, a finished crawl with pages and their CE
extracts."""

from __future__ import annotations

from django.utils import timezone

from mwim.ce import content_extract_build, encode
from mwim.models import MwimSite
from sites.crawler.parse import parse_document
from sites.models import PageExtract
from tests.sites.factories import make_crawl, make_page, make_site


def ce_bytes(url: str, text: str = "tomatoes grow") -> bytes:
    body = f"<html><head><title>{text}</title></head><body><p>{text}</p></body></html>".encode()
    root, _ = parse_document(body)
    return encode(content_extract_build(root, url=url, body=body))


def make_mwim_site(owner=None, *, verified: bool = True, **fields) -> MwimSite:
    site = make_site(owner)
    return MwimSite.objects.create(site=site, verified_at=timezone.now() if verified else None, **fields)


def make_crawl_with_pages(site, pages: dict[str, str | bytes | None], **page_fields):
    """A finished crawl with one live HTML page per URL; its CE extract from its text (bytes: stored as given;
    None: no extract)."""
    crawl = make_crawl(site)
    for url, content in pages.items():
        page = make_page(crawl, url, content_type="text/html", content_hash=url, **page_fields)
        if content is not None:
            data = content if isinstance(content, bytes) else ce_bytes(url, content)
            PageExtract.objects.create(page=page, name="ce", data=data)
    return crawl
