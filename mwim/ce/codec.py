"""The Content Extract binary format, version 1 (specified in docs/ce-format.md): encode and strictly decode."""

from __future__ import annotations

import struct
import sys
import zlib
from array import array

from mwim.ce import model

MAGIC = b"MWCE"
VERSION = 1
FLAG_DEFLATE = 1
KNOWN_FLAGS = FLAG_DEFLATE
# Fingerprint algorithms by their code in the header, with their digest sizes.
ALGORITHMS = {1: ("sha256", 32)}
ALGORITHM_CODES = {name: code for code, (name, _) in ALGORITHMS.items()}
# A decoded payload larger than this is refused: no real page's extract comes near it (the python docs' biggest
# page, 1.4 MB of HTML, makes ~0.1 MB), and a hostile file must not make a reader allocate gigabytes.
MAX_PAYLOAD = 64 * 1024 * 1024
# zlib level 6 (the default) makes files 4% smaller than level 1 for 0.1 ms more per median page.
DEFLATE_LEVEL = 6

_HEAD = struct.Struct("<4sBBBB")  # magic, version, flags, fingerprint algorithm, fingerprint length
_LENGTHS = struct.Struct("<II")  # payload bytes stored, payload bytes once inflated
# Payload counts: properties, terms, positions, headings, references, images, position width, string bytes.
_COUNTS = struct.Struct("<IIIIIIBI")
_SEPARATOR = "\x00"
_NEEDS_SWAP = sys.byteorder == "big"


class CEFormatError(ValueError):
    """The bytes are not a content extract this reader can trust: truncated, corrupted, or another version."""


class CEVersionError(CEFormatError):
    """A content extract of a newer format version than this reader knows."""


def _clean(text: str) -> str:
    return text.replace(_SEPARATOR, " ")


def _little(values: array) -> bytes:
    if _NEEDS_SWAP:
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def encode(extract: model.ContentExtract) -> bytes:
    """The file of `extract`, version 1."""
    algorithm = ALGORITHM_CODES.get(extract.fingerprint_algorithm)
    if algorithm is None or len(extract.fingerprint) != ALGORITHMS[algorithm][1]:
        raise ValueError(f"fingerprint must be a {'/'.join(ALGORITHM_CODES)} digest")
    properties = list(extract.properties.items())
    strings = [text for pair in properties for text in pair]
    strings += extract.terms
    strings += [heading.text for heading in extract.headings]
    strings += [text for reference in extract.references for text in reference]
    strings += [text for image in extract.images for text in image]
    blob = _SEPARATOR.join(map(_clean, strings)).encode("utf-8", "surrogatepass")
    widest = max(extract.positions, default=0)
    width = 2 if widest < 1 << 16 else 4
    positions = extract.positions if width == 4 else array("H", extract.positions)
    counts = array("I", extract.counts)
    levels = bytes(heading.level for heading in extract.headings)
    if len(extract.ranks) != len(extract.terms) or len(extract.styles) != len(extract.terms):
        raise ValueError("ranks and styles must hold one byte per term")
    if max(len(extract.headings), len(extract.references), len(extract.images)) > model.MAX_LIST_ITEMS:
        raise ValueError(f"at most {model.MAX_LIST_ITEMS:,} headings, references and images each")
    payload = b"".join(
        [
            _COUNTS.pack(
                len(properties),
                len(extract.terms),
                len(extract.positions),
                len(extract.headings),
                len(extract.references),
                len(extract.images),
                width,
                len(blob),
            ),  # fmt: skip
            blob,
            _little(counts),
            bytes(extract.ranks),
            bytes(extract.styles),
            _little(positions),
            levels,
        ]
    )
    stored = zlib.compress(payload, DEFLATE_LEVEL)
    head = _HEAD.pack(MAGIC, VERSION, FLAG_DEFLATE, algorithm, len(extract.fingerprint))
    return head + extract.fingerprint + _LENGTHS.pack(len(stored), len(payload)) + stored


def fingerprint_of(data: bytes) -> str:
    """The fingerprint a file carries ("sha256:<hex>"), read from its header without decoding the rest."""
    algorithm, digest, _ = _read_header(data)
    return f"{algorithm}:{digest.hex()}"


def _read_header(data: bytes) -> tuple[str, bytes, int]:
    if len(data) < _HEAD.size:
        raise CEFormatError(f"truncated: {len(data)} bytes is shorter than a content extract's header")
    magic, version, flags, algorithm, length = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise CEFormatError("not a content extract (the file does not start with MWCE)")
    if version > VERSION:
        raise CEVersionError(
            f"content extract format version {version} is newer than this reader's ({VERSION})"
        )
    if version < 1:
        raise CEFormatError(f"unknown content extract format version {version}")
    if flags & ~KNOWN_FLAGS:
        raise CEFormatError(f"unknown flags {flags:#04x} in the header")
    if algorithm not in ALGORITHMS or ALGORITHMS[algorithm][1] != length:
        raise CEFormatError(f"unknown fingerprint algorithm {algorithm} of {length} bytes")
    end = _HEAD.size + length
    if len(data) < end + _LENGTHS.size:
        raise CEFormatError("truncated in the header")
    return ALGORITHMS[algorithm][0], bytes(data[_HEAD.size : end]), flags


