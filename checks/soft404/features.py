"""The eight Soft404Detector heuristics of Prieto et al. (2014, section 4) and a few extras, in one lxml parse."""

from __future__ import annotations

import codecs
import re
import threading
from dataclasses import astuple, dataclass
from urllib.parse import urlsplit

import numpy as np
from charset_normalizer import from_bytes
from lxml import etree

from checks.soft404.phrases import PhraseMatcher, default_matcher

# Paper order first (section 4), then the additions; a model stores these names and refuses other orders.
PAPER_FEATURES = (
    "content_ratio",  # bytes of visible text / bytes of the page
    "title_words",  # words in <title>
    "phrase_hits",  # soft-404 phrase occurrences in title and text
    "description_words",  # words in <meta name="description">
    "images",  # <img> elements
    "avg_word_length",  # mean characters per word of the visible text
    "keywords",  # comma-separated entries of <meta name="keywords">
    "page_bytes",  # size of the page
)
# Additions, kept by leave-one-source-out cross-validation on the corpus (a source's pages are never both in
# training and test). Mean soft-404 F1 of C4.5, bagging and boosting: the paper's 8 alone 0.86; adding
# heading_phrase_hits 0.985; adding text_words too 0.997. Phrase hits in the title alone (0.963 with headings)
# and the number of links (0.978) made it worse and were dropped.
EXTRA_FEATURES = (
    "heading_phrase_hits",  # phrases in <h1>/<h2>, where error pages inside a site template state the error
    "text_words",  # words of visible text, the absolute amount that the ratio hides on template-heavy pages
    # Share of links to other hosts: parked pages may link out to advertisers. Neutral on the real pages (0.997
    # with or without); kept for the parked pages, which have no real examples offline to measure it on.
    "offsite_link_ratio",
)
FEATURE_NAMES = PAPER_FEATURES + EXTRA_FEATURES

_INVISIBLE = ("script", "style", "noscript", "template")
_KEYWORD_SPLIT = re.compile(r"[,，、;]")
_CHARSET_PROBE = 2048  # bytes searched for a <meta charset>, which libxml2 then honours itself
_DETECTION_SAMPLE = 65536  # bytes given to charset detection, which is slow on large bodies
_link_count = etree.XPath("count(//a[@href])")
# Only absolute links can leave the host; XPath picks them in C, so Python sees a handful per page instead of
# every link (python3.11-doc pages have hundreds of relative ones).
_absolute_hrefs = etree.XPath(
    "//a/@href[starts-with(., 'http') or starts-with(., '//')]",
    smart_strings=False,
)
# The text nodes, collected in C and joined with spaces so that "<p>a</p><p>b</p>" reads as two words.
# Median over 106 python3.11-doc pages, split into words included: 0.23 ms, as fast as XPath string()
# (0.25 ms, which glues "ab"); tostring(method="text") 0.37 ms; itertext() 0.74 ms before any split.
_text_nodes = etree.XPath("descendant-or-self::text()", smart_strings=False)
_local = threading.local()  # lxml parsers must not be shared between threads


@dataclass(frozen=True, slots=True)
class PageFeatures:
    content_ratio: float
    title_words: int
    phrase_hits: int
    description_words: int
    images: int
    avg_word_length: float
    keywords: int
    page_bytes: int
    heading_phrase_hits: int
    text_words: int
    offsite_link_ratio: float

    def vector(self) -> np.ndarray:
        return np.array(astuple(self), dtype=np.float64)


def _parser(encoding: str | None) -> etree.HTMLParser:
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    if encoding not in parsers:
        parsers[encoding] = etree.HTMLParser(
            encoding=encoding, remove_comments=True, remove_pis=True, no_network=True, collect_ids=False
        )
    return parsers[encoding]


