"""Build a page's Content Extract from its parsed tree in one depth-first walk: the MWIM paper's scraping
algorithm and HTML DOM traversal (§IX.1.A) with its tokenizer, token filter and aggregator (§IX.1.B)."""

from __future__ import annotations

import hashlib
import re
from array import array
from datetime import UTC, datetime

import lxml.etree

from mwim.ce import model
from mwim.ce.filters import token_filter
from sites.crawler.parse import element_text
from sites.crawler.urls import normalize_url

# The paper's tokenizer: a token starts with a letter (a digit before any letter is discarded), goes on through
# letters and digits, and ends at any other character. Unicode letters count, so any script tokenizes.
WORD = re.compile(r"[^\W\d_][^\W_]*")
CONTINUATION = re.compile(r"[^\W_]+")  # the rest of a word an inline element split ("foo<b>bar</b>")

# Rank of an element's text (the table in docs/ce-format.md); a text's rank is the highest among its ancestors.
RANKS = {
    "li": model.RANK_LIST,
    "dt": model.RANK_LIST,
    "dd": model.RANK_LIST,
    "th": model.RANK_TABLE,
    "td": model.RANK_TABLE,
    "caption": model.RANK_TABLE,
    "figcaption": model.RANK_TABLE,
    "h1": model.RANK_HEADING,
    "h2": model.RANK_HEADING,
    "h3": model.RANK_HEADING,
    "h4": model.RANK_HEADING,
    "h5": model.RANK_HEADING,
    "h6": model.RANK_HEADING,
    "a": model.RANK_LINK,
    "title": model.RANK_TITLE,
}
STYLES = {
    "b": model.STYLE_BOLD,
    "strong": model.STYLE_BOLD,
    "i": model.STYLE_ITALIC,
    "em": model.STYLE_ITALIC,
    "cite": model.STYLE_ITALIC,
    "dfn": model.STYLE_ITALIC,
    "var": model.STYLE_ITALIC,
    "u": model.STYLE_UNDERLINE,
    "ins": model.STYLE_UNDERLINE,
    "s": model.STYLE_STRIKE,
    "strike": model.STYLE_STRIKE,
    "del": model.STYLE_STRIKE,
    "code": model.STYLE_MONOSPACE,
    "tt": model.STYLE_MONOSPACE,
    "kbd": model.STYLE_MONOSPACE,
    "samp": model.STYLE_MONOSPACE,
    "pre": model.STYLE_MONOSPACE,
    "sup": model.STYLE_SUPERSCRIPT,
    "sub": model.STYLE_SUBSCRIPT,
    "mark": model.STYLE_HIGHLIGHT,
}
# Text that is not the page's content: never tokenized (their tails are).
SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "math", "iframe", "object", "select"})
# Elements that are not inline: a word never runs across their boundaries.
INLINE = frozenset(
    {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "mark", "q", "s", "samp",
     "small", "span", "strong", "sub", "sup", "time", "tt", "u", "var", "del", "ins", "strike", "font", "label"}
)  # fmt: skip
SKIP, HEAD, HEADING, LINK, IMAGE = "skip", "head", "heading", "link", "image"
SPECIAL = {"head": HEAD, "a": LINK, "img": IMAGE} | dict.fromkeys(SKIPPED, SKIP)
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
SPECIAL |= dict.fromkeys(HEADINGS, HEADING)
# Every tag that is inline, ranks, styles or needs reading: (rank, styles, inline, special reading).
TAGS = {
    tag: (RANKS.get(tag, 0), STYLES.get(tag, 0), tag in INLINE, SPECIAL.get(tag, ""))
    for tag in {*RANKS, *STYLES, *INLINE, *SPECIAL}
}
META_PROPERTIES = {"author": "author", "description": "description", "keywords": "keywords"}
# Enough to know a heading, a link or an image: they describe the page, they do not archive it.
MAX_TEXT = 300


def _squash(text: str) -> str:
    return " ".join(text.split())[:MAX_TEXT]