def decode(data: bytes) -> model.ContentExtract:
    """The content extract in `data`; raises CEFormatError (CEVersionError for a newer version) for anything
    that is not a whole, intact version-1 file."""
    algorithm, digest, flags = _read_header(data)
    offset = _HEAD.size + len(digest)
    stored_length, payload_length = _LENGTHS.unpack_from(data, offset)
    offset += _LENGTHS.size
    if len(data) - offset != stored_length:
        raise CEFormatError(
            f"truncated or padded: the payload should be {stored_length} bytes, not {len(data) - offset}"
        )
    if payload_length > MAX_PAYLOAD:
        raise CEFormatError(
            f"the payload claims {payload_length} bytes, over the {MAX_PAYLOAD} a reader accepts"
        )
    payload = memoryview(data)[offset:]
    if flags & FLAG_DEFLATE:
        try:
            inflater = zlib.decompressobj()
            payload = inflater.decompress(payload, payload_length + 1)
        except zlib.error as exc:
            raise CEFormatError(f"corrupted payload ({exc})") from None
        if not inflater.eof or inflater.unused_data:
            raise CEFormatError("corrupted payload (the compressed stream does not end where the file does)")
    if len(payload) != payload_length:
        raise CEFormatError(f"corrupted payload: {len(payload)} bytes instead of {payload_length}")
    try:
        return _decode_payload(payload, algorithm, digest)
    except (struct.error, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, CEFormatError):
            raise
        raise CEFormatError(f"corrupted payload ({exc})") from None


def _take(payload, offset: int, size: int) -> tuple[memoryview | bytes, int]:
    end = offset + size
    if end > len(payload):
        raise CEFormatError("corrupted payload: a section runs past its end")
    return payload[offset:end], end


def _numbers(typecode: str, raw) -> array:
    values = array(typecode)
    values.frombytes(raw)
    if _NEEDS_SWAP:
        values.byteswap()
    return values


def _decode_payload(payload, algorithm: str, digest: bytes) -> model.ContentExtract:
    n_properties, n_terms, n_positions, n_headings, n_references, n_images, width, blob_size = (
        _COUNTS.unpack_from(payload)
    )
    if width not in (2, 4):
        raise CEFormatError(f"corrupted payload: position width {width}")
    for name, count in (("headings", n_headings), ("references", n_references), ("images", n_images)):
        # Checked before the strings are split: 3 million empty references fit in 12 KB of deflate.
        if count > model.MAX_LIST_ITEMS:
            raise CEFormatError(
                f"{count:,} {name}: over the {model.MAX_LIST_ITEMS:,} a content extract may hold"
            )
    offset = _COUNTS.size
    blob, offset = _take(payload, offset, blob_size)
    counts, offset = _take(payload, offset, 4 * n_terms)
    ranks, offset = _take(payload, offset, n_terms)
    styles, offset = _take(payload, offset, n_terms)
    positions, offset = _take(payload, offset, width * n_positions)
    levels, offset = _take(payload, offset, n_headings)
    if offset != len(payload):
        raise CEFormatError("corrupted payload: bytes after the last section")
    n_strings = 2 * n_properties + n_terms + n_headings + 2 * n_references + 2 * n_images
    strings = bytes(blob).decode("utf-8", "surrogatepass").split(_SEPARATOR) if n_strings else []
    if len(strings) != n_strings:
        raise CEFormatError(f"corrupted payload: {len(strings)} strings instead of {n_strings}")
    counts = _numbers("I", counts)
    if sum(counts) != n_positions:
        raise CEFormatError("corrupted payload: the token counts do not add up to the positions")
    ranks, styles, levels = bytes(ranks), bytes(styles), bytes(levels)
    if ranks and max(ranks) > model.RANK_TITLE:
        raise CEFormatError(f"corrupted payload: rank {max(ranks)} is not in the rank table")
    if levels and (min(levels) < 1 or max(levels) > 6):
        raise CEFormatError("corrupted payload: a heading level outside 1..6")
    positions = _numbers("H" if width == 2 else "I", positions)
    if width == 2:
        positions = array("I", positions)
    p = 2 * n_properties
    t = p + n_terms
    h = t + n_headings
    r = h + 2 * n_references
    return model.ContentExtract(
        properties=dict(zip(strings[0:p:2], strings[1:p:2], strict=True)),
        terms=strings[p:t],
        counts=counts,
        ranks=ranks,
        styles=styles,
        positions=positions,
        headings=list(map(model.Heading, levels, strings[t:h])),
        references=list(map(model.Reference, strings[h:r:2], strings[h + 1 : r : 2])),
        images=list(map(model.Image, strings[r::2], strings[r + 1 :: 2])),
        fingerprint_algorithm=algorithm,
        fingerprint=digest,
    )
