"""The MWIM commands: mwim_export, ce_report and mwim_pull, with their bad input (exit status 2)."""

from __future__ import annotations

import gzip
import io
import json
import time
from pathlib import Path

import lxml.etree
import pytest
from django.core.management import CommandError, call_command

from mwim import sitemap
from mwim.ce import decode
from mwim.sitemap import SitemapEntry, sitemap_files
from tests.mwim.factories import ce_bytes, make_crawl_with_pages, make_mwim_site
from tests.sites.factories import make_site

pytestmark = pytest.mark.django_db
SCHEMAS = Path(__file__).resolve().parents[2] / "mwim" / "schemas"
A, B = "https://s.example/a", "https://s.example/b"


def valid(path: Path, schema: str = "mwim-sitemap.xsd") -> lxml.etree._Element:
    document = lxml.etree.parse(str(path), lxml.etree.XMLParser(resolve_entities=False, no_network=True))
    validator = lxml.etree.XMLSchema(lxml.etree.parse(str(SCHEMAS / schema)))
    assert validator.validate(document), validator.error_log
    return document.getroot()


def test_export_writes_the_sitemap_the_ce_files_and_the_indexnow_key(tmp_path):
    mwim_site = make_mwim_site(verified=False)  # the operator exports: no verification needed
    make_crawl_with_pages(mwim_site.site, {A: "apples", B: "bananas"})
    call_command(
        "mwim_export", str(mwim_site.site_id), str(tmp_path / "out"), "--base-url", "https://s.example/mwim/"
    )
    out = tmp_path / "out"
    root = valid(out / "sitemap.xml")
    assert [url[0].text for url in root] == [A, B]
    assert all(url[2].text.startswith("https://s.example/mwim/ce/") for url in root)
    for url in root:
        name = url[2].text.rsplit("/", 1)[1]
        assert decode((out / "ce" / name).read_bytes()).fingerprint_text == url[4].text
    assert gzip.decompress((out / "sitemap.xml.gz").read_bytes()) == (out / "sitemap.xml").read_bytes()
    assert (out / f"{mwim_site.indexnow_key}.txt").read_text() == mwim_site.indexnow_key
    assert not list(out.glob(".*.part"))


def test_a_second_export_removes_the_files_of_pages_gone_and_keeps_the_operators_own(tmp_path, monkeypatch):
    monkeypatch.setattr(sitemap, "MAX_URLS", 1)
    mwim_site = make_mwim_site(verified=False)
    make_crawl_with_pages(mwim_site.site, {A: "apples", B: "bananas"})
    out = tmp_path / "out"
    call_command("mwim_export", str(mwim_site.site_id), str(out))
    first_ce = {path.name for path in (out / "ce").iterdir()}
    assert len(first_ce) == 2 and (out / "sitemap-index.xml").exists() and (out / "sitemap-2.xml.gz").exists()
    (out / "robots.txt").write_text("User-agent: *\n")  # not the export's: never touched
    (out / "ce" / "notes.ce").write_text("the operator's")
    monkeypatch.setattr(sitemap, "MAX_URLS", 50_000)
    make_crawl_with_pages(mwim_site.site, {A: "apples again"})  # B is gone from the site

    stdout = io.StringIO()
    call_command("mwim_export", str(mwim_site.site_id), str(out), stdout=stdout)

    root = valid(out / "sitemap.xml")
    assert [url[0].text for url in root] == [A]
    kept = {path.name for path in (out / "ce").iterdir()}
    assert kept == {root[0][2].text.rsplit("/", 1)[1], "notes.ce"}
    assert not (out / "sitemap-index.xml").exists() and not list(out.glob("sitemap-*.xml*"))
    assert (out / "robots.txt").exists()
    assert json.loads(stdout.getvalue())["removed"] == 1 + 6  # B's CE file; the index and two parts, each .gz


