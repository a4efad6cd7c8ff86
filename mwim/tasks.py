"""Celery tasks of MWIM: thin wrappers over mwim.services."""

from __future__ import annotations

from celery import shared_task

from mwim.models import MwimSite
from mwim.services import ce_refresh_page


@shared_task
def ce_refresh_url(mwim_site_id: int, url: str) -> str:
    """Refresh one page's CE after a push (the site's backend said it changed)."""
    mwim_site = MwimSite.objects.filter(pk=mwim_site_id).first()
    if mwim_site is None:
        return "site gone"
    return ce_refresh_page(mwim_site=mwim_site, url=url)
