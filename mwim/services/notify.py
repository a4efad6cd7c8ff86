"""Change notification: the push endpoint's per-site token, and IndexNow announcements of changed URLs to the
endpoints the site's owner configured (none by default)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache

from mwim.models import MwimSite
from sites.http import FetchResult, FetchSettings, PoliteFetcher

# URLs per request: IndexNow's POST form takes at most 10,000 (https://www.indexnow.org/documentation). The ce
# job keeps at most that many changed URLs (extracts.MAX_CHANGED_KEPT), so a job is one request an endpoint; a
# longer list goes in further batches, and an endpoint that refuses one batch is not sent the next.
URLS_PER_REQUEST = 10_000
# What IndexNow's error statuses mean (its documentation's table), said as what the owner can do about them.
REFUSALS = {
    400: "IndexNow found the request malformed",
    403: "IndexNow rejected the key; publish {key_location} holding the key",
    422: "IndexNow refused the URLs: they are not on {host}, or the key does not match the protocol's format",
    429: "too many requests; IndexNow asks to slow down",
}
# A 429 with a Retry-After up to this many seconds is asked once more after it; a longer wait is left to the
# next job (the worker is not held that long), and the reason says how long the endpoint asked for.
MAX_RETRY_WAIT = 30.0
# IndexNow answers with an empty or short body that nothing here reads.
ANSWER_MAX_BYTES = 10_000


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
    """Tell each configured endpoint about the changed URLs, one POST of up to URLS_PER_REQUEST each (IndexNow's
    JSON form, through the project's polite fetcher: its address guard, limits and per-host spacing); return one line per endpoint: how many URLs were accepted
    (answered 200 or 202), and why the endpoint's first refused batch was refused."""
    key_location, key = indexnow_key_file(mwim_site)
    host = urlsplit(mwim_site.site.url).hostname or ""
    outcomes = []
    with PoliteFetcher(FetchSettings.from_settings(settings), max_bytes=ANSWER_MAX_BYTES) as polite:
        for endpoint in mwim_site.indexnow_endpoints:
            accepted, error = 0, ""
            for start in range(0, len(urls), URLS_PER_REQUEST):
                batch = urls[start : start + URLS_PER_REQUEST]
                payload = {"host": host, "key": key, "keyLocation": key_location, "urlList": batch}
                answer = polite.post_json(endpoint, payload)
                asked = polite.retry_wait(
                    endpoint,
                    answer,
                    statuses=frozenset({429}),
                    without_retry_after=None,
                    longest=MAX_RETRY_WAIT,
                    cap=False,
                )
                if asked is not None:  # the endpoint is paused that long: the next POST waits it out
                    answer = polite.post_json(endpoint, payload)
                # The status is what IndexNow answers; a body too large or cut short after it changes nothing.
                if answer.status in (200, 202):
                    accepted += len(batch)
                    continue
                error = _refusal(answer, host=host, key_location=key_location)
                break
            outcomes.append(
                {"endpoint": endpoint, "announced": len(urls), "accepted": accepted, "error": error}
            )
    return outcomes


def _refusal(answer: FetchResult, *, host: str, key_location: str) -> str:
    if answer.error_kind:
        return answer.error
    reason = REFUSALS.get(answer.status or 0, "IndexNow did not accept the URLs")
    wait = f" (Retry-After: {answer.retry_after:g} s)" if answer.retry_after is not None else ""
    return f"HTTP {answer.status}: {reason.format(host=host, key_location=key_location)}{wait}"