class _Aggregator:
    """The paper's aggregator: words in, per-word positions, highest rank and styles out. Every word is
    aggregated, stop words too; the filter runs once per distinct word at the end, not once per occurrence."""

    def __init__(self) -> None:
        self.position = 0
        self.words: dict[str, list] = {}  # word -> [positions, rank, styles]
        self.pending: tuple[str, int, int] | None = None  # a word an inline element may continue

    def feed(self, text: str, rank: int, style: int) -> None:
        if text.isspace():  # most texts of a page: the line breaks between its elements
            if self.pending is not None:
                self._add(*self.pending)
                self.pending = None
            return
        text = text.lower()
        start = 0
        if self.pending is not None:
            word, pending_rank, pending_style = self.pending
            self.pending = None
            match = CONTINUATION.match(text)
            if match is not None:
                word += match.group()
                pending_rank, pending_style = max(rank, pending_rank), style | pending_style
                start = match.end()
                if start == len(text):  # the word may go on in the next text still
                    self.pending = (word, pending_rank, pending_style)
                    return
            self._add(word, pending_rank, pending_style)
        matches = WORD.findall(text, start)
        if not matches:
            return
        if text[-1].isalnum() and text.endswith(matches[-1]):
            self.pending = (matches.pop(), rank, style)
        words, position = self.words, self.position
        for word in matches:
            entry = words.get(word)
            if entry is None:
                words[word] = [[position], rank, style]
            else:
                entry[0].append(position)
                if rank > entry[1]:
                    entry[1] = rank
                if style:
                    entry[2] |= style
            position += 1
        self.position = position

    def _add(self, word: str, rank: int, style: int) -> None:
        entry = self.words.get(word)
        if entry is None:
            self.words[word] = [[self.position], rank, style]
        else:
            entry[0].append(self.position)
            entry[1] = max(entry[1], rank)
            entry[2] |= style
        self.position += 1

    def end_word(self) -> None:
        if self.pending is not None:
            self._add(*self.pending)
            self.pending = None


