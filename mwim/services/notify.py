"""Change notification: the push endpoint's per-site token, and IndexNow announcements of changed URLs to the
endpoints the site's owner configured (none by default)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.core.cache import cache

from mwim.models import MwimSite
from sites.http import Fetcher, FetchPolicy

# Announcements per job: IndexNow's GET form names one URL a request; past this the rest wait for the search
# engine's own visit of the sitemap (whose ce:lastupd says what changed).
MAX_ANNOUNCED = 100


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def push_token_rotate(*, mwim_site: MwimSite) -> str:
    """Make a new push token (the old one stops working) and return it: it is shown once, stored hashed."""
    token = secrets.token_urlsafe(32)
    mwim_site.push_token_hash = _hash(token)
    mwim_site.save(update_fields=["push_token_hash"])
    return token


def push_token_check(*, mwim_site: MwimSite, token: str) -> bool:
    return bool(mwim_site.push_token_hash) and hmac.compare_digest(
        mwim_site.push_token_hash, _hash(token or "")
    )


def push_allowed(*, mwim_site: MwimSite, now: float | None = None) -> int:
    """Count a push against the site's WEBAUDIT_MWIM_PUSH_PER_MINUTE; 0 when it may go on, else the seconds until
    the next minute starts (the Retry-After). A fixed window per site in the cache: a leaked or buggy backend
    can't queue more refreshes than that a minute."""
    now = time.time() if now is None else now
    minute = int(now // 60)
    key = f"mwim-push:{mwim_site.pk}:{minute}"
    cache.add(key, 0, timeout=120)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=120)
        count = 1
    if count <= settings.WEBAUDIT_MWIM_PUSH_PER_MINUTE:
        return 0
    return max(1, (minute + 1) * 60 - int(now))


def indexnow_key_file(mwim_site: MwimSite) -> tuple[str, str]:
    """(where the owner must publish the key file, what it must hold): IndexNow checks the key there."""
    parts = urlsplit(mwim_site.site.url)
    return f"{parts.scheme}://{parts.netloc}/{mwim_site.indexnow_key}.txt", mwim_site.indexnow_key


def indexnow_endpoints_clean(text: str) -> list[str]:
    """The endpoints an owner typed, one a line: absolute http(s) URLs (e.g. https://api.indexnow.org/indexnow)."""
    endpoints = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        parts = urlsplit(line)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError(f"{line!r} is not an IndexNow endpoint URL (http(s)://host/path, no query)")
        endpoints.append(line)
    return endpoints


def indexnow_announce(*, mwim_site: MwimSite, urls: list[str]) -> list[dict]:
    """Tell each configured endpoint about each changed URL (IndexNow's GET form, through the project's HTTP
    client); return one line per endpoint: how many were accepted, and the first error."""
    key_location, _ = indexnow_key_file(mwim_site)
    policy = FetchPolicy(
        user_agent=settings.WEBAUDIT_USER_AGENT,
        timeout=settings.WEBAUDIT_FETCH_TIMEOUT,
        max_bytes=10_000,
        allowed_networks=tuple(settings.WEBAUDIT_ALLOWED_NETWORKS),
    )
    outcomes = []
    with Fetcher(policy) as fetcher:
        for endpoint in mwim_site.indexnow_endpoints:
            accepted, error = 0, ""
            for url in urls[:MAX_ANNOUNCED]:
                query = urlencode({"url": url, "key": mwim_site.indexnow_key, "keyLocation": key_location})
                answer = fetcher.fetch(f"{endpoint}?{query}")
                if answer.status in (200, 202):
                    accepted += 1
                elif not error:
                    error = answer.error or f"HTTP {answer.status}"
            outcomes.append({"endpoint": endpoint, "announced": min(len(urls), MAX_ANNOUNCED),
                             "accepted": accepted, "error": error})  # fmt: skip
    return outcomes
