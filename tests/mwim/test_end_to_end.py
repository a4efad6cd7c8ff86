"""MWIM end to end: register and verify a site against a local server, crawl it, read its sitemap and CE files
over HTTP as a search engine would, change a page, recrawl, and see only that page's CE change."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import lxml.etree
import pytest
from django.core.management import call_command

from checks.models import AnalysisJob
from mwim.ce import decode
from mwim.models import ContentExtractFile
from mwim.services import mwim_register, mwim_verify
from mwim.services.registration import FILE_NAME
from sites.models import PageExtract
from sites.services.crawls import crawl_run, crawl_start
from sites.services.sites import site_create

SCHEMA = Path(__file__).resolve().parents[2] / "mwim" / "schemas" / "mwim-sitemap.xsd"
CE_NS = "{urn:mwimc/content-extract-manifest}"
SM_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def get(url: str, **headers) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - the test's own servers
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def crawl(site):
    return crawl_run(crawl=crawl_start(site=site, enqueue=False))


def files_by_url(site) -> dict[str, tuple[str, object, bytes]]:
    return {
        row.url: (row.fingerprint, row.updated_at, bytes(row.data))
        for row in ContentExtractFile.objects.filter(mwim_site__site=site, listed=True)
    }


@pytest.mark.django_db(transaction=True)
def test_a_verified_site_serves_only_changed_extracts_after_a_recrawl(
    docs_site, user, live_server, eager_jobs, tmp_path, settings
):
    # The first crawl's extracts come from the page readers, the recrawl's from the `ce` job: both paths.
    settings.WEBAUDIT_MWIM_READER_EXTRACTS = True
    site = site_create(owner=user, url=docs_site.url)
    mwim_site = mwim_register(site=site)
    assert not mwim_verify(mwim_site=mwim_site)
    assert "HTTP 404" in mwim_site.verification_error
    sitemap_url = f"{live_server.url}/mwim/{site.pk}/sitemap.xml"
    assert get(sitemap_url)[0] == 404  # unverified: nothing public
    (docs_site.folder / FILE_NAME).write_text(mwim_site.verification_token + "\n")
    assert mwim_verify(mwim_site=mwim_site)

    first = crawl(site)
    assert PageExtract.objects.filter(page__crawl=first, name="ce").count() >= 6
    job = AnalysisJob.objects.get(kind="ce", crawl=first)
    assert job.status == "finished", job.error
    files = files_by_url(site)
    expected = {docs_site.url + name for name in ["", "sql-commit.html", "sql-select.html", "sql-insert.html",
                                                   "sql-update.html", "sql-delete.html"]}  # fmt: skip
    assert set(files) == expected  # noindex, non-canonical and missing pages stay out

    # A search engine reads the sitemap: valid, cacheable, revalidated with a 304.
    status, headers, body = get(sitemap_url)
    assert status == 200 and headers["Content-Type"].startswith("application/xml")
    assert "max-age" in headers["Cache-Control"] and headers["ETag"] and headers["Last-Modified"]
    document = lxml.etree.fromstring(body, lxml.etree.XMLParser(resolve_entities=False, no_network=True))
    assert lxml.etree.XMLSchema(lxml.etree.parse(str(SCHEMA))).validate(document)
    assert {url.findtext(f"{SM_NS}loc") for url in document} == expected
    assert get(sitemap_url, **{"If-None-Match": headers["ETag"]})[0] == 304
    status, gz_headers, _ = get(sitemap_url + ".gz")
    assert status == 200 and gz_headers["Content-Type"] == "application/gzip"

    # ... and a CE file it points to.
    entry = next(url for url in document if url.findtext(f"{SM_NS}loc").endswith("sql-select.html"))
    status, ce_headers, data = get(entry.findtext(f"{CE_NS}loc"))
    assert status == 200 and ce_headers["Content-Type"] == "application/vnd.mwim.content-extract"
    extract = decode(data)
    assert extract.properties["url"] == docs_site.url + "sql-select.html"
    assert extract.fingerprint_text == entry.findtext(f"{CE_NS}fingerprint")
    assert "select" in extract.terms
    assert get(entry.findtext(f"{CE_NS}loc"), **{"If-None-Match": ce_headers["ETag"]})[0] == 304

    pulled = tmp_path / "engine"
    call_command("mwim_pull", sitemap_url, str(pulled), "--json", str(tmp_path / "pull1.json"))
    report = json.loads((tmp_path / "pull1.json").read_text())
    assert report["new"] == 6 and report["downloaded"] == 6 and report["failed"] == []
    assert report["html_bytes"] > report["ce_bytes"] > 0
    assert report["delta_s"] == report["html_bytes"] - report["ce_bytes"]

    # The site changes one page; the recrawl regenerates only its CE.
    page = docs_site.folder / "sql-update.html"
    page.write_bytes(
        page.read_bytes().replace(b"</body>", b"<p>Freshly added zanzibar paragraph.</p></body>")
    )
    # A change comes later than the crawl that saw the old page: Last-Modified has one-second resolution, and a
    # change within the same second answers the recrawl's If-Modified-Since with a 304 (as nginx would).
    later = page.stat().st_mtime + 5
    os.utime(page, (later, later))
    second = crawl(site)
    assert not PageExtract.objects.filter(
        page__crawl=second, name="ce"
    ).exists()  # extracted by the job, changed page only
    after = files_by_url(site)
    changed = {url for url in expected if after[url][:2] != files[url][:2]}
    assert changed == {docs_site.url + "sql-update.html"}
    assert "zanzibar" in decode(after[docs_site.url + "sql-update.html"][2]).terms
    assert all(after[url][2] == files[url][2] for url in expected - changed)  # the very same bytes
    assert get(sitemap_url, **{"If-None-Match": headers["ETag"]})[0] == 200  # the sitemap changed with it

    call_command("mwim_pull", sitemap_url, str(pulled), "--json", str(tmp_path / "pull2.json"))
    report = json.loads((tmp_path / "pull2.json").read_text())
    assert (report["changed"], report["unchanged"], report["downloaded"]) == (1, 5, 1)
