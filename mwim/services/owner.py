"""What the owner changes on the MWIM page besides registration and tokens: the IndexNow endpoints and whether
crawls build content extracts."""

from __future__ import annotations

from mwim.models import MwimSite
from mwim.services.notify import indexnow_endpoints_clean


def mwim_indexnow_endpoints_set(*, mwim_site: MwimSite, text: str) -> list[str]:
    """Save the endpoints the owner typed, one a line; raises ValueError (saving nothing) for one that is not an
    IndexNow endpoint URL."""
    mwim_site.indexnow_endpoints = indexnow_endpoints_clean(text)
    mwim_site.save(update_fields=["indexnow_endpoints"])
    return mwim_site.indexnow_endpoints


def mwim_enabled_set(*, mwim_site: MwimSite, enabled: bool) -> None:
    """Turn MWIM on or off: a disabled site's MWIM URLs answer 404 and its crawls build no content extracts."""
    mwim_site.enabled = enabled
    mwim_site.save(update_fields=["enabled"])
