"""The Content Extract file: round trips on real pages, and strict refusal of anything else."""

from __future__ import annotations

import struct
import zlib
from array import array

import pytest

from mwim.ce import (
    CEFormatError,
    CEVersionError,
    ContentExtract,
    Heading,
    Image,
    Reference,
    content_extract_build,
    decode,
    encode,
    fingerprint_of,
)
from mwim.ce.codec import MAX_PAYLOAD
from sites.crawler.parse import parse_document


def small() -> ContentExtract:
    return ContentExtract(
        properties={"title": "Ünïcode ☃ title", "url": "https://a.example/", "empty": ""},
        terms=["alpha", "beta"],
        counts=array("I", [2, 1]),
        ranks=bytes([5, 0]),
        styles=bytes([1, 130]),
        positions=array("I", [0, 7, 3]),
        headings=[Heading(1, "Top"), Heading(6, "")],
        references=[Reference("https://a.example/b", "a \x00 nul")],
        images=[Image("https://a.example/i.png", "")],
        fingerprint=bytes(range(32)),
    )


def test_every_field_survives_a_round_trip():
    extract = small()
    back = decode(encode(extract))
    assert back.properties == extract.properties
    assert back.terms == ["alpha", "beta"]
    assert list(back.counts) == [2, 1] and back.ranks == bytes([5, 0]) and back.styles == bytes([1, 130])
    assert [t.positions for t in back.tokens] == [(0, 7), (3,)]
    assert back.headings == extract.headings
    assert back.references == [Reference("https://a.example/b", "a   nul")]  # NUL is the string separator
    assert back.images == extract.images
    assert back.fingerprint == bytes(range(32)) and back.fingerprint_algorithm == "sha256"


def test_positions_past_65535_use_four_bytes_and_survive():
    extract = small()
    extract.positions = array("I", [0, 70_000, 3])
    assert list(decode(encode(extract)).positions) == [0, 70_000, 3]


def test_real_pages_round_trip_and_are_small(testbed_pages):
    for url, body in testbed_pages:
        root, _ = parse_document(body)
        extract = content_extract_build(root, url=url, body=body)
        data = encode(extract)
        assert decode(data) == extract, url
        assert decode(data).tokens == extract.tokens
        assert len(data) < 0.2 * len(body), url
        assert fingerprint_of(data) == extract.fingerprint_text


def test_an_empty_extract_round_trips():
    extract = ContentExtract(fingerprint=bytes(32))
    assert decode(encode(extract)) == extract


@pytest.mark.parametrize("cut", [0, 3, 10, 40, 45, -1, -20])
def test_a_truncated_file_is_refused(cut):
    data = encode(small())
    with pytest.raises(CEFormatError, match="truncated|corrupted"):
        decode(data[:cut])


def test_extra_bytes_after_the_file_are_refused():
    with pytest.raises(CEFormatError, match="padded"):
        decode(encode(small()) + b"\x00")


def test_a_flipped_byte_in_the_payload_is_refused():
    data = bytearray(encode(small()))
    data[-5] ^= 0xFF
    with pytest.raises(CEFormatError, match="corrupted"):
        decode(bytes(data))


def test_a_future_version_is_refused_with_its_number():
    data = bytearray(encode(small()))
    data[4] = 2
    with pytest.raises(CEVersionError, match="version 2 is newer"):
        decode(bytes(data))


def test_other_files_are_refused():
    with pytest.raises(CEFormatError, match="MWCE"):
        decode(b"<html><body>not an extract</body></html>")
    with pytest.raises(CEFormatError, match="truncated"):
        decode(b"")


def test_unknown_flags_and_algorithms_are_refused():
    data = bytearray(encode(small()))
    data[5] |= 0x80
    with pytest.raises(CEFormatError, match="flags"):
        decode(bytes(data))
    data = bytearray(encode(small()))
    data[6] = 9
    with pytest.raises(CEFormatError, match="algorithm"):
        decode(bytes(data))


def _rewrap(payload: bytes, raw_length: int | None = None) -> bytes:
    """A well-formed file around `payload`, as a hostile or buggy writer would make it."""
    head = encode(small())[:40]
    stored = zlib.compress(payload)
    return head + struct.pack("<II", len(stored), len(payload) if raw_length is None else raw_length) + stored


def test_a_payload_whose_sections_disagree_is_refused():
    data = encode(small())
    payload = bytearray(zlib.decompress(data[48:]))
    payload[4] = 3  # three terms claimed, two present
    with pytest.raises(CEFormatError, match="corrupted"):
        decode(_rewrap(bytes(payload)))


def test_a_payload_claiming_a_huge_size_is_refused_before_inflating():
    with pytest.raises(CEFormatError, match="over"):
        decode(_rewrap(b"x", raw_length=MAX_PAYLOAD + 1))


def test_a_bad_rank_or_heading_level_is_refused():
    extract = small()
    extract.ranks = bytes([9, 0])
    with pytest.raises(CEFormatError, match="rank 9"):
        decode(encode(extract))
    extract = small()
    extract.headings = [Heading(7, "x")]
    with pytest.raises(CEFormatError, match="heading level"):
        decode(encode(extract))
