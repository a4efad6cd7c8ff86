"""Register a site for MWIM and verify that its owner controls it: a meta tag on the start page, or a token
file at the site's root, fetched through the project's HTTP client."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.utils import timezone

from mwim.models import MwimSite
from sites.crawler.parse import parse_document
from sites.http import Fetcher, FetchPolicy, FetchSettings
from sites.models import Site

META_NAME = "webaudit-mwim-verification"
FILE_NAME = "webaudit-mwim-verification.txt"
# A verification page or file is small; anything bigger is not what the owner put there.
MAX_VERIFICATION_BYTES = 1_000_000


def mwim_register(*, site: Site) -> MwimSite:
    """The site's MWIM registration, made (enabled, unverified) on first call."""
    mwim_site, _ = MwimSite.objects.get_or_create(site=site)
    return mwim_site


def verification_instructions(mwim_site: MwimSite) -> dict[str, str]:
    token = mwim_site.verification_token
    return {
        "meta": f'<meta name="{META_NAME}" content="{token}">',
        "meta_where": mwim_site.site.url,
        "file": token,
        "file_where": urljoin(mwim_site.site.url, "/" + FILE_NAME),
    }


def fetch_policy(max_bytes: int = MAX_VERIFICATION_BYTES) -> FetchPolicy:
    return FetchSettings.from_settings(settings).policy(max_bytes=max_bytes)


def _meta_token(body: bytes) -> set[str]:
    root, _ = parse_document(body)
    if root is None:
        return set()
    return {
        (meta.get("content") or "").strip()
        for meta in root.iter("meta")
        if (meta.get("name") or "").strip().lower() == META_NAME
    }


def mwim_verify(*, mwim_site: MwimSite) -> bool:
    """Look for the token (file first, then meta tag); record the outcome and return whether it was found."""
    instructions = verification_instructions(mwim_site)
    token = mwim_site.verification_token
    problems = []
    with Fetcher(fetch_policy()) as fetcher:
        answer = fetcher.fetch(instructions["file_where"])
        if _on_site(answer, mwim_site) and answer.body.strip().decode("utf-8", "replace") == token:
            return _verified(mwim_site, MwimSite.Method.FILE)
        problems.append(f"{instructions['file_where']}: {_describe(answer, 'does not hold the token')}")
        answer = fetcher.fetch(instructions["meta_where"])
        if _on_site(answer, mwim_site) and token in _meta_token(answer.body):
            return _verified(mwim_site, MwimSite.Method.META)
        problems.append(
            f"{instructions['meta_where']}: {_describe(answer, 'has no meta tag with the token')}"
        )
    mwim_site.verification_error = "; ".join(problems)[:500]
    mwim_site.save(update_fields=["verification_error"])
    return False


def _on_site(answer, mwim_site: MwimSite) -> bool:
    """A 200 from the site's own host: a redirect elsewhere proves nothing about this site."""
    return (
        not answer.error_kind
        and answer.status == 200
        and urlsplit(answer.final_url).netloc == urlsplit(mwim_site.site.url).netloc
    )


def _describe(answer, missing: str) -> str:
    if answer.error:
        return answer.error
    if answer.status != 200:
        return f"HTTP {answer.status}"
    return missing


def _verified(mwim_site: MwimSite, method: str) -> bool:
    mwim_site.verified_at = timezone.now()
    mwim_site.verified_by = method
    mwim_site.verification_error = ""
    mwim_site.save(update_fields=["verified_at", "verified_by", "verification_error"])
    return True
