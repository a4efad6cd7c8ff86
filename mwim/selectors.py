"""Read-side queries of MWIM for its views: the published registration and CE files search engines read, and
what the owner's page lists. Writes are in mwim.services."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet

from mwim.models import ContentExtractFile, MwimSite
from sites.models import Site

# The columns the owner's page lists of each CE file (never its data).
LISTED_FIELDS = ("url", "url_key", "updated_at", "listed", "fingerprint")


def site_registered(*, site_id: int) -> bool:
    """Whether the site is registered for MWIM (verified or not)."""
    return MwimSite.objects.filter(site_id=site_id).exists()


def published_mwim_site(*, site_id: int) -> MwimSite | None:
    """The site's MWIM registration if its MWIM URLs may answer (enabled and verified), else None."""
    return MwimSite.objects.published().filter(site_id=site_id).first()


def published_ce_file(*, site_id: int, key: str) -> ContentExtractFile | None:
    """The CE file `key` of a published site, if the sitemap lists it."""
    return ContentExtractFile.objects.published().filter(mwim_site__site_id=site_id, url_key=key).first()


def published_ce_validators(*, site_id: int, key: str) -> tuple[str, datetime] | None:
    """(fingerprint, updated_at) of a published CE file: its ETag and Last-Modified, without its data."""
    return (
        ContentExtractFile.objects.published()
        .filter(mwim_site__site_id=site_id, url_key=key)
        .values_list("fingerprint", "updated_at")
        .first()
    )


def site_mwim(*, site: Site) -> MwimSite | None:
    """The site's MWIM registration, published or not (the owner's page)."""
    return MwimSite.objects.filter(site=site).first()


def mwim_ce_files(*, mwim_site: MwimSite) -> QuerySet[ContentExtractFile]:
    """Every CE file of the registration, listed or not, by URL, without the files' data."""
    return ContentExtractFile.objects.filter(mwim_site=mwim_site).only(*LISTED_FIELDS)


def mwim_listed_count(*, mwim_site: MwimSite) -> int:
    """How many of the registration's CE files the sitemap lists."""
    return ContentExtractFile.objects.filter(mwim_site=mwim_site, listed=True).count()


def site_ce_file(*, site: Site, key: str) -> ContentExtractFile | None:
    """The site's CE file `key`, listed or not (the owner's report and download)."""
    return ContentExtractFile.objects.filter(mwim_site__site=site, url_key=key).first()
