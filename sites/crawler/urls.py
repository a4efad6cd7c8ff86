"""URL normalization (so one page is fetched once per crawl) and the crawl scope test."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urljoin, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

# The host key lives with the HTTP client, whose politeness counts by it; the crawl uses the same.
from sites.http.urls import host_key as site_key

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4, keeping empty segments and the trailing slash (unlike posixpath.normpath)."""
    if "." not in path:
        return path
    output: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                output.append("")
        elif segment == "..":
            if len(output) > 1:
                output.pop()
            if last:
                output.append("")
        else:
            output.append(segment)
    result = "/".join(output)
    return result if result.startswith("/") else "/" + result


def normalize_url(raw: str, base: str | None = None) -> str | None:
    """Return the canonical absolute http(s) URL of `raw` (resolved against `base`), or None if it has none.

    Lower-cased scheme and host, default port dropped, dot segments removed, fragment and credentials dropped,
    percent-encoding and query order canonicalized (w3lib, as Scrapy does).
    """
    raw = raw.strip()
    if not raw or len(raw) > 8000:
        return None
    if base:
        if raw[0] == "#":  # a fragment of the page itself, the commonest link in documentation
            raw = base
        else:
            # A reference resolves the same against any page of one directory, unless it is a bare query.
            anchor = base if raw[0] == "?" else base[: base.rfind("/") + 1]
            raw = _join(anchor, raw)
            if raw is None:
                return None
    return _normalize_absolute(raw.partition("#")[0])


@lru_cache(maxsize=100_000)
def _join(base: str, reference: str) -> str | None:
    try:
        return urljoin(base, reference)
    except ValueError:
        return None


# Pages of a site link to the same URLs over and over: each distinct one is canonicalized once
# (normalizing took 75% of parse time on the python docs, ~300 links a page, before this cache).
@lru_cache(maxsize=100_000)
def _normalize_absolute(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS:
            return None
        host = parts.hostname
        port = parts.port
    except ValueError:  # bad port, unbalanced IPv6 brackets
        return None
    if not host or any(char in host for char in ' <>"\\^`{|}'):
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    path = _remove_dot_segments(parts.path or "/")
    try:
        return canonicalize_url(urlunsplit((scheme, netloc, path, parts.query, "")))
    except (ValueError, UnicodeError):
        return None


def compile_patterns(text: str) -> list[re.Pattern[str]]:
    """One regular expression a line; raises re.error naming the bad line."""
    patterns = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        try:
            patterns.append(re.compile(line))
        except re.error as exc:
            raise re.error(f"line {number} ({line!r}): {exc}") from None
    return patterns


@dataclass
class CrawlScope:
    """Which URLs a crawl fetches and follows: the start URL's host, narrowed by include/exclude patterns."""

    start_url: str
    include: list[re.Pattern[str]] = field(default_factory=list)
    exclude: list[re.Pattern[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.site = site_key(self.start_url)

    @classmethod
    def from_text(cls, start_url: str, include: str = "", exclude: str = "") -> CrawlScope:
        return cls(start_url, compile_patterns(include), compile_patterns(exclude))

    def same_site(self, url: str) -> bool:
        return site_key(url) == self.site

    def contains(self, url: str) -> bool:
        if not self.same_site(url):
            return False
        if url == self.start_url:
            return True
        if self.include and not any(pattern.search(url) for pattern in self.include):
            return False
        return not any(pattern.search(url) for pattern in self.exclude)
