"""Parsing of the response headers a fetch result reports: Content-Type and Retry-After."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime


def parse_content_type(value: str) -> tuple[str, str | None]:
    """Split a Content-Type header into its lower-cased mime type and its charset parameter."""
    mime, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, param_value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = param_value.strip().strip("'\"").strip().lower() or None
    return mime.strip().lower(), charset


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Return the seconds a Retry-After value (delta-seconds or HTTP-date) asks us to wait.

    A date in the past gives 0.0; an unreadable value gives None.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        # RFC 9110 dates are always GMT; a naive result means the zone was missing, not local time.
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
