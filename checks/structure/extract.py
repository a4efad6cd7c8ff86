"""The DOM of a page as its breadth-first sequence of element nodes, encoded compactly (the `dom` extract).

Run by the crawl's page readers on every HTML page (docs/analysis-jobs.md, the extractor hook) and by the
backfill over stored bodies. It keeps what every same-relationship of Deng & He (2018, §3.1) and the default
method (docs/structure.md) compare: each element's tag and attributes, in BFS order. The relation, the tag set
and the attribute subset are chosen when a filter runs, over the stored sequences, so changing them needs no
new crawl.

Format, version 1: one version byte, then zlib of
    header   struct "<IIII": number of strings, bytes of strings, number of signatures, of nodes
    strings  UTF-8, each ended by a NUL byte: tags, attribute names and values (a value longer than
             LONG_VALUE characters is kept as "#" + its CRC-32 in hex: equality is all any relation asks)
    signatures  uint32s: per distinct (tag, attributes) of the page, the tag's string, the number of
             attributes, then each attribute's name and value strings, in document order
    nodes    uint32s: the signature of each element, in BFS order
A documentation page of ~800 elements holds ~100 distinct signatures, so the extract is small (measured in
docs/benchmarks.md) and decoding costs one dict look-up per signature, not per node.
"""

from __future__ import annotations

import struct
import zlib
from array import array
from dataclasses import dataclass

VERSION = 1
# Values longer than this are stored as a checksum: long values (URLs, inline styles) are compared, never read.
LONG_VALUE = 48
# A pathological page is cut here rather than slowing its reader (the python docs' biggest page holds 60,000).
MAX_NODES = 200_000
_HEADER = struct.Struct("<IIII")


class ExtractFormatError(ValueError):
    """The bytes are not a `dom` extract this version can read."""


@dataclass(frozen=True)
class DomSequence:
    """A decoded extract: the page's distinct signatures and its BFS sequence of signature indices."""

    signatures: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (tag, ((name, value), ...))
    nodes: array  # uint32 indices into signatures, BFS order

    def __len__(self) -> int:
        return len(self.nodes)


def bfs_signatures(root) -> tuple[list[tuple[str, tuple]], list[int]]:
    """Walk the tree breadth first once: (distinct signatures in first-seen order, the BFS index sequence)."""
    index: dict[tuple, int] = {}
    sequence: list[int] = []
    append = sequence.append
    level = [root]
    while level and len(sequence) < MAX_NODES:
        following: list = []
        extend = following.extend
        for element in level:
            tag = element.tag
            if tag.__class__ is not str:  # comments, processing instructions, entities
                continue
            signature = (tag, tuple(element.items())) if element.attrib else (tag, ())
            position = index.get(signature)
            if position is None:
                position = index[signature] = len(index)
            append(position)
            extend(element)
        level = following
    del sequence[MAX_NODES:]
    return list(index), sequence


def _stored(value: str) -> str:
    if len(value) > LONG_VALUE:
        return f"#{zlib.crc32(value.encode('utf-8', 'surrogatepass')):08x}"
    return value.replace("\x00", "")


def encode(signatures: list[tuple[str, tuple]], sequence: list[int]) -> bytes:
    strings: dict[str, int] = {}
    words = array("I")
    for tag, attributes in signatures:
        words.append(strings.setdefault(tag.replace("\x00", ""), len(strings)))
        words.append(len(attributes))
        for name, value in attributes:
            words.append(strings.setdefault(name.replace("\x00", ""), len(strings)))
            words.append(strings.setdefault(_stored(value), len(strings)))
    nodes = array("I", sequence)
    text = "\x00".join(strings).encode("utf-8", "surrogatepass") + b"\x00"
    payload = (
        _HEADER.pack(len(strings), len(text), len(signatures), len(nodes))
        + text
        + words.tobytes()
        + nodes.tobytes()
    )
    return bytes([VERSION]) + zlib.compress(payload, 1)


def dom_keys(root, *, url: str, body: bytes) -> bytes | None:
    """The `dom` extractor: the page's BFS node sequence, encoded (None for a tree without elements)."""
    signatures, sequence = bfs_signatures(root)
    if not sequence:
        return None
    return encode(signatures, sequence)


def decode(data: bytes) -> DomSequence:
    """Read an extract written by `dom_keys`; raises ExtractFormatError on anything else."""
    if not data or data[0] != VERSION:
        raise ExtractFormatError(f"not a version {VERSION} dom extract")
    try:
        payload = zlib.decompress(data[1:])
        n_strings, text_bytes, n_signatures, n_nodes = _HEADER.unpack_from(payload)
        offset = _HEADER.size
        end = offset + text_bytes
        strings = (
            payload[offset : end - 1].decode("utf-8", "surrogatepass").split("\x00") if n_strings else []
        )
        words = array("I")
        words.frombytes(payload[end : len(payload) - 4 * n_nodes])
        nodes = array("I")
        nodes.frombytes(payload[len(payload) - 4 * n_nodes :])
        signatures, position, values = [], 0, words.tolist()
        for _ in range(n_signatures):
            tag, count = strings[values[position]], values[position + 1]
            if count:
                pairs = [strings[i] for i in values[position + 2 : position + 2 + 2 * count]]
                signatures.append((tag, tuple(zip(pairs[::2], pairs[1::2], strict=True))))
            else:
                signatures.append((tag, ()))
            position += 2 + 2 * count
    except (zlib.error, struct.error, ValueError, IndexError, UnicodeDecodeError) as exc:
        raise ExtractFormatError(f"corrupt dom extract: {exc}") from None
    if (
        position != len(words)
        or len(strings) != n_strings
        or len(nodes) != n_nodes
        or (nodes and max(nodes) >= n_signatures)
    ):
        raise ExtractFormatError("corrupt dom extract: sizes do not match")
    return DomSequence(tuple(signatures), nodes)
