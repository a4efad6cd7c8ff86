"""MWIM's services: registration and verification, content-extract refresh after crawls, publishing (sitemaps,
export), change notification (push, IndexNow)."""

from mwim.services.extracts import (
    ce_refresh_page,
    ce_refresh_step,
    mwim_crawl_finished,
    pages_listable,
    push_url_problem,
)
from mwim.services.notify import indexnow_announce, push_allowed, push_token_check, push_token_rotate
from mwim.services.publish import mwim_export, published_sitemap_files, site_sitemap_files, sitemap_entries
from mwim.services.registration import mwim_register, mwim_verify, verification_instructions

__all__ = [
    "ce_refresh_page",
    "push_url_problem",
    "ce_refresh_step",
    "indexnow_announce",
    "mwim_crawl_finished",
    "mwim_export",
    "mwim_register",
    "mwim_verify",
    "pages_listable",
    "published_sitemap_files",
    "push_allowed",
    "push_token_check",
    "push_token_rotate",
    "site_sitemap_files",
    "sitemap_entries",
    "verification_instructions",
]