def test_export_by_url_of_a_site_never_registered_still_works(tmp_path):
    site = make_site(url="https://plain.example/")
    make_crawl_with_pages(site, {"https://plain.example/x": "xylophones"})
    call_command("mwim_export", "https://plain.example", str(tmp_path))
    assert len(valid(tmp_path / "sitemap.xml")) == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["424242", "DIR"], "no site"),
        (["https://unknown.example/", "DIR"], "no site"),
        (["SITE", "FILE"], "not a folder"),
        (["SITE", "DIR", "--base-url", "ftp://x"], "not an http"),
    ],
)
def test_export_bad_input_exits_2(tmp_path, arguments, message):
    site = make_site()
    make_crawl_with_pages(site, {site.url + "p": "pears"})
    (tmp_path / "file").write_text("x")
    replace = {"SITE": str(site.pk), "DIR": str(tmp_path / "d"), "FILE": str(tmp_path / "file")}
    with pytest.raises(CommandError, match=message) as raised:
        call_command("mwim_export", *[replace.get(argument, argument) for argument in arguments])
    assert raised.value.returncode == 2


def test_export_of_a_site_never_crawled_exits_2(tmp_path):
    with pytest.raises(CommandError, match="no finished crawl") as raised:
        call_command("mwim_export", str(make_site().pk), str(tmp_path))
    assert raised.value.returncode == 2


def test_ce_report_writes_a_standalone_html_page(tmp_path):
    (tmp_path / "a.ce").write_bytes(ce_bytes(A, "apples and avocados"))
    call_command("ce_report", str(tmp_path / "a.ce"), "--output", str(tmp_path / "a.html"))
    html = (tmp_path / "a.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "avocado" in html and "Document properties" in html
    assert "<link" not in html and "<script" not in html  # stand-alone


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read"), (b"MWCE\x01", "truncated"), (b"plain text", "MWCE"), ("future", "newer")],
)
def test_ce_report_refuses_bad_files_with_exit_2(tmp_path, content, message):
    path = tmp_path / "bad.ce"
    if content == "future":
        data = bytearray(ce_bytes(A))
        data[4] = 9
        path.write_bytes(bytes(data))
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(CommandError, match=message) as raised:
        call_command("ce_report", str(path))
    assert raised.value.returncode == 2


def _serve_robots(httpserver, text: str | None = None) -> None:
    """The site's robots.txt (a pull reads it first); none: a 404, everything allowed."""
    if text is None:
        httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    else:
        httpserver.expect_request("/robots.txt").respond_with_data(text, content_type="text/plain")


def _serve_sitemap(httpserver, entries, robots: str | None = None) -> str:
    _serve_robots(httpserver, robots)
    data = sitemap_files(entries, part_url=str)["sitemap.xml"]
    httpserver.expect_request("/sitemap.xml").respond_with_data(data, content_type="application/xml")
    return httpserver.url_for("/sitemap.xml")


def test_pull_refuses_a_sitemap_that_is_not_xml(httpserver, tmp_path):
    _serve_robots(httpserver)
    httpserver.expect_request("/sitemap.xml").respond_with_data("<<<not xml", content_type="application/xml")
    with pytest.raises(CommandError, match="not XML") as raised:
        call_command("mwim_pull", httpserver.url_for("/sitemap.xml"), str(tmp_path))
    assert raised.value.returncode == 2
    assert not (tmp_path / "state.json").exists()


def test_pull_refuses_a_bad_url_and_a_missing_sitemap(httpserver, tmp_path):
    _serve_robots(httpserver)
    for url, message in [
        ("file:///etc/passwd", "not an http"),
        (httpserver.url_for("/none.xml"), "HTTP 500|HTTP 404"),
    ]:
        with pytest.raises(CommandError, match=message) as raised:
            call_command("mwim_pull", url, str(tmp_path))
        assert raised.value.returncode == 2


