"""Property tests: whatever bytes arrive, the CE decoder and the sitemap reader give back what was written or
refuse with their own error, never another exception."""

from __future__ import annotations

import zlib
from array import array
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mwim.ce import CEFormatError, ContentExtract, Heading, Image, Reference, decode, encode
from mwim.sitemap import SitemapEntry, SitemapError, sitemap_files, sitemap_parse

# Text a CE string may hold: anything but the separator (NUL), which the encoder cleans out.
ce_text = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=30)


@st.composite
def extracts(draw) -> ContentExtract:
    terms = draw(st.lists(ce_text, max_size=20))
    counts = [draw(st.integers(0, 5)) for _ in terms]
    positions = sorted(draw(st.lists(st.integers(0, 2**31), min_size=sum(counts), max_size=sum(counts))))
    return ContentExtract(
        properties=draw(st.dictionaries(ce_text, ce_text, max_size=5)),
        terms=terms,
        counts=array("I", counts),
        ranks=bytes(draw(st.integers(0, 7)) for _ in terms),
        styles=bytes(draw(st.integers(0, 255)) for _ in terms),
        positions=array("I", positions),
        headings=draw(st.lists(st.builds(Heading, st.integers(1, 6), ce_text), max_size=5)),
        references=draw(st.lists(st.builds(Reference, ce_text, ce_text), max_size=5)),
        images=draw(st.lists(st.builds(Image, ce_text, ce_text), max_size=5)),
        fingerprint=draw(st.binary(min_size=32, max_size=32)),
    )


@settings(max_examples=200, deadline=None)
@given(extracts())
def test_every_extract_decodes_to_what_was_encoded(extract):
    decoded = decode(encode(extract))
    assert decoded.terms == extract.terms
    assert list(decoded.counts) == list(extract.counts) and list(decoded.positions) == list(extract.positions)
    assert (decoded.ranks, decoded.styles) == (extract.ranks, extract.styles)
    assert decoded.properties == extract.properties
    assert (decoded.headings, decoded.references, decoded.images) == (
        extract.headings,
        extract.references,
        extract.images,
    )
    assert decoded.fingerprint == extract.fingerprint
    assert len(decoded.tokens) == len(extract.terms)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_decode_or_are_refused_as_a_format_error(data):
    try:
        decode(data)
    except CEFormatError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extracts(), st.data())
def test_a_damaged_file_is_refused_as_a_format_error_or_still_decodes(extract, data):
    raw = bytearray(encode(extract))
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(raw) - 1))
        raw[index] = data.draw(st.integers(0, 255))
    try:
        decode(bytes(raw))
    except CEFormatError:
        pass


@settings(max_examples=200, deadline=None)
@given(extracts(), st.data())
def test_a_payload_rewritten_inside_a_valid_frame_is_refused_or_decodes(extract, data):
    # Damage the inflated payload, then deflate it again: the frame is intact, so the payload checks decide.
    raw = encode(extract)
    head = raw[: 4 + 4 + 32 + 8]
    payload = bytearray(zlib.decompress(raw[len(head) :]))
    if payload:
        index = data.draw(st.integers(0, len(payload) - 1))
        payload[index] = data.draw(st.integers(0, 255))
    stored = zlib.compress(bytes(payload))
    frame = head[:-8] + len(stored).to_bytes(4, "little") + len(payload).to_bytes(4, "little")
    try:
        decode(frame + stored)
    except CEFormatError:
        pass


# URLs as a sitemap holds them: any text but control characters, which XML 1.0 cannot carry.
url_text = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=40).map(
    lambda text: "https://s.example/" + text.strip()
)
moments = st.datetimes(
    min_value=datetime(1971, 1, 1), max_value=datetime(9998, 1, 1), timezones=st.just(UTC)
).map(lambda moment: moment.replace(microsecond=0))
entries = st.builds(
    SitemapEntry, url_text, moments, url_text, moments, st.from_regex(r"sha256:[0-9a-f]{64}", fullmatch=True)
)


@settings(max_examples=150, deadline=None)
@given(st.lists(entries, max_size=8), st.integers(1, 4))
def test_a_written_sitemap_reads_back_its_entries_in_one_file_or_parts(written, max_urls):
    files = sitemap_files(
        written, part_url=lambda number: f"https://a.example/sitemap-{number}.xml", max_urls=max_urls
    )
    if "sitemap.xml" in files:
        read = sitemap_parse(files["sitemap.xml"]).entries
    else:
        index = sitemap_parse(files["sitemap-index.xml"])
        read = [
            entry for loc in index.sitemaps for entry in sitemap_parse(files[loc.rsplit("/", 1)[1]]).entries
        ]
    expected = [entry for entry in written if entry.loc.strip() and entry.ce_loc.strip()]
    assert [(e.loc, e.ce_loc, e.lastmod, e.ce_lastupd, e.fingerprint) for e in read] == [
        (e.loc.strip(), e.ce_loc.strip(), e.lastmod, e.ce_lastupd, e.fingerprint) for e in expected
    ]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=400), st.text(max_size=400).map(str.encode)))
def test_arbitrary_bytes_are_a_sitemap_or_a_sitemap_error(data):
    try:
        sitemap_parse(data)
    except SitemapError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_any_date_text_in_a_sitemap_is_read_or_refused_as_a_sitemap_error(lastmod, lastupd):
    from xml.sax.saxutils import escape

    from mwim.sitemap import CE_NS, SITEMAP_NS

    document = (
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:ce="{CE_NS}"><url><loc>https://a.example/</loc>'
        f"<lastmod>{escape(lastmod)}</lastmod><ce:loc>https://a.example/a.ce</ce:loc>"
        f"<ce:lastupd>{escape(lastupd)}</ce:lastupd></url></urlset>"
    )
    try:
        sitemap_parse(document.encode("utf-8", "surrogatepass"))
    except SitemapError:
        pass
