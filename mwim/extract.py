"""The page readers' extractor for MWIM (docs/analysis-jobs.md): each page's Content Extract file, built from
the tree the reader already parsed, for the crawls of MWIM-enabled sites only."""

from __future__ import annotations

from mwim.ce import content_extract_build, encode


def content_extract(root, *, url: str, body: bytes) -> bytes:
    """The page's Content Extract file (docs/ce-format.md)."""
    return encode(content_extract_build(root, url=url, body=body))


def wanted(site) -> bool:
    """Extract only while the site has MWIM enabled (its owner registered it; verification may come later)."""
    from mwim.models import MwimSite  # Django, not loaded in the readers, which never call this

    return MwimSite.objects.filter(site=site, enabled=True).exists()
