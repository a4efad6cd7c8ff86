"""The page readers' extractor for MWIM (docs/analysis-jobs.md): each page's Content Extract file, built from
the tree the reader already parsed, for the crawls of MWIM-enabled sites only."""

from __future__ import annotations

from mwim.ce import content_extract_build, encode


def content_extract(root, *, url: str, body: bytes) -> bytes:
    """The page's Content Extract file (docs/ce-format.md)."""
    return encode(content_extract_build(root, url=url, body=body))


def wanted(site) -> bool:
    """Extract in the readers only on an MWIM-enabled site's first crawl, when every page needs an extract.

    Reading it from the tree the reader already holds saves a parse per page; but it costs the crawl itself
    (on the python docs, +4.5 CPU s over 537 pages: the crawl's CPU nearly doubles, docs/benchmarks.md). On a
    recrawl most pages are unchanged, and the `ce` job makes extracts for the changed ones only, from their
    stored bodies, after the crawl.
    """
    from mwim.models import (  # Django, not loaded in the readers, which never call this
        ContentExtractFile,
        MwimSite,
    )

    enabled = MwimSite.objects.filter(site=site, enabled=True).exists()
    return enabled and not ContentExtractFile.objects.filter(mwim_site__site=site).exists()
