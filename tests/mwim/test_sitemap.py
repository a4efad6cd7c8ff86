"""Extended sitemaps: valid against the sitemaps.org schema and the ce schema, split past the limits, gzip,
and read back safely."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta
from pathlib import Path

import lxml.etree
import pytest

import mwim
from mwim.sitemap import SitemapEntry, SitemapError, gzipped, sitemap_files, sitemap_parse, sitemap_parts

SCHEMAS = Path(mwim.__file__).parent / "schemas"
WHEN = datetime(2026, 11, 25, 6, 0, tzinfo=UTC)
STRICT = lxml.etree.XMLParser(resolve_entities=False, no_network=True)


def schema(name: str) -> lxml.etree.XMLSchema:
    return lxml.etree.XMLSchema(lxml.etree.parse(str(SCHEMAS / name)))


def entry(number: int) -> SitemapEntry:
    return SitemapEntry(
        loc=f"https://docs.example/page-{number}.html?a=1&b=<2>",
        lastmod=WHEN - timedelta(days=number),
        ce_loc=f"https://audit.example/mwim/7/ce/{number}.ce",
        ce_lastupd=WHEN,
        fingerprint="sha256:" + f"{number:064x}",
    )


def assert_valid(data: bytes, schema_name: str = "mwim-sitemap.xsd") -> lxml.etree._Element:
    document = lxml.etree.fromstring(data, STRICT)
    validator = schema(schema_name)
    assert validator.validate(document), validator.error_log
    return document


def test_a_sitemap_validates_against_sitemaps_org_and_the_ce_schema():
    files = sitemap_files([entry(n) for n in range(3)], part_url=lambda n: f"https://a.example/{n}")
    assert list(files) == ["sitemap.xml"]
    document = assert_valid(files["sitemap.xml"])
    url = document[0]
    assert [child.tag.split("}")[1] for child in url] == ["loc", "lastmod", "loc", "lastupd", "fingerprint"]
    assert url[0].text == "https://docs.example/page-0.html?a=1&b=<2>"
    assert url[2].tag == "{urn:mwimc/content-extract-manifest}loc"
    assert url[4].text.startswith("sha256:")
    assert url[1].text == "2026-11-25T06:00:00+00:00"


def test_the_ce_schema_refuses_a_fingerprint_without_its_algorithm():
    data = sitemap_files([entry(1)], part_url=str)["sitemap.xml"].replace(b"sha256:", b"")
    document = lxml.etree.fromstring(data, STRICT)
    assert not schema("mwim-sitemap.xsd").validate(document)


def test_the_sitemaps_org_schema_refuses_ce_elements_before_the_standard_ones():
    data = sitemap_files([entry(1)], part_url=str)["sitemap.xml"]
    lastmod = b"<lastmod>2026-11-24T06:00:00+00:00</lastmod>"
    moved = data.replace(lastmod, b"").replace(b"</url>", lastmod + b"</url>")
    assert not schema("mwim-sitemap.xsd").validate(lxml.etree.fromstring(moved, STRICT))


def test_past_the_url_limit_a_sitemap_index_names_the_parts():
    files = sitemap_files(
        [entry(n) for n in range(5)],
        part_url=lambda n: f"https://audit.example/mwim/7/sitemap-{n}.xml",
        max_urls=2,
    )
    assert sorted(files) == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", "sitemap-index.xml"]
    index = assert_valid(files["sitemap-index.xml"], "siteindex.xsd")
    assert [s[0].text for s in index] == [f"https://audit.example/mwim/7/sitemap-{n}.xml" for n in (1, 2, 3)]
    counts = [len(assert_valid(files[f"sitemap-{n}.xml"])) for n in (1, 2, 3)]
    assert counts == [2, 2, 1]


def test_past_the_byte_limit_a_part_closes_before_it_overflows():
    parts = sitemap_parts([entry(n) for n in range(10)], max_bytes=1000)
    assert len(parts) > 1
    assert all(len(data) <= 1000 for data, _ in parts)
    assert sum(len(assert_valid(data)) for data, _ in parts) == 10


def test_an_empty_site_still_gets_a_valid_sitemap_file_shape():
    data = sitemap_files([], part_url=str)["sitemap.xml"]
    assert lxml.etree.fromstring(data, STRICT).tag.endswith("urlset")


def test_gzip_is_deterministic_and_reads_back():
    data = sitemap_files([entry(1)], part_url=str)["sitemap.xml"]
    assert gzipped(data) == gzipped(data)
    assert gzip.decompress(gzipped(data)) == data
    assert sitemap_parse(gzipped(data)).entries == [entry(1)]


def test_a_sitemap_parses_back_into_its_entries():
    entries = [entry(n) for n in range(4)]
    assert sitemap_parse(sitemap_files(entries, part_url=str)["sitemap.xml"]).entries == entries


def test_an_index_parses_into_its_part_urls():
    files = sitemap_files(
        [entry(n) for n in range(3)], part_url=lambda n: f"https://x.example/p{n}.xml", max_urls=2
    )
    parsed = sitemap_parse(files["sitemap-index.xml"])
    assert (
        parsed.sitemaps == ["https://x.example/p1.xml", "https://x.example/p2.xml"] and parsed.entries == []
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<html><body>no</body></html>", "not a sitemap"),
        (b"this is not xml", "not XML"),
        (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>', "hostile"),
        (b"\x1f\x8b\x08garbage", "gzip"),
    ],
)
def test_bad_sitemaps_are_refused_with_a_reason(data, message):
    with pytest.raises(SitemapError, match=message):
        sitemap_parse(data)


def test_a_billion_laughs_is_refused():
    bomb = b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY l "lol"><!ENTITY l2 "&l;&l;&l;&l;">]><urlset>&l2;</urlset>'
    with pytest.raises(SitemapError, match="hostile"):
        sitemap_parse(bomb)
