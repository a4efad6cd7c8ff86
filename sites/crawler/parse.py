"""Extract what a crawl needs from an HTML page in one lxml parse: title, links, canonical, meta robots."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import NamedTuple

import lxml.etree

from sites.crawler.urls import normalize_url

# Anchor texts beyond this are cut: they serve to recognise a link, not to archive the page.
MAX_LINK_TEXT = 500


class ExtractedLink(NamedTuple):
    """A tuple, not a dataclass: a page can hold 17,000 links, each made and then sent between processes."""

    url: str  # normalized absolute URL
    text: str
    tag: str  # "a" or "img"
    nofollow: bool = False


@dataclass
class ParsedPage:
    title: str = ""
    links: list[ExtractedLink] = field(default_factory=list)
    canonical: str = ""
    noindex: bool = False
    nofollow: bool = False
    error: str = ""


def _squash(text: str) -> str:
    return " ".join(text.split())[:MAX_LINK_TEXT]


def element_text(element) -> str:
    """The text inside `element`, as `text_content()` gives it, without releasing the GIL.

    `text_content()` evaluates an XPath, and lxml lets go of the GIL for every evaluation. Called once per
    anchor (17,000 on a Python docs index page) from 16 fetch threads, each call queued its thread behind the
    others for the GIL: 70% of the threads' time went to waiting there. Most anchors hold only text.
    """
    if not len(element):
        return element.text or ""
    return "".join(element.itertext())


_local = threading.local()  # an lxml parser must not be shared between threads


def html_parser(encoding: str | None) -> lxml.etree.HTMLParser:
    """This thread's libxml2 HTML parser for `encoding` (None: the page's BOM or <meta charset>, else sniffed).

    Plain etree elements, not lxml.html's: those are looked up through Python for every element touched.
    Comments and processing instructions are dropped, as neither crawl nor classifier reads them.
    """
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    if encoding not in parsers:
        parsers[encoding] = lxml.etree.HTMLParser(
            encoding=encoding, remove_comments=True, remove_pis=True, no_network=True, collect_ids=False
        )
    return parsers[encoding]


def robots_directives(content: str) -> tuple[bool, bool]:
    """(noindex, nofollow) from a meta robots content or an X-Robots-Tag header value."""
    tokens = {token.strip().lower() for token in content.replace(";", ",").split(",")}
    none = "none" in tokens
    return none or "noindex" in tokens, none or "nofollow" in tokens


def parse_document(body: bytes, encoding: str | None = None):
    """Parse an HTML body once; return (root, "") or (None, the reason it could not be parsed)."""
    if not body or body.isspace():
        return None, "empty body"
    try:
        root = lxml.etree.fromstring(body, html_parser(encoding))
    except (lxml.etree.ParserError, lxml.etree.XMLSyntaxError, ValueError, LookupError) as exc:
        return None, f"unparseable HTML: {exc}"
    if root is None:
        return None, "unparseable HTML"
    return root, ""


FRAMES = ("frame", "iframe")


def parse_html(body: bytes, *, url: str, encoding: str | None = None) -> ParsedPage:
    """Parse an HTML body fetched from `url`; malformed or empty input yields an empty page with `error` set."""
    root, error = parse_document(body, encoding)
    return ParsedPage(error=error) if root is None else extract_page(root, url=url)


def extract_page(root, *, url: str, with_links: bool = True) -> ParsedPage:
    """Title, meta robots, canonical and (unless `with_links` is off) the links of a parsed page."""
    page = ParsedPage()
    base = url
    links = page.links
    # A page repeats many of its references (40% on the python docs: navigation, index entries): each distinct
    # one is resolved once per page.
    targets: dict[str, str | None] = {}
    tags = ("base", "title", "meta", "link", "a", "img", *FRAMES) if with_links else ("title", "meta", "link")
    for element in root.iter(*tags):
        tag = element.tag
        if tag == "a" or tag == "img" or tag in FRAMES:
            reference = element.get("href" if tag == "a" else "src")
            if not reference:
                continue
            target = targets.get(reference, "")
            if target == "":
                target = targets[reference] = normalize_url(reference, base)
            if target is None:
                continue
            if tag == "a":
                rel = element.get("rel")
                nofollow = rel is not None and "nofollow" in rel.lower().split()
                links.append(ExtractedLink(target, _squash(element_text(element)), "a", nofollow))
            elif tag in FRAMES:
                # A frame shows its page inside this one, where a reader goes on from it as from a link: a
                # frameset page (Javadoc before 9) links nothing else, since the parser drops <noframes>.
                links.append(
                    ExtractedLink(target, _squash(element.get("title") or element.get("name") or ""), "a")
                )
            else:
                links.append(ExtractedLink(target, _squash(element.get("alt") or ""), "img"))
        elif tag == "base" and base == url and element.get("href"):
            base = normalize_url(element.get("href", ""), url) or url
            targets.clear()
        elif tag == "title" and not page.title:
            page.title = _squash(element_text(element))
        elif tag == "meta" and (element.get("name") or "").lower() == "robots":
            noindex, nofollow = robots_directives(element.get("content") or "")
            page.noindex |= noindex
            page.nofollow |= nofollow
        elif tag == "link" and "canonical" in (element.get("rel") or "").lower().split():
            page.canonical = normalize_url(element.get("href") or "", base) or page.canonical
    return page
