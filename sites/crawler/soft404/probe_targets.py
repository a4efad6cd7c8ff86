"""Which random URL probes a page: its directory, its lookup's query, or the identifier in its path.

Bar-Yossef et al. (2004, section 3) ask the page's parent directory for a random name. A site that answers an
unknown path honestly (404) may still answer an unknown *lookup* with 200: `/product?id=98765`,
`/article.php?slug=old-news`, `/item/98765`, `/p/some-slug`. There the directory probe sees an honest server.
So, in the spirit of the paper, such a page is compared with the same lookup for a value that almost surely does
not exist:

- a **query probe** for a URL with a query string: the same path with the value of each parameter replaced by
  random letters (tracking parameters dropped, presentation parameters kept as they were), one probe per path
  and set of parameter names;
- an **identifier probe** for a path whose segment looks like an identifier (digits, a hexadecimal id or a
  UUID, or a slug as the last segment): that segment replaced by a random one of the same shape, one probe
  per path pattern (`/item/{n}/reviews`);
- the **directory probe** otherwise.

Pure: no fetching here. The key names the probe in the crawl's probe store (`DirectoryProbe.directory`): a
directory ends in "/" and has no query, a query key has a "?", an identifier key a "{", so they never collide.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from sites.crawler.soft404.probe import PROBE_NAME_LENGTH, is_site_root, parent_directory, probe_url

DIRECTORY, QUERY, IDENTIFIER = "directory", "query", "identifier"
# Parameters a site never looks anything up by: analytics and ad click identifiers. They are left out of the
# probe URL and of the key, so a tracked link costs no probe of its own and cannot make a page a soft-404.
TRACKING_PARAMETERS = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "msclkid",
        "yclid",
        "twclid",
        "ttclid",
        "li_fat_id",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "ref",
        "ref_src",
        "referrer",
        "source",
        "spm",
        "scid",
        "s_kwcid",
        "trk",
        "wt.mc_id",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "rb_clickid",
    }
)
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_", "matomo_")
# Parameters that change how a page is presented, not what it is: their values stay as they were in the probe,
# because a server answers a junk page number or sort order with its default presentation of the same content
# (`?sort=date` against `?sort=<junk>` lists the same items). A URL with only these gets the directory probe.
PRESENTATION_PARAMETERS = frozenset(
    {
        "page",
        "pg",
        "paged",
        "sort",
        "sortby",
        "sort_by",
        "order",
        "orderby",
        "order_by",
        "dir",
        "direction",
        "view",
        "display",
        "layout",
        "mode",
        "format",
        "output",
        "lang",
        "language",
        "hl",
        "locale",
        "limit",
        "per_page",
        "perpage",
        "page_size",
        "pagesize",
        "size",
        "count",
        "offset",
        "start",
        "from",
        "theme",
        "print",
        "printable",
        "highlight",
        "v",
        "ver",
        "version",
        "rev",
        "cb",
        "nocache",
        "_",
        "t",
        "ts",
        "amp",
        "embed",
        "tab",
        "zoom",
        "currency",
        "unit",
        "units",
        "region",
        "country",
    }
)
# Files a web server sends as they are, whatever the query: `/docs/intro.html?x=1` is `/docs/intro.html`, and its
# query probe would answer with the very same page (a soft-404 by resemblance). Such URLs get the directory probe.
# Lookups are served by programs: `/page`, `/product.php`, `/item.aspx`, `/cgi-bin/find.cgi`.
STATIC_EXTENSIONS = frozenset(
    {"html", "htm", "xhtml", "shtml", "txt", "md", "xml", "json", "pdf", "css", "js", "png", "jpg", "jpeg"}
    | {"gif", "svg", "webp", "ico", "zip", "gz", "tar", "csv", "rss", "atom"}
)
# A query naming more parameters than this to look up is no lookup (a form dump, a filter builder, junk): it gets
# the directory probe rather than a probe per combination.
MAX_LOOKUP_PARAMETERS = 8
# Longer queries are not looked at at all (a crafted URL with thousands of parameters costs one split, no more).
MAX_QUERY_CHARS = 4096
_DIGITS = re.compile(r"[0-9]{2,20}")
_HEX_ID = re.compile(r"(?=[0-9a-f-]*[0-9])(?=[0-9a-f-]*[a-f])[0-9a-f]{8,}(?:-[0-9a-f]{4,}){0,4}", re.I)
_SLUG = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+){1,12}")


@dataclass(frozen=True)
class ProbeTarget:
    """The probe a page gets: its kind, the key it is shared under, and how to build its random URL."""

    kind: str
    key: str
    page_url: str
    names: tuple[str, ...] = ()  # QUERY: the parameters whose values are replaced
    segment: int = -1  # IDENTIFIER: the index of the path segment replaced

    @property
    def scope_url(self) -> str:
        """A URL that robots.txt must allow before the probe is fetched: where the random URL lies."""
        if self.kind == QUERY:
            parts = urlsplit(self.page_url)
            return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", "", ""))
        if self.kind == IDENTIFIER:
            return self.key.replace("{", "").replace("}", "")
        return self.key

    def url(self, rng: random.Random) -> str:
        """The random URL that almost surely names nothing, built like this target's page."""
        if self.kind == QUERY:
            return _query_probe_url(self.page_url, set(self.names), rng)
        if self.kind == IDENTIFIER:
            parts = urlsplit(self.page_url)
            segments = parts.path.split("/")
            segments[self.segment] = random_like(segments[self.segment], rng)
            return urlunsplit((parts.scheme, parts.netloc, "/".join(segments), "", ""))
        return probe_url(self.page_url, rng)

    def is_root(self) -> bool:
        """Table 1's site-root rule: a root with a lookup query (`/?id=7`) is a lookup, judged like any other."""
        return self.kind == DIRECTORY and is_site_root(self.page_url)