def content_extract_build(
    root, *, url: str, body: bytes, retrieved: datetime | None = None
) -> model.ContentExtract:
    """The Content Extract of the page `body` fetched from `url`, parsed as `root` (sites.crawler.parse)."""
    properties = {"title": "", "url": url, "base-url": url}
    language = root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang") or ""
    headings, references, images, metas = [], [], [], {}
    resolved: dict[str, str | None] = {}
    base = url

    def absolute(reference: str) -> str | None:
        target = resolved.get(reference, "")
        if target == "":
            target = resolved[reference] = normalize_url(reference, base)
        return target

    # The filter depends on the language, which <html lang> gives before any text; a <meta> language later
    # names only the property.
    filter_ = token_filter(language)
    aggregator = _Aggregator()
    feed, end_word = aggregator.feed, aggregator.end_word
    # (rank, style, inline) of each open element; one dict lookup per element decides what it does.
    stack: list[tuple[int, int, bool]] = [(model.RANK_TEXT, 0, False)]
    walk = lxml.etree.iterwalk(root, events=("start", "end"))
    for event, element in walk:
        if event == "end":
            if not stack.pop()[2]:
                end_word()
            tail = element.tail
            if tail:
                rank, style, _ = stack[-1]
                feed(tail, rank, style)
            continue
        tag = element.tag
        rank, style, _ = stack[-1]
        action = TAGS.get(tag)
        if action is None:  # a block element that changes nothing (p, div, ...), or a comment
            end_word()
            stack.append((rank, style, False))
            if type(tag) is not str:
                walk.skip_subtree()  # a comment's or processing instruction's text is not content
                continue
        else:
            tag_rank, tag_style, inline, kind = action
            if not inline:
                end_word()
            if tag_rank > rank:
                rank = tag_rank
            style |= tag_style
            stack.append((rank, style, inline))
            if kind:
                if kind == SKIP:
                    walk.skip_subtree()
                    continue
                if kind == HEAD:
                    _read_head(element, properties, metas, aggregator)
                    base = properties["base-url"]
                    walk.skip_subtree()
                    continue
                if kind == HEADING:
                    headings.append(model.Heading(HEADINGS[tag], _squash(element_text(element))))
                elif kind == LINK:
                    href = element.get("href")
                    target = absolute(href) if href else None
                    if target:
                        references.append(model.Reference(target, _squash(element_text(element))))
                elif kind == IMAGE:
                    _read_image(element, absolute, images, aggregator, rank, style)
        text = element.text
        if text:
            feed(text, rank, style)
    aggregator.end_word()
    for key in ("description", "keywords"):
        if metas.get(key):
            aggregator.feed(metas[key], model.RANK_META, 0)
            aggregator.end_word()
    properties.update(metas)
    properties["retrieval-date"] = (retrieved or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    properties["language"] = properties.get("language") or language
    properties["token-filter"] = filter_.name
    extract = model.ContentExtract(
        properties={key: properties.get(key, "") for key in (*model.PROPERTY_KEYS, "token-filter")},
        headings=headings[: model.MAX_LIST_ITEMS],
        references=references[: model.MAX_LIST_ITEMS],
        images=images[: model.MAX_LIST_ITEMS],
        fingerprint=hashlib.sha256(body).digest(),
    )
    _fill_tokens(extract, aggregator.words, filter_)
    return extract


def _read_image(element, absolute, images: list, aggregator: _Aggregator, rank: int, style: int) -> None:
    src = element.get("src")
    target = absolute(src) if src else None
    alt = element.get("alt") or ""
    if target:
        images.append(model.Image(target, _squash(alt)))
    if alt:
        aggregator.end_word()
        aggregator.feed(alt, max(rank, model.RANK_IMAGE_ALT), style)
        aggregator.end_word()


def _read_head(head, properties: dict, metas: dict, aggregator: _Aggregator) -> None:
    """Title, base, and the author, description, keywords and language metadata (the paper's scraping step)."""
    for element in head.iter("title", "meta", "base"):
        tag = element.tag
        if tag == "title" and not properties["title"]:
            properties["title"] = _squash(element_text(element))
            aggregator.feed(properties["title"], model.RANK_TITLE, 0)
            aggregator.end_word()
        elif tag == "base" and element.get("href"):
            properties["base-url"] = (
                normalize_url(element.get("href") or "", properties["url"]) or properties["url"]
            )
        elif tag == "meta":
            name = (element.get("name") or element.get("http-equiv") or "").lower()
            content = " ".join((element.get("content") or "").split())
            if name in META_PROPERTIES and content and not metas.get(name):
                metas[META_PROPERTIES[name]] = content[:2000]
            elif name == "content-language" and content:
                metas["language"] = content[:40]


def _fill_tokens(extract: model.ContentExtract, words: dict[str, list], filter_) -> None:
    """Merge the words that share a stem into one token each, sorted by term."""
    keep = filter_.keep
    words = {word: entry for word, entry in words.items() if keep(word)}
    stems = filter_.stems(list(words))
    tokens: dict[str, list] = {}
    for word, (positions, rank, style) in words.items():
        stem = stems[word]
        entry = tokens.get(stem)
        if entry is None:
            tokens[stem] = [positions, rank, style, False]
        else:
            entry[0] = entry[0] + positions
            entry[1] = max(entry[1], rank)
            entry[2] |= style
            entry[3] = True  # merged: positions need sorting
    counts, ranks, styles, flat = array("I"), bytearray(), bytearray(), array("I")
    terms = sorted(tokens)
    for term in terms:
        positions, rank, style, merged = tokens[term]
        if merged:
            positions.sort()
        counts.append(len(positions))
        ranks.append(rank)
        styles.append(style)
        flat.extend(positions)
    extract.terms, extract.counts, extract.ranks, extract.styles, extract.positions = (
        terms, counts, bytes(ranks), bytes(styles), flat,
    )  # fmt: skip
