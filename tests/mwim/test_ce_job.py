"""The `ce` job: stores changed extracts only, keeps a previous good file over a broken one, unlists pages
that left, announces changes with IndexNow, and is started by a finished crawl of MWIM sites only."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from werkzeug import Response

from checks.jobs import job_run, job_start
from checks.models import AnalysisJob
from mwim.ce import decode
from mwim.extract import wanted
from mwim.models import ContentExtractFile, MwimSite
from mwim.services import mwim_crawl_finished
from sites.models import PageBody, PageExtract, url_key
from tests.mwim.factories import ce_bytes, make_crawl_with_pages, make_mwim_site
from tests.sites.factories import make_crawl, make_site

pytestmark = pytest.mark.django_db
A, B, C = "https://s.example/a", "https://s.example/b", "https://s.example/c"


def run(crawl) -> AnalysisJob:
    job = job_run(job=job_start(kind="ce", crawl=crawl, site=crawl.site, parameters={}, enqueue=False))
    assert job.status == "finished", job.error
    return job


def rows(mwim_site) -> dict:
    return {row.url: row for row in ContentExtractFile.objects.filter(mwim_site=mwim_site)}


def test_a_recrawl_replaces_only_the_files_whose_page_changed():
    mwim_site = make_mwim_site()
    run(make_crawl_with_pages(mwim_site.site, {A: "apples", B: "bananas"}))
    before = rows(mwim_site)
    job = run(make_crawl_with_pages(mwim_site.site, {A: "apples", B: "blueberries"}))
    after = rows(mwim_site)
    assert job.result["changed"] == 1 and job.result["unchanged"] == 1 and job.result["changed_urls"] == [B]
    assert after[A].updated_at == before[A].updated_at and bytes(after[A].data) == bytes(before[A].data)
    assert after[B].updated_at > before[B].updated_at and after[B].fingerprint != before[B].fingerprint


def test_a_page_without_a_readable_body_keeps_the_previous_good_file():
    mwim_site = make_mwim_site()
    run(make_crawl_with_pages(mwim_site.site, {A: "apples"}))
    good = bytes(rows(mwim_site)[A].data)
    job = run(make_crawl_with_pages(mwim_site.site, {A: None}))
    assert job.result["kept_previous"] == 1 and job.result["changed"] == 0
    row = rows(mwim_site)[A]
    assert bytes(row.data) == good and row.listed


def test_an_unchanged_page_is_not_extracted_again():
    mwim_site = make_mwim_site()
    run(make_crawl_with_pages(mwim_site.site, {A: "apples"}))
    crawl = make_crawl_with_pages(mwim_site.site, {A: "apples"}, reader_extracts=False)
    PageBody.objects.filter(
        page__crawl=crawl
    ).delete()  # nothing to extract from: only the fingerprint is read
    job = run(crawl)
    assert (job.result["unchanged"], job.result["changed"], job.result["kept_previous"]) == (1, 0, 0)


def test_changed_pages_without_a_reader_extract_are_extracted_from_their_stored_bodies():
    mwim_site = make_mwim_site()
    run(make_crawl_with_pages(mwim_site.site, {A: "apples"}))
    run(make_crawl_with_pages(mwim_site.site, {A: "walnuts"}, reader_extracts=False))
    assert "walnut" in decode(bytes(rows(mwim_site)[A].data)).terms


def test_a_reader_extract_of_another_body_is_not_trusted():
    mwim_site = make_mwim_site()
    crawl = make_crawl_with_pages(mwim_site.site, {A: "walnuts"}, reader_extracts=False)
    PageExtract.objects.create(page=crawl.pages.get(), name="ce", data=ce_bytes(A, "stale apples"))
    run(crawl)
    terms = decode(bytes(rows(mwim_site)[A].data)).terms
    assert "walnut" in terms and "stale" not in terms


def test_dead_and_noindex_pages_are_not_listed():
    mwim_site = make_mwim_site()
    crawl = make_crawl_with_pages(mwim_site.site, {A: "apples"})
    from tests.sites.factories import make_page

    make_page(crawl, B, status_code=404, content_type="text/html")
    make_page(crawl, C, content_type="text/html", noindex=True)
    run(crawl)
    assert set(rows(mwim_site)) == {A}


def test_changed_pages_are_announced_to_the_configured_indexnow_endpoints(httpserver):
    httpserver.expect_request("/indexnow", method="POST").respond_with_response(Response("", status=202))
    mwim_site = make_mwim_site(indexnow_endpoints=[httpserver.url_for("/indexnow")])
    job = run(make_crawl_with_pages(mwim_site.site, {A: "apples", B: "bananas"}))
    assert job.result["indexnow"] == [
        {"endpoint": httpserver.url_for("/indexnow"), "announced": 2, "accepted": 2, "error": ""}
    ]
    [(request, _)] = httpserver.log
    host = mwim_site.site.url.split("/")[2]
    assert request.get_json() == {
        "host": host,
        "key": mwim_site.indexnow_key,
        "keyLocation": f"https://{host}/{mwim_site.indexnow_key}.txt",
        "urlList": [A, B],
    }


def test_no_endpoint_means_no_announcement(httpserver):
    mwim_site = make_mwim_site()
    job = run(make_crawl_with_pages(mwim_site.site, {A: "apples"}))
    assert job.result["indexnow"] == [] and httpserver.log == []


def test_a_finished_crawl_starts_the_job_only_for_mwim_sites():
    plain = make_crawl(make_site())
    mwim_crawl_finished(crawl=plain)
    assert not AnalysisJob.objects.filter(kind="ce").exists()
    mwim_site = make_mwim_site(verified=False)
    crawl = make_crawl(mwim_site.site)
    mwim_crawl_finished(crawl=crawl)
    assert AnalysisJob.objects.get(kind="ce").crawl == crawl
    MwimSite.objects.filter(pk=mwim_site.pk).update(enabled=False)
    mwim_crawl_finished(crawl=crawl)
    assert AnalysisJob.objects.filter(kind="ce").count() == 1


def test_the_readers_extract_only_when_asked_and_only_on_an_enabled_sites_first_crawl(settings):
    settings.WEBAUDIT_MWIM_READER_EXTRACTS = False
    assert not wanted(make_mwim_site().site)
    settings.WEBAUDIT_MWIM_READER_EXTRACTS = True
    assert not wanted(make_site())
    mwim_site = make_mwim_site(verified=False)
    assert wanted(mwim_site.site)
    run(make_crawl_with_pages(mwim_site.site, {A: "apples"}))
    assert not wanted(mwim_site.site)  # recrawls: the job extracts the changed pages only
    other = make_mwim_site()
    MwimSite.objects.filter(pk=other.pk).update(enabled=False)
    assert not wanted(other.site)


def test_the_command_refuses_a_site_not_registered():
    crawl = make_crawl(make_site())
    with pytest.raises(CommandError, match="not registered for MWIM") as raised:
        call_command("mwim_ce", str(crawl.pk))
    assert raised.value.returncode == 2


def test_the_command_runs_the_job_and_writes_its_report(tmp_path):
    mwim_site = make_mwim_site()
    crawl = make_crawl_with_pages(mwim_site.site, {A: "apples"})
    call_command("mwim_ce", str(crawl.pk), "--json", str(tmp_path / "r.json"), "--quiet")
    import json

    report = json.loads((tmp_path / "r.json").read_text())
    assert report["changed"] == 1 and report["crawl"] == crawl.pk


def test_a_pushed_page_too_big_or_gone_keeps_its_previous_file(httpserver):
    from django.utils import timezone

    from mwim.services import ce_refresh_page

    site = make_site(url=httpserver.url_for("/"))
    mwim_site = MwimSite.objects.create(site=site, verified_at=timezone.now())
    url = httpserver.url_for("/big.html")
    good = ce_bytes(url, "apples")
    ContentExtractFile.objects.create(
        mwim_site=mwim_site, url=url, url_key=url_key(url),
        data=good, fingerprint="sha256:" + "0" * 64, updated_at=timezone.now(),
    )  # fmt: skip
    httpserver.expect_ordered_request("/big.html").respond_with_data(
        "<html><body>" + "<p>huge page</p>" * 400_000 + "</body></html>", content_type="text/html"
    )
    httpserver.expect_ordered_request("/big.html").respond_with_data("gone", status=404)
    assert ce_refresh_page(mwim_site=mwim_site, url=url).startswith("not refreshed")
    assert ce_refresh_page(mwim_site=mwim_site, url=url).startswith(f"not refreshed: HTTP 404 at {url}")
    assert bytes(ContentExtractFile.objects.get(mwim_site=mwim_site).data) == good


def test_the_crawl_page_offers_content_extracts_only_for_a_registered_site(client, owner):
    from django.urls import reverse

    from tests.sites.factories import body

    client.force_login(owner)
    registered = make_crawl(make_mwim_site(owner).site)
    unregistered = make_crawl(make_site(owner))
    offer = "Run content extracts (mwim)"
    assert offer in body(client.get(reverse("sites:crawl", args=[registered.pk])))
    page = body(client.get(reverse("sites:crawl", args=[unregistered.pk])))
    assert offer not in page and "Run decay" in page