def _pairs(query: str) -> list[tuple[str, str]]:
    """Split a query into (name, value) as written (percent-encoding kept: bytes that are not UTF-8 stay)."""
    pairs = []
    for item in query[:MAX_QUERY_CHARS].split("&"):
        if item:
            name, _, value = item.partition("=")
            pairs.append((name, value))
    return pairs


def parameter_role(name: str) -> str:
    """ "tracking", "presentation" or "lookup" for a parameter name as written in a URL."""
    plain = unquote(name, errors="replace").strip().lower().rstrip("[]")
    if plain in TRACKING_PARAMETERS or plain.startswith(TRACKING_PREFIXES):
        return "tracking"
    if plain in PRESENTATION_PARAMETERS:
        return "presentation"
    return "lookup"


def is_static_file(path: str) -> bool:
    """Whether a path names a static file (`/docs/intro.html`), whose server ignores any query it is given."""
    name = path.rsplit("/", 1)[-1].lower()
    return "." in name and name.rsplit(".", 1)[1] in STATIC_EXTENSIONS


def lookup_names(url: str) -> tuple[str, ...]:
    """The distinct lookup parameters of `url`'s query, sorted; () when it has none, too many to be a lookup,
    or names a static file."""
    parts = urlsplit(url)
    query = parts.query
    if not query or len(query) > MAX_QUERY_CHARS or is_static_file(parts.path):
        return ()
    names = sorted({name for name, _ in _pairs(query) if name and parameter_role(name) == "lookup"})
    return tuple(names) if len(names) <= MAX_LOOKUP_PARAMETERS else ()


def _query_probe_url(page_url: str, names: set[str], rng: random.Random) -> str:
    parts = urlsplit(page_url)
    values = {name: random_letters(rng) for name in sorted(names)}  # a repeated key gets one value
    kept = []
    for name, value in _pairs(parts.query):
        role = parameter_role(name)
        if role == "tracking":
            continue
        kept.append(f"{name}={values[name]}" if name in values else (f"{name}={value}" if value else name))
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", "&".join(kept), ""))


def random_letters(rng: random.Random, length: int = PROBE_NAME_LENGTH) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(length))


def identifier_shape(segment: str, *, last: bool) -> str | None:
    """ "n" (digits), "hex" (a hexadecimal id or UUID), "slug" (last segment only), or None."""
    if not segment or "." in segment or "%" in segment:
        return None
    if _DIGITS.fullmatch(segment):
        return "n"
    if _HEX_ID.fullmatch(segment):
        return "hex"
    if last and _SLUG.fullmatch(segment) and any(c.isalpha() for c in segment):
        return "slug"
    return None


def random_like(segment: str, rng: random.Random) -> str:
    """A random segment of the same shape: digits beyond any sequence a site has reached, hex of the same
    layout, or a slug of three random words."""
    shape = identifier_shape(segment, last=True)
    if shape == "n":
        return "9" + "".join(rng.choice(string.digits) for _ in range(max(11, len(segment))))
    if shape == "hex":
        return "".join(rng.choice("0123456789abcdef") if c != "-" else "-" for c in segment.lower())
    separator = "_" if "_" in segment and "-" not in segment else "-"
    return separator.join(random_letters(rng, 7) for _ in range(3))


def _identifier_segment(path: str) -> tuple[int, str] | None:
    segments = path.split("/")
    last = len(segments) - 1 if segments[-1] else len(segments) - 2  # /p/some-slug/ ends in an empty segment
    for index in range(last, 0, -1):
        shape = identifier_shape(segments[index], last=index == last)
        if shape:
            return index, shape
    return None


def probe_target(url: str) -> ProbeTarget:
    """The probe for `url`: query probe, identifier probe or directory probe (see the module's docstring)."""
    parts = urlsplit(url)
    names = lookup_names(url)
    if names:
        path = parts.path or "/"
        key = urlunsplit((parts.scheme, parts.netloc, path, "&".join(names), ""))
        return ProbeTarget(QUERY, key, url, names=names)
    found = _identifier_segment(parts.path)
    if found:
        index, shape = found
        segments = parts.path.split("/")
        segments[index] = "{" + shape + "}"
        key = urlunsplit((parts.scheme, parts.netloc, "/".join(segments), "", ""))
        return ProbeTarget(IDENTIFIER, key, url, segment=index)
    return ProbeTarget(DIRECTORY, parent_directory(url), url)


def kind_of_key(key: str) -> str:
    """The kind of probe a stored key names."""
    if "?" in key:
        return QUERY
    if "{" in key:
        return IDENTIFIER
    return DIRECTORY
