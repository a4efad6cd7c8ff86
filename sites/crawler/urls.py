"""The URL a link leads to (what the crawl fetches), the key that makes one page one row, and the crawl scope.

A link is fetched as written, resolved against its base, with only the changes that cannot alter what a server
sees (`link_url`). The canonical form (w3lib `canonicalize_url`: query sorted and re-encoded) is a key, never a
request: `/doc?p=ref/models` and `/doc?p=ref%2Fmodels` are one key but may be two documents to a server
(nginx's `$arg_p` is the raw value), so a crawl fetches the form its first link wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urljoin, urlsplit, urlunsplit

from django.core.exceptions import ValidationError
from w3lib.url import canonicalize_url, safe_url_string

# The host key lives with the HTTP client, whose politeness counts by it; the crawl uses the same.
from sites.http.urls import host_key as site_key
from sites.patterns import compile_user_pattern

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


# A browser drops tabs and newlines anywhere in a URL (WHATWG URL, "remove all ASCII tab or newline").
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")


def link_url(raw: str, base: str | None = None) -> str | None:
    """Return the absolute http(s) URL `raw` leads to (resolved against `base`): the URL to fetch, or None.

    Only what cannot change what a server sees is changed: lower-cased scheme and host, default port, fragment and
    credentials dropped, dot segments removed (as browsers do), and the characters a URL cannot carry (spaces,
    non-ASCII, quotes, angle brackets) percent-encoded as UTF-8 (w3lib `safe_url_string`, as Scrapy requests do).
    Query order, `%2F` against `/` and `+` against `%20` stay as written. Idempotent.
    """
    raw = raw.strip()
    if not raw or len(raw) > 8000:
        return None
    if "\t" in raw or "\n" in raw or "\r" in raw:
        raw = raw.translate(_TAB_NEWLINE)
    if base:
        if raw[0] == "#":  # a fragment of the page itself, the commonest link in documentation
            raw = base
        else:
            # A reference resolves the same against any page of one directory, unless it is a bare query.
            # (The base's query is left out of that directory: its values may hold slashes, `?p=ref/models`.)
            query_at = base.find("?")
            anchor = (
                base
                if raw[0] == "?"
                else base[: base.rfind("/", 0, len(base) if query_at < 0 else query_at) + 1]
            )
            raw = _join(anchor, raw)
            if raw is None:
                return None
    head, fragment, _ = raw.partition("#")
    if fragment and head.endswith(" "):
        # The spaces before a fragment are inside the URL (a browser strips only the ends of the whole href):
        # cut from it alone, they would be taken for its end and stripped.
        stripped = head.rstrip(" ")
        head = stripped + "%20" * (len(head) - len(stripped))
    return _normalize_absolute(head)


@lru_cache(maxsize=100_000)
def _join(base: str, reference: str) -> str | None:
    try:
        return urljoin(base, reference)
    except ValueError:
        return None


# Pages of a site link to the same URLs over and over: each distinct one is normalized once
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
        return safe_url_string(urlunsplit((scheme, netloc, path, parts.query, "")))
    except (ValueError, UnicodeError):
        return None


# The older name: every caller wants the URL to fetch.
normalize_url = link_url


@lru_cache(maxsize=100_000)
def canonical_url(url: str) -> str:
    """The canonical form of a URL from `link_url`: the key of its page, one row per crawl however it is linked.

    Query parameters sorted, percent-encoding made uniform (w3lib, Scrapy's request fingerprint). Never fetched."""
    try:
        return canonicalize_url(url)
    except (ValueError, UnicodeError):
        return url


# A scope of more patterns than this is no scope anyone wrote by hand; each is tried on every URL found.
MAX_PATTERNS = 100


class PatternError(ValueError):
    """A crawl pattern that cannot be used; the message names the line and says why."""


def compile_patterns(text: str) -> list:
    """One regular expression a line, compiled by RE2 (sites.patterns: linear time whatever the pattern, so
    `(a+)+$` cannot freeze a crawl); raises PatternError naming the bad line."""
    patterns = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if len(patterns) == MAX_PATTERNS:
            raise PatternError(f"more than {MAX_PATTERNS} patterns")
        try:
            patterns.append(compile_user_pattern(line))
        except ValidationError as exc:
            raise PatternError(f"line {number} ({line[:80]!r}): {exc.messages[0]}") from None
    return patterns


# URLs whose placement (same site, in scope) a scope remembers: a site's pages link to the same few thousand
# URLs again and again (the postgres docs: 25,000 links to 2,800 URLs), and judging each anew cost 0.6 s of a
# 2.5 s recrawl. Past this many the memory is emptied and filled again (~200 bytes an entry).
PLACEMENTS_KEPT = 100_000


@dataclass
class CrawlScope:
    """Which URLs a crawl fetches and follows: the start URL's host, narrowed by include/exclude patterns."""

    start_url: str
    include: list = field(default_factory=list)  # compiled by compile_patterns (RE2)
    exclude: list = field(default_factory=list)
    _placements: dict[str, tuple[bool, bool]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self.site = site_key(self.start_url)

    def placement(self, url: str) -> tuple[bool, bool]:
        """(on the site, in the scope) of `url`, remembered for the scope's life (a crawl step's session)."""
        found = self._placements.get(url)
        if found is None:
            if len(self._placements) >= PLACEMENTS_KEPT:
                self._placements.clear()
            same_site = self.same_site(url)
            found = self._placements[url] = (same_site, same_site and self.contains(url))
        return found

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
