"""Checks on the URLs a fetch is asked for or redirected to."""

from __future__ import annotations

from urllib.parse import urldefrag, urlsplit

SCHEMES = frozenset({"http", "https"})


def url_problem(url: str) -> str | None:
    """Return why `url` cannot be fetched (scheme, host, port), or None if it can be tried."""
    try:
        parts = urlsplit(url)
        port = parts.port  # Raises ValueError for a port out of range or not a number.
    except (TypeError, ValueError, AttributeError) as exc:
        return f"unparsable ({exc})"
    if parts.scheme.lower() not in SCHEMES:
        return f"unsupported scheme {parts.scheme!r}" if parts.scheme else "no scheme"
    host = parts.hostname or ""
    if not host:
        return "no host"
    if any(ch.isspace() or ord(ch) < 0x20 for ch in parts.netloc):
        return "whitespace or control character in host"
    if port == 0:
        return "port 0"
    return None


def same_resource(url: str) -> str:
    """Return the form of a URL used to tell whether a redirect chain came back to it."""
    return urldefrag(url)[0]


_DEFAULT_PORTS = {"http": 80, "https": 443}


def host_key(url: str) -> str:
    """The host (with a non-default port) politeness is counted per; http and https count as one."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port
    return f"{host}:{port}" if port and port != _DEFAULT_PORTS.get(parts.scheme) else host


def origin(url: str) -> str:
    """scheme://netloc of `url`: what one robots.txt governs."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
