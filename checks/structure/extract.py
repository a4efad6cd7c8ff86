"""The DOM of a page as its breadth-first sequence of nodes, encoded compactly (the `dom` extract).

Run by the crawl's page readers on every HTML page (docs/analysis-jobs.md, the extractor hook) and by the
backfill over stored bodies. It keeps what every same-relationship of Deng & He (2018, §3.1) and the default
method (docs/structure.md) compare: the tag and attributes of each node of the STORED_TAGS kinds, in BFS
order. The relation, the node kinds (among those stored) and the attribute subset are chosen when a filter
runs, over the stored sequences, so changing them needs no new crawl.

Format, version 1: one version byte, then zlib of
    header      struct "<II": the number of distinct signatures, of nodes
    nodes       uint32s: each node's signature index, in BFS order
    signatures  UTF-8, NUL between signatures: the tag, then each attribute's name and value in document
                order, all separated by US (0x1f); a value longer than LONG_VALUE characters is kept as "#" + its
                CRC-32 in hex (equality is all any relation asks of it); NUL and US inside are dropped
A postgres docs page holds ~44 such nodes and ~18 distinct signatures, a python docs page ~1,000 and ~70, so the
extract is small (docs/benchmarks.md) and decoding costs one split per signature, not per node.
"""

from __future__ import annotations

import struct
import zlib
from array import array
from dataclasses import dataclass

import lxml.etree

VERSION = 1
# Values longer than this are stored as a checksum: long values (URLs, inline styles) are compared, never read.
LONG_VALUE = 48
# The kinds of node stored: the paper's (div, span), the default method's block containers, and the other
# sectioning elements, so that a filter can choose its node kinds among them without a new crawl. Leaving out
# text-level elements (a, p, li, code, td…: 80% of a documentation page's elements) keeps the extraction at a
# few percent of a crawl's CPU (docs/benchmarks.md).
STORED_TAGS = (
    "div", "span", "section", "article", "nav", "header", "footer", "main", "aside", "form",
    "table", "ul", "ol", "dl", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
)  # fmt: skip
# Code is text, not structure: what is inside a pre (kept as one node) or a code element (not kept) is not
# walked. Syntax highlighting puts a span around every token of a code block, ~700 of the ~1,000 stored nodes
# of a python docs page; walking them cost the crawl's readers 15% more time there (docs/benchmarks.md).
TEXT_BLOCKS = frozenset({"pre", "code"})
_WALKED = (*STORED_TAGS, "code")
# A pathological page is cut here rather than slowing its reader (the python docs' biggest page holds 60,000).
MAX_NODES = 200_000
_HEADER = struct.Struct("<II")


class ExtractFormatError(ValueError):
    """The bytes are not a `dom` extract this version can read."""


@dataclass(frozen=True)
class DomSequence:
    """A decoded extract: the page's distinct signatures and its BFS sequence of signature indices."""

    signatures: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (tag, ((name, value), ...))
    nodes: array  # uint32 indices into signatures, BFS order

    def __len__(self) -> int:
        return len(self.nodes)


def bfs_signatures(root) -> tuple[list, list[int]]:
    """One walk over the tree: (distinct signatures in first-seen order, the BFS sequence of their indices).

    The tree is the page's reduced to the STORED_TAGS kinds of node (the paper's Table 2 reduces it to div and
    span the same way): a node's depth is the number of such nodes above it. A signature is the tag alone, or
    (tag, (name, value), ...). The walk is lxml's iterwalk filtered by tag, in C, with the depth counted from
    its start and end events; each node goes to its depth's list, and the lists end to end are the BFS order.
    Only the nodes kept cost Python work: 0.1 ms a postgres docs page (44 such nodes), 1 ms a python docs page
    (~1,000, mostly highlighting spans), against 2.7 ms for a BFS queue over every element.
    """
    index: dict = {}
    get = index.get
    levels: list[list[int]] = [[]]
    depth = nodes = 0
    in_code = False
    walk = lxml.etree.iterwalk(root, events=("start", "end"), tag=_WALKED)
    for event, element in walk:
        if event == "end":
            if in_code:  # the end of the code element just skipped (it has no node of its own)
                in_code = False
            else:
                depth -= 1
            continue
        tag = element.tag
        if tag in TEXT_BLOCKS:
            walk.skip_subtree()
            if tag == "code":
                in_code = True
                continue
        depth += 1
        if depth == len(levels):
            levels.append([])
        items = element.items()
        signature = (tag, *items) if items else tag
        position = get(signature)
        if position is None:
            position = index[signature] = len(index)
        levels[depth - 1].append(position)
        nodes += 1
        if nodes >= MAX_NODES:
            break
    return list(index), [position for level in levels for position in level]


def _clean(text: str) -> str:
    return text.replace("\x00", "").replace("\x1f", "") if "\x00" in text or "\x1f" in text else text


def _signature_text(signature) -> str:
    if signature.__class__ is str:
        return _clean(signature)
    parts = [_clean(signature[0])]
    for name, value in signature[1:]:
        if len(value) > LONG_VALUE:
            value = f"#{zlib.crc32(value.encode('utf-8', 'surrogatepass')):08x}"
        parts.append(_clean(name))
        parts.append(_clean(value))
    return "\x1f".join(parts)


def encode(signatures: list, sequence: list[int]) -> bytes:
    text = "\x00".join([_signature_text(signature) for signature in signatures])
    payload = _HEADER.pack(len(signatures), len(sequence)) + array("I", sequence).tobytes()
    return bytes([VERSION]) + zlib.compress(payload + text.encode("utf-8", "surrogatepass"), 1)


def dom_keys(root, *, url: str, body: bytes) -> bytes:
    """The `dom` extractor: the page's BFS node sequence, encoded. A page without stored nodes gets an empty
    sequence, not None: it has been read, and a backfill must not read it again."""
    return encode(*bfs_signatures(root))


def decode(data: bytes) -> DomSequence:
    """Read an extract written by `dom_keys`; raises ExtractFormatError on anything else."""
    if not data or data[0] != VERSION:
        raise ExtractFormatError(f"not a version {VERSION} dom extract")
    try:
        payload = zlib.decompress(data[1:])
        n_signatures, n_nodes = _HEADER.unpack_from(payload)
        end = _HEADER.size + 4 * n_nodes
        nodes = array("I")
        nodes.frombytes(payload[_HEADER.size : end])
        texts = payload[end:].decode("utf-8", "surrogatepass").split("\x00") if n_signatures else []
        signatures = []
        for text in texts:
            tag, *rest = text.split("\x1f")
            signatures.append((tag, tuple(zip(rest[::2], rest[1::2], strict=True))))
    except (zlib.error, struct.error, ValueError, UnicodeDecodeError) as exc:
        raise ExtractFormatError(f"corrupt dom extract: {exc}") from None
    if len(signatures) != n_signatures or len(nodes) != n_nodes or (nodes and max(nodes) >= n_signatures):
        raise ExtractFormatError("corrupt dom extract: sizes do not match")
    return DomSequence(tuple(signatures), nodes)
