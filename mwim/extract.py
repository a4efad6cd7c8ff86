"""The page readers' extractor for MWIM (docs/analysis-jobs.md): each page's Content Extract file, built from
the tree the reader already parsed, for the crawls of MWIM-enabled sites only."""

from __future__ import annotations

from mwim.ce import content_extract_build, encode


def content_extract(root, *, url: str, body: bytes) -> bytes:
    """The page's Content Extract file (docs/ce-format.md)."""
    return encode(content_extract_build(root, url=url, body=body))


def wanted(site) -> bool:
    """Extract in the readers only when WEBAUDIT_MWIM_READER_EXTRACTS is on, and then only on an MWIM-enabled
    site's first crawl, when every page needs an extract.

    Reading it from the tree the reader already holds saves a parse per page, but it costs the crawl itself (on
    the python docs, +5 CPU s over 537 pages: the crawl's CPU nearly doubles and it falls behind Scrapy,
    docs/benchmarks.md), so it is off by default. On a recrawl most pages are unchanged: the `ce` job makes
    extracts for the changed ones only, from their stored bodies, after the crawl.
    """
    # Django, imported here: the readers import this module and never call this function.
    from django.conf import settings

    from mwim.models import ContentExtractFile, MwimSite

    if not settings.WEBAUDIT_MWIM_READER_EXTRACTS:
        return False
    enabled = MwimSite.objects.filter(site=site, enabled=True).exists()
    return enabled and not ContentExtractFile.objects.filter(mwim_site__site=site).exists()
