"""The Content Extract of one page (MWIM paper §VIII.1): document properties, token dictionary, structure,
references and images, as plain data."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from itertools import accumulate
from typing import NamedTuple

# Entries of each list (headings, references, images) an extract holds: a 5 MB page (the fetch limit) has
# nowhere near this many; a file claiming more is refused by the decoder, and the generator keeps the first ones.
MAX_LIST_ITEMS = 50_000

# Document property keys, in the paper's order; a content extract may carry others after them.
PROPERTY_KEYS = (
    "title",
    "url",
    "base-url",
    "author",
    "description",
    "keywords",
    "retrieval-date",
    "language",
)

# The rank of a token: the most prominent place it occurs in (the paper's DOM traversal keeps the maximum of the
# enclosing elements' ranks). The full table, with the elements that give each rank, is in docs/ce-format.md.
RANK_TEXT = 0
RANK_LIST = 1
RANK_TABLE = 2
RANK_IMAGE_ALT = 3
RANK_META = 4
RANK_HEADING = 5
RANK_LINK = 6
RANK_TITLE = 7
RANK_NAMES = ("text", "list", "table", "image-alt", "meta", "heading", "link", "title")

# Formatting styles, one bit each; a token's styles are those of any of its occurrences.
STYLE_BOLD = 1
STYLE_ITALIC = 2
STYLE_UNDERLINE = 4
STYLE_STRIKE = 8
STYLE_MONOSPACE = 16
STYLE_SUPERSCRIPT = 32
STYLE_SUBSCRIPT = 64
STYLE_HIGHLIGHT = 128
STYLE_NAMES = ("bold", "italic", "underline", "strike", "monospace", "superscript", "subscript", "highlight")


def style_names(styles: int) -> list[str]:
    return [name for bit, name in enumerate(STYLE_NAMES) if styles >> bit & 1]


class Token(NamedTuple):
    term: str  # the stem, as the page's token filter made it
    count: int
    rank: int
    styles: int
    positions: tuple[int, ...]  # word positions in the page's text, ascending (stop words counted)


class Heading(NamedTuple):
    level: int  # 1..6
    text: str


class Reference(NamedTuple):
    url: str  # absolute
    text: str


class Image(NamedTuple):
    src: str  # absolute
    alt: str


@dataclass
class ContentExtract:
    """One page's extract. The token dictionary is kept in columns (as the file stores it): a reader decodes
    it without making an object per token; `tokens` builds the per-token view on demand."""

    properties: dict[str, str] = field(default_factory=dict)
    terms: list[str] = field(default_factory=list)
    counts: array = field(default_factory=lambda: array("I"))
    ranks: bytes = b""
    styles: bytes = b""
    positions: array = field(default_factory=lambda: array("I"))  # every token's positions, token after token
    headings: list[Heading] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    fingerprint_algorithm: str = "sha256"
    fingerprint: bytes = b""  # digest of the page's body as fetched

    @property
    def fingerprint_text(self) -> str:
        """The fingerprint as the extended sitemap's ce:fingerprint writes it: "sha256:<hex>"."""
        return f"{self.fingerprint_algorithm}:{self.fingerprint.hex()}"

    @property
    def tokens(self) -> list[Token]:
        ends = list(accumulate(self.counts))
        starts = [0, *ends][:-1]  # an extract with no terms (an image-only page) has no tokens
        flat = self.positions.tolist()
        return [
            Token(term, count, rank, style, tuple(flat[start:end]))
            for term, count, rank, style, start, end in zip(
                self.terms, self.counts, self.ranks, self.styles, starts, ends, strict=True
            )
        ]

    def token(self, term: str) -> Token | None:
        for token in self.tokens:
            if token.term == term:
                return token
        return None
