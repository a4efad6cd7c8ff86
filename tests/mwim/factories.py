"""Rows for the MWIM tests, written directly: a registered site, a finished crawl with pages, their stored
bodies and (as page readers make them) their CE extracts."""

from __future__ import annotations

import hashlib
import zlib

from django.utils import timezone

from mwim.ce import content_extract_build, encode
from mwim.models import MwimSite
from sites.crawler.parse import parse_document
from sites.models import PageBody, PageExtract
from tests.sites.factories import make_crawl, make_page, make_site


def page_html(text: str) -> bytes:
    return f"<html><head><title>{text}</title></head><body><p>{text}</p></body></html>".encode()


def ce_bytes(url: str, text: str = "tomatoes grow") -> bytes:
    body = page_html(text)
    root, _ = parse_document(body)
    return encode(content_extract_build(root, url=url, body=body))


def make_mwim_site(owner=None, *, verified: bool = True, **fields) -> MwimSite:
    site = make_site(owner)
    return MwimSite.objects.create(site=site, verified_at=timezone.now() if verified else None, **fields)


def make_crawl_with_pages(site, pages: dict[str, str | None], *, reader_extracts: bool = True, **page_fields):
    """A finished crawl with one live HTML page per URL holding `text`, its body stored and, unless
    `reader_extracts` is off, the extract its page reader made. None: a page whose body could not be kept."""
    crawl = make_crawl(site)
    for url, text in pages.items():
        body = page_html(text) if text is not None else b""
        content_hash = hashlib.sha256(body).hexdigest() if body else ""
        page = make_page(crawl, url, content_type="text/html", content_hash=content_hash, **page_fields)
        if body:
            PageBody.objects.create(page=page, data=zlib.compress(body))
            if reader_extracts:
                PageExtract.objects.create(page=page, name="ce", data=ce_bytes(url, text))
    return crawl