def _known_encoding(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _sniff_encoding(html: bytes) -> str | None:
    """Pick the encoding to tell libxml2, or None to let it read a BOM or <meta charset> itself."""
    head = html[:_CHARSET_PROBE]
    if (
        head.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        or b"charset" in head.lower()
    ):
        return None
    try:
        html.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        best = from_bytes(html[:_DETECTION_SAMPLE]).best()
        return _known_encoding(best.encoding if best else None) or "windows-1252"


def parse(html: bytes | str, encoding: str | None = None) -> etree._Element | None:
    """Parse a page with libxml2's HTML parser; None for an empty or unparseable document."""
    if isinstance(html, str):
        html, encoding = html.encode("utf-8", "surrogatepass"), "utf-8"
    chosen = _known_encoding(encoding) or _sniff_encoding(html)
    try:
        return etree.fromstring(html, _parser(chosen))
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def _host(url: str) -> str:
    host = (urlsplit(url).hostname or "") if url else ""
    return host.removeprefix("www.")


def _offsite(hrefs: list[str], host: str) -> int:
    count = 0
    for href in hrefs:
        href = href.strip()
        if href.startswith("//"):
            target = href[2:]
        elif href[:7].lower() == "http://" or href[:8].lower() == "https://":
            target = href.split("//", 1)[1]
        else:
            continue  # relative links stay on the page's host
        target = target.split("/", 1)[0].split(":", 1)[0].lower().removeprefix("www.")
        if target != host:
            count += 1
    return count


def _meta(root: etree._Element) -> tuple[str, str]:
    description = keywords = ""
    for meta in root.iter("meta"):
        name = (meta.get("name") or "").strip().lower()
        if name == "description" and not description:
            description = meta.get("content") or ""
        elif name == "keywords" and not keywords:
            keywords = meta.get("content") or ""
    return description, keywords


def _text(element: etree._Element | None) -> str:
    return "" if element is None else " ".join(_text_nodes(element))


def extract(
    html: bytes | str, url: str = "", *, encoding: str | None = None, matcher: PhraseMatcher | None = None
) -> PageFeatures:
    """Compute every feature of one page from a single parse.

    `encoding` is the charset from the HTTP Content-Type, which outranks the page's own <meta>.
    """
    page_bytes = len(html) if isinstance(html, bytes) else len(html.encode("utf-8", "surrogatepass"))
    root = parse(html, encoding)
    if root is None:
        return PageFeatures(0.0, 0, 0, 0, 0, 0.0, 0, page_bytes, 0, 0, 0.0)
    matcher = matcher or default_matcher()
    title = " ".join(_text(next(root.iter("title"), None)).split())
    description, keywords = _meta(root)
    images = sum(1 for _ in root.iter("img"))
    links = int(_link_count(root))
    absolute = _absolute_hrefs(root)
    headings = " ".join(_text(h) for h in root.iter("h1", "h2"))
    etree.strip_elements(root, *_INVISIBLE, with_tail=False)
    body = root.find("body")  # a child of <html> whenever libxml2 builds one
    words = _text(root if body is None else body).split()
    text = " ".join(words)
    text_bytes = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    return PageFeatures(
        content_ratio=text_bytes / page_bytes if page_bytes else 0.0,
        title_words=len(title.split()),
        phrase_hits=matcher.count(title.casefold()) + matcher.count(text.casefold()),
        description_words=len(description.split()),
        images=images,
        # Non-space characters per word: the text joined by single spaces has len(words) - 1 of them.
        avg_word_length=(len(text) - len(words) + 1) / len(words) if words else 0.0,
        keywords=sum(1 for k in _KEYWORD_SPLIT.split(keywords) if k.strip()),
        page_bytes=page_bytes,
        heading_phrase_hits=matcher.count(" ".join(headings.split()).casefold()),
        text_words=len(words),
        offsite_link_ratio=_offsite(absolute, _host(url)) / links if links else 0.0,
    )


def feature_vector(html: bytes | str, url: str = "", *, encoding: str | None = None) -> np.ndarray:
    """Return the features of a page as a float64 vector in FEATURE_NAMES order."""
    return extract(html, url, encoding=encoding).vector()
