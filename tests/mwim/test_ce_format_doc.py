"""docs/ce-format.md is enough to read a CE file: a reader written from it alone agrees with mwim.ce.decode."""

from __future__ import annotations

import hashlib
import struct
import zlib

from mwim.ce import content_extract_build, decode, encode
from sites.crawler.parse import parse_document


def read_as_documented(data: bytes) -> dict:
    """A reader written from docs/ce-format.md, with struct and zlib only."""
    assert data[:4] == b"MWCE" and data[4] == 1 and data[5] == 1 and data[6] == 1 and data[7] == 32
    fingerprint = data[8:40]
    stored, length = struct.unpack_from("<II", data, 40)
    assert len(data) == 48 + stored
    payload = zlib.decompress(data[48:])
    assert len(payload) == length
    pr, t, n, h, r, i = struct.unpack_from("<6I", payload, 0)
    (w,) = struct.unpack_from("<B", payload, 24)
    (b,) = struct.unpack_from("<I", payload, 25)
    offset = 29
    strings = (
        payload[offset : offset + b].decode().split("\x00") if b or (2 * pr + t + h + 2 * r + 2 * i) else []
    )
    offset += b
    counts = struct.unpack_from(f"<{t}I", payload, offset)
    offset += 4 * t
    ranks = payload[offset : offset + t]
    styles = payload[offset + t : offset + 2 * t]
    offset += 2 * t
    positions = struct.unpack_from(f"<{n}{'H' if w == 2 else 'I'}", payload, offset)
    offset += w * n
    levels = payload[offset : offset + h]
    assert offset + h == len(payload)
    properties = dict(zip(strings[0 : 2 * pr : 2], strings[1 : 2 * pr : 2], strict=True))
    terms = strings[2 * pr : 2 * pr + t]
    tokens, start = {}, 0
    for index, term in enumerate(terms):
        tokens[term] = (counts[index], ranks[index], styles[index], positions[start : start + counts[index]])
        start += counts[index]
    rest = strings[2 * pr + t :]
    return {
        "fingerprint": "sha256:" + fingerprint.hex(),
        "properties": properties,
        "tokens": tokens,
        "headings": list(zip(levels, rest[:h], strict=True)),
        "references": list(zip(rest[h : h + 2 * r : 2], rest[h + 1 : h + 2 * r : 2], strict=True)),
        "images": list(zip(rest[h + 2 * r :: 2], rest[h + 2 * r + 1 :: 2], strict=True)),
    }


def test_the_documented_layout_reads_real_pages_as_decode_does(testbed_pages):
    for url, body in testbed_pages:
        root, _ = parse_document(body)
        data = encode(content_extract_build(root, url=url, body=body))
        documented, ours = read_as_documented(data), decode(data)
        assert (
            documented["fingerprint"] == ours.fingerprint_text == "sha256:" + hashlib.sha256(body).hexdigest()
        )
        assert documented["properties"] == ours.properties
        assert documented["tokens"] == {t.term: (t.count, t.rank, t.styles, t.positions) for t in ours.tokens}
        assert documented["headings"] == [tuple(heading) for heading in ours.headings]
        assert documented["references"] == [tuple(ref) for ref in ours.references]
        assert documented["images"] == [tuple(image) for image in ours.images]


def test_the_worked_example_of_the_format_doc():
    body = b'<html lang="en"><head><title>Hi</title></head><body><p>Running dogs</p></body></html>'
    root, _ = parse_document(body)
    read = read_as_documented(encode(content_extract_build(root, url="https://x.example/", body=body)))
    assert read["tokens"] == {"dog": (1, 0, 0, (2,)), "run": (1, 0, 0, (1,))}
    assert read["properties"]["token-filter"] == "en/porter" and read["properties"]["title"] == "Hi"
