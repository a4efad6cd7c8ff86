"""The eight Soft404Detector heuristics of Prieto et al. (2014, section 4) and a few extras, in one lxml parse."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, fields
from urllib.parse import urlsplit

import numpy as np
from charset_normalizer import from_bytes
from lxml import etree

from sites.crawler.parse import html_parser
from sites.crawler.soft404.phrases import PhraseMatcher, default_matcher

# Paper order first (section 4), then the additions; a model stores these names and refuses other orders.
PAPER_FEATURES = (
    "content_ratio",  # bytes of visible text / bytes of the page
    "title_words",  # words in <title>
    "phrase_hits",  # soft-404 phrase occurrences in title and text, link texts and code left out
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
    # Parked domains, which the paper found in 47% of its soft-404 pages and the probe cannot catch (every URL
    # of a parked host, its root included, is the same page). Their wording ("this domain may be for sale",
    # "related searches") is in no not-found catalog, so it gets its own hand-written list. It is counted per
    # word: a parked page says it once in 30 to 100 words, a news page with a "Sponsored links" box once in
    # 1,300. As a plain count, one hit made a page parked (leave-one-source-out: 3 news pages wrongly flagged).
    "parked_phrase_density",  # parked-domain phrases (data/parked_phrases.json) per word of title and text
    "sponsored_link_ratio",  # share of links marked rel="sponsored" or "nofollow", as advertising feeds are
    # Not-found phrases per word of title and text (issue 11). A count alone made every short page that mentions
    # "not found" once an error page: 121- and 127-word API pages ("returns NULL if the relation is not found"),
    # while a lookup page inside a site's chrome says it once in 50 words. Leave-one-source-out recall 0.820 ->
    # 0.958, and those pages no longer flagged (docs/soft404-classifier.md).
    "phrase_density",
)
FEATURE_NAMES = PAPER_FEATURES + EXTRA_FEATURES

_PAID_RELS = frozenset({"sponsored", "nofollow"})
_KEYWORD_SPLIT = re.compile(r"[,，、;]")
_CHARSET_PROBE = 2048  # bytes searched for a <meta charset>, which libxml2 then honours itself
_DETECTION_SAMPLE = 65536  # bytes given to charset detection, which is slow on large bodies
_ABSOLUTE = ("http", "//")  # only absolute links can leave the host
# Every text node, collected in C and joined with spaces so that "<p>a</p><p>b</p>" reads as two words. libxml2
# evaluates predicates slowly: over 100 python3.11-doc pages (median 1,100 text nodes) this path takes 0.08 ms,
# "text()[not(parent::script or parent::style)]" 0.35 ms and the same with ancestor:: 1.0 ms. So the text of the
# few hidden elements is read by a second path and taken out of the list in Python, which also leaves the tree
# as it was (strip_elements would change it under a caller that reads it afterwards).
# Every XPath evaluation lets go of the GIL, and a crawl's fetch threads then queue to take it back: a page is
# read in a fixed number of evaluations, never one per element (one per heading cost a crawl half its time).
_all_text = etree.XPath("descendant-or-self::text()", smart_strings=False)
# A union lists each node once, so text inside nested hidden elements (a <script> in a <noscript>) counts once.
_hidden_text = etree.XPath(
    ".//script//text() | .//style//text() | .//noscript//text() | .//template//text()", smart_strings=False
)
_heading_text = etree.XPath("//h1//text() | //h2//text()", smart_strings=False)
_hrefs = etree.XPath("//a/@href", smart_strings=False)
# Link texts and quoted code, read in one evaluation: not-found wording in them names another page ("decay
# 404.html", "Error codes") or quotes a program's message (`FATAL: database "testdb" does not exist`, `EXEC SQL
# WHENEVER NOT FOUND`), and is no statement about this page, so their not-found phrases are taken out of its
# count. A union lists each node once, so a link inside <code> counts once.
_quoted_text = etree.XPath(
    "//a//text() | //pre//text() | //code//text() | //kbd//text() | //samp//text() | //tt//text()",
    smart_strings=False,
)
# Any <a> with a rel, href or not: "//a[@href]/@rel" costs three times as much (0.067 against 0.023 ms).
_link_rels = etree.XPath("//a/@rel", smart_strings=False)


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
    parked_phrase_density: float
    sponsored_link_ratio: float
    phrase_density: float

    def vector(self) -> np.ndarray:
        # Every field is a number: `astuple` would deep-copy each one (a third of reading a small page).
        return np.array([getattr(self, name) for name in _FEATURE_NAMES], dtype=np.float64)


_FEATURE_NAMES = tuple(field.name for field in fields(PageFeatures))


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
        return etree.fromstring(html, html_parser(chosen))
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def _host(url: str) -> str:
    host = (urlsplit(url).hostname or "") if url else ""
    return host.removeprefix("www.")


def _offsite(hrefs: list[str], host: str) -> int:
    count = 0
    for href in hrefs:
        if not href.startswith(_ABSOLUTE):
            continue  # relative links stay on the page's host
        href = href.strip()
        if href.startswith("//"):
            target = href[2:]
        elif href[:7].lower() == "http://" or href[:8].lower() == "https://":
            target = href.split("//", 1)[1]
        else:
            continue
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
    return "" if element is None else " ".join(_all_text(element))


def visible_text_nodes(element: etree._Element) -> list[str]:
    """Return the text nodes under `element` that a reader sees: not in script, style, noscript or template."""
    texts = _all_text(element)
    hidden = _hidden_text(element)
    if not hidden:
        return texts
    # Both lists are in document order and the hidden nodes are among all nodes, so each hidden piece is found
    # at or after the previous one. (Should a visible node equal a later hidden one, the visible copy goes
    # instead: the same words, in a slightly different order.)
    kept: list[str] = []
    start = 0
    for piece in hidden:
        at = texts.index(piece, start)
        kept += texts[start:at]
        start = at + 1
    kept += texts[start:]
    return kept


def _fold(text: str) -> str:
    return text.lower() if text.isascii() else text.casefold()  # the same on ASCII, and faster


def _empty(page_bytes: int) -> PageFeatures:
    return PageFeatures(0.0, 0, 0, 0, 0, 0.0, 0, page_bytes, 0, 0, 0.0, 0.0, 0.0, 0.0)


def extract_from_tree(
    root: etree._Element, *, page_bytes: int, url: str = "", matcher: PhraseMatcher | None = None
) -> PageFeatures:
    """Compute every feature of one page from a tree that is already parsed; the tree is only read.

    `root` is the <html> element that `parse()`, `lxml.html.document_fromstring` or `etree.fromstring` with an
    HTMLParser returned, read as it was decoded: parse with the page's charset for the same features as
    `extract()`. Comments and processing instructions are ignored whether the parser kept them or not.
    """
    matcher = matcher or default_matcher()
    title = " ".join(_text(next(root.iter("title"), None)).split())
    description, keywords = _meta(root)
    hrefs = _hrefs(root)
    paid = sum(1 for rel in _link_rels(root) if not _PAID_RELS.isdisjoint(rel.lower().split()))
    headings = " ".join(" ".join(_heading_text(root)).split())
    body = root.find("body")  # a child of <html> whenever libxml2 builds one
    words = " ".join(visible_text_nodes(root if body is None else body)).split()
    text = " ".join(words)
    text_bytes = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    title_words = len(title.split())
    title_hits, title_parked = matcher.counts(_fold(title))
    text_hits, text_parked = matcher.counts(_fold(text))
    if text_hits:  # the phrases of link texts and code (parked wording stays: parked pages say it in links)
        quoted_hits, _ = matcher.counts(_fold(" ".join(" ".join(_quoted_text(root)).split())))
        text_hits = max(0, text_hits - quoted_hits)
    return PageFeatures(
        content_ratio=text_bytes / page_bytes if page_bytes else 0.0,
        title_words=title_words,
        phrase_hits=title_hits + text_hits,
        description_words=len(description.split()),
        images=sum(1 for _ in root.iter("img")),
        # Non-space characters per word: the text joined by single spaces has len(words) - 1 of them.
        avg_word_length=(len(text) - len(words) + 1) / len(words) if words else 0.0,
        keywords=sum(1 for k in _KEYWORD_SPLIT.split(keywords) if k.strip()),
        page_bytes=page_bytes,
        heading_phrase_hits=matcher.count(_fold(headings)),
        text_words=len(words),
        offsite_link_ratio=_offsite(hrefs, _host(url)) / len(hrefs) if hrefs else 0.0,
        parked_phrase_density=(title_parked + text_parked) / (title_words + len(words))
        if title_parked + text_parked
        else 0.0,
        sponsored_link_ratio=min(paid / len(hrefs), 1.0) if hrefs else 0.0,
        phrase_density=(title_hits + text_hits) / max(title_words + len(words), 1),
    )


def extract(
    html: bytes | str, url: str = "", *, encoding: str | None = None, matcher: PhraseMatcher | None = None
) -> PageFeatures:
    """Parse a page once and compute every feature.

    `encoding` is the charset from the HTTP Content-Type, which outranks the page's own <meta>.
    """
    page_bytes = len(html) if isinstance(html, bytes) else len(html.encode("utf-8", "surrogatepass"))
    root = parse(html, encoding)
    if root is None:
        return _empty(page_bytes)
    return extract_from_tree(root, page_bytes=page_bytes, url=url, matcher=matcher)


def feature_vector(html: bytes | str, url: str = "", *, encoding: str | None = None) -> np.ndarray:
    """Return the features of a page as a float64 vector in FEATURE_NAMES order."""
    return extract(html, url, encoding=encoding).vector()
