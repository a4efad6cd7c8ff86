"""robots.txt with RFC 9309 semantics: where it lives, what a fetch of it means, what it allows."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from protego import Protego

from .result import FetchResult

# RFC 9309 §2.5: crawlers must parse at least 500 KiB and may ignore the rest.
ROBOTS_MAX_BYTES = 500 * 1024

_DEFAULT_PORTS = {"http": 80, "https": 443}
_PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]+")


def robots_url(url: str) -> str:
    """Return the robots.txt URL governing `url`: scheme://host[:port]/robots.txt."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    # The default port is dropped so that every spelling of an origin shares one robots URL.
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    return f"{scheme}://{netloc}/robots.txt"


def parse_robots(result: FetchResult) -> str | None:
    """Return the robots text to obey for a fetch of robots.txt; None means "disallow everything".

    2xx gives the body; 4xx, a 3xx without target and a redirect chain that never ends mean the file
    is unavailable and everything is allowed (RFC 9309 §2.3.1.2-3). 5xx and network failures mean it
    is unreachable and nothing is allowed (§2.3.1.4). 429 counts as unreachable, as Google treats it:
    a server asking us to slow down has not told us we may crawl everything.
    """
    if result.error_kind in ("too_many_redirects", "redirect_loop"):
        return ""
    # A body over the cap is still a robots.txt: §2.5 lets us use its first 500 KiB.
    if result.status is None or (result.error_kind and result.error_kind != "too_large"):
        return None
    if result.status == 429 or result.status >= 500:
        return None
    if 200 <= result.status < 300:
        # §2.2: robots.txt is UTF-8; a BOM is allowed and is not part of the first line.
        return result.body[:ROBOTS_MAX_BYTES].decode("utf-8", errors="replace").removeprefix("\ufeff")
    return ""


def product_token(user_agent: str) -> str:
    """Return the product token robots.txt groups are matched against ("webaudit" of "webaudit/0.1")."""
    match = _PRODUCT_TOKEN.match(user_agent.strip())
    return match.group(0).lower() if match else user_agent.strip().lower()


class RobotsRules:
    """The rules of one robots.txt for one user agent; None as text disallows everything."""

    def __init__(self, text: str | None, user_agent: str) -> None:
        self.text = text
        # Matching the full header would let a group named after a word in our contact URL apply.
        self.token = product_token(user_agent)
        self._parser = Protego.parse(text) if text else None

    def allowed(self, url: str) -> bool:
        if self.text is None:
            return False
        if self._parser is None:
            return True
        return self._parser.can_fetch(url, self.token)

    def crawl_delay(self) -> float | None:
        if self._parser is None:
            return None
        return self._parser.crawl_delay(self.token)