def test_pull_skips_ce_files_off_site_and_keeps_going(httpserver, tmp_path):
    from datetime import UTC, datetime

    now = datetime(2026, 11, 25, tzinfo=UTC)
    good = ce_bytes(A, "apples")
    httpserver.expect_request("/a.ce").respond_with_data(good)
    httpserver.expect_request("/b.ce").respond_with_data(good[:30])
    entries = [
        SitemapEntry(A, now, httpserver.url_for("/a.ce"), now, decode(good).fingerprint_text),
        SitemapEntry(B, now, httpserver.url_for("/b.ce"), now, "sha256:00"),
        SitemapEntry("https://s.example/c", now, "https://evil.example/c.ce", now, "sha256:00"),
    ]
    url = _serve_sitemap(httpserver, entries)
    with pytest.raises(CommandError) as raised:
        call_command(
            "mwim_pull", url, str(tmp_path / "pulled"), "--no-html", "--json", str(tmp_path / "r.json")
        )
    assert raised.value.returncode == 1
    report = json.loads((tmp_path / "r.json").read_text())
    failures = {item["url"]: item["error"] for item in report["failed"]}
    assert "truncated" in failures[B] and "off-site" in failures["https://s.example/c"]
    assert report["downloaded"] == 1 and report["ce_bytes"] == len(good)
    assert len(list((tmp_path / "pulled" / "ce").iterdir())) == 1  # only the good file was written


def test_pull_obeys_robots_txt_for_the_sitemap_and_each_ce_file(httpserver, tmp_path):
    from datetime import UTC, datetime

    now = datetime(2026, 11, 25, tzinfo=UTC)
    good = ce_bytes(A, "apples")
    httpserver.expect_request("/a.ce").respond_with_data(good)
    httpserver.expect_request("/private/b.ce").respond_with_data(ce_bytes(B, "pears"))
    entries = [
        SitemapEntry(A, now, httpserver.url_for("/a.ce"), now, decode(good).fingerprint_text),
        SitemapEntry(B, now, httpserver.url_for("/private/b.ce"), now, "sha256:00"),
    ]
    url = _serve_sitemap(httpserver, entries, robots="User-agent: *\nDisallow: /private/\n")
    with pytest.raises(CommandError) as raised:
        call_command(
            "mwim_pull", url, str(tmp_path / "pulled"), "--no-html", "--json", str(tmp_path / "r.json")
        )
    assert raised.value.returncode == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failed"] == [{"url": B, "error": "disallowed by robots.txt"}]
    assert report["downloaded"] == 1
    assert [request.path for request, _ in httpserver.log] == ["/robots.txt", "/sitemap.xml", "/a.ce"]


def test_pull_of_a_sitemap_robots_txt_forbids_changes_nothing(httpserver, tmp_path):
    url = _serve_sitemap(httpserver, [], robots="User-agent: *\nDisallow: /\n")
    with pytest.raises(CommandError, match="disallowed by robots.txt") as raised:
        call_command("mwim_pull", url, str(tmp_path))
    assert raised.value.returncode == 2
    httpserver.clear()
    # A server error on robots.txt keeps the whole site out (RFC 9309), as it does the crawl.
    httpserver.expect_request("/robots.txt").respond_with_data("down", status=503)
    with pytest.raises(CommandError, match="disallowed by robots.txt") as raised:
        call_command("mwim_pull", url, str(tmp_path))
    assert raised.value.returncode == 2
    assert not (tmp_path / "state.json").exists()


def test_pull_waits_out_a_short_retry_after_and_asks_once_more(httpserver, tmp_path):
    from datetime import UTC, datetime

    from werkzeug import Response

    now = datetime(2026, 11, 25, tzinfo=UTC)
    good = ce_bytes(A, "apples")
    answers = iter([Response("slow down", status=429, headers={"Retry-After": "1"}), Response(good)])
    asked = []

    def answer(request):
        asked.append(time.monotonic())
        return next(answers)

    httpserver.expect_request("/a.ce").respond_with_handler(answer)
    url = _serve_sitemap(httpserver, [SitemapEntry(A, now, httpserver.url_for("/a.ce"), now, "")])
    call_command("mwim_pull", url, str(tmp_path / "pulled"), "--no-html", "--json", str(tmp_path / "r.json"))
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["downloaded"] == 1 and report["failed"] == []
    assert len(asked) == 2 and asked[1] - asked[0] >= 0.9  # the Retry-After was waited out
