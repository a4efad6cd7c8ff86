"""MWIM's public URLs (verified sites only, caching headers, 304s), the push endpoint, and the owner's pages."""

from __future__ import annotations

import gzip

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from mwim.ce import decode
from mwim.models import ContentExtractFile, MwimSite
from mwim.services import push_token_rotate
from sites.services.sites import site_share
from tests.mwim.factories import ce_bytes, make_mwim_site
from tests.sites.factories import body, make_site, make_user

pytestmark = pytest.mark.django_db


def published(owner=None, **fields) -> tuple[MwimSite, ContentExtractFile]:
    mwim_site = make_mwim_site(owner, published_at=timezone.now(), **fields)
    url = mwim_site.site.url + "a.html"
    data = ce_bytes(url, "apples")
    row = ContentExtractFile.objects.create(
        mwim_site=mwim_site, url=url, url_key="a" * 40, data=data, fingerprint=decode(data).fingerprint_text,
        updated_at=timezone.now(),
    )  # fmt: skip
    return mwim_site, row


def test_the_sitemap_and_ce_files_of_a_verified_site_are_public(client):
    mwim_site, row = published()
    response = client.get(reverse("mwim:sitemap", args=[mwim_site.site_id]))
    assert response.status_code == 200 and response["Content-Type"] == "application/xml; charset=utf-8"
    assert response["Cache-Control"] == "public, max-age=300" and response["Last-Modified"]
    assert row.url.encode() in response.content and b"sha256:" in response.content
    assert b"http://testserver/mwim/" in response.content  # ce:loc is absolute
    ce = client.get(reverse("mwim:ce", args=[mwim_site.site_id, row.url_key]))
    assert ce.status_code == 200 and ce.content == bytes(row.data)
    assert ce["Content-Type"] == "application/vnd.mwim.content-extract" and ce["ETag"]


def test_etag_and_last_modified_answer_304(client):
    mwim_site, row = published()
    url = reverse("mwim:sitemap", args=[mwim_site.site_id])
    first = client.get(url)
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert client.get(url, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 304
    ce_url = reverse("mwim:ce", args=[mwim_site.site_id, row.url_key])
    assert client.get(ce_url, HTTP_IF_NONE_MATCH=client.get(ce_url)["ETag"]).status_code == 304
    MwimSite.objects.filter(pk=mwim_site.pk).update(published_at=timezone.now())
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_the_sitemap_is_built_once_per_publication(client):
    mwim_site, row = published()
    url = reverse("mwim:sitemap", args=[mwim_site.site_id])
    first = client.get(url).content
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url).content
        gz = client.get(reverse("mwim:sitemap-gz", args=[mwim_site.site_id])).content
    assert again == first and gzip.decompress(gz) == first
    assert not [query for query in queries if "mwim_contentextractfile" in query["sql"]]  # from the cache
    ContentExtractFile.objects.filter(pk=row.pk).update(listed=False)
    assert client.get(url).content == first  # nothing published yet: the cached sitemap stands
    MwimSite.objects.filter(pk=mwim_site.pk).update(published_at=timezone.now())
    assert row.url.encode() not in client.get(url).content  # a new publication builds it again


def test_gzip_is_offered(client):
    mwim_site, row = published()
    response = client.get(reverse("mwim:sitemap-gz", args=[mwim_site.site_id]))
    assert response["Content-Type"] == "application/gzip"
    assert row.url.encode() in gzip.decompress(response.content)


def test_unverified_disabled_or_unknown_sites_answer_404(client):
    mwim_site, row = published()
    MwimSite.objects.filter(pk=mwim_site.pk).update(verified_at=None)
    assert client.get(reverse("mwim:sitemap", args=[mwim_site.site_id])).status_code == 404
    assert client.get(reverse("mwim:ce", args=[mwim_site.site_id, row.url_key])).status_code == 404
    MwimSite.objects.filter(pk=mwim_site.pk).update(verified_at=timezone.now(), enabled=False)
    assert client.get(reverse("mwim:sitemap", args=[mwim_site.site_id])).status_code == 404
    assert client.get(reverse("mwim:sitemap", args=[999999])).status_code == 404
    assert client.get(reverse("mwim:sitemap-part", args=[mwim_site.site_id, 1])).status_code == 404


def test_an_unlisted_page_has_no_public_ce(client):
    mwim_site, row = published()
    ContentExtractFile.objects.filter(pk=row.pk).update(listed=False)
    assert client.get(reverse("mwim:ce", args=[mwim_site.site_id, row.url_key])).status_code == 404
    assert row.url.encode() not in client.get(reverse("mwim:sitemap", args=[mwim_site.site_id])).content


def test_push_refuses_a_wrong_token_and_an_off_site_url(client):
    mwim_site, _ = published()
    token = push_token_rotate(mwim_site=mwim_site)
    url = reverse("mwim:push", args=[mwim_site.site_id])
    assert client.post(url, {"url": mwim_site.site.url}, HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.post(url, {"url": mwim_site.site.url}).status_code == 403
    off_site = client.post(url, {"url": "https://elsewhere.example/x"}, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert off_site.status_code == 400 and "not on" in off_site.json()["error"]
    assert client.post(url, {}, HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 400
    assert client.get(url).status_code == 405


def test_push_with_the_token_refreshes_the_page_now(
    httpserver, eager_jobs, django_capture_on_commit_callbacks
):
    page = httpserver.url_for("/a.html")
    httpserver.expect_request("/a.html").respond_with_data(
        "<html><body><p>pushed pineapples</p></body></html>", content_type="text/html"
    )
    site = make_site(make_user(), url=httpserver.url_for("/"))
    mwim_site = MwimSite.objects.create(site=site, verified_at=timezone.now())
    token = push_token_rotate(mwim_site=mwim_site)
    with django_capture_on_commit_callbacks(execute=True):
        response = Client().post(
            reverse("mwim:push", args=[site.pk]), {"url": page}, HTTP_AUTHORIZATION=f"Bearer {token}"
        )
    assert response.status_code == 202
    row = ContentExtractFile.objects.get(mwim_site=mwim_site)
    assert row.url == page and "pineappl" in decode(bytes(row.data)).terms


def test_push_answers_429_with_retry_after_past_the_sites_limit_a_minute(client, settings):
    settings.WEBAUDIT_MWIM_PUSH_PER_MINUTE = 2
    limited, _ = published()
    other, _ = published()
    tokens = {site: push_token_rotate(mwim_site=site) for site in (limited, other)}

    def push(mwim_site):
        return client.post(
            reverse("mwim:push", args=[mwim_site.site_id]), {"url": mwim_site.site.url + "a.html"},
            HTTP_AUTHORIZATION=f"Bearer {tokens[mwim_site]}",
        )  # fmt: skip

    assert [push(limited).status_code for _ in range(2)] == [202, 202]
    refused = push(limited)
    assert refused.status_code == 429 and "2 pushes" in refused.json()["error"]
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert push(other).status_code == 202  # the limit is the site's, not everyone's


def test_the_owner_registers_and_sees_verification_instructions(signed_in, owner):
    site = make_site(owner)
    page = signed_in.get(reverse("mwim:site", args=[site.pk]))
    assert "not registered" in body(page)
    signed_in.post(reverse("mwim:site-action", args=[site.pk, "register"]))
    text = body(signed_in.get(reverse("mwim:site", args=[site.pk])))
    token = MwimSite.objects.get(site=site).verification_token
    assert f'content="{token}"' in text.replace("&quot;", '"') and "webaudit-mwim-verification.txt" in text


def test_an_unregistered_site_says_what_registering_does_and_who_may(signed_in, owner, client):
    site = make_site(owner)
    page = body(signed_in.get(reverse("mwim:site", args=[site.pk])))
    assert "builds its content extracts after each crawl" in page and "Register for MWIM" in page
    assert "docs/mwim.md" not in page  # a path in the repository means nothing to a site owner
    reader = make_user()
    site_share(site=site, username=reader.username)
    client.force_login(reader)
    page = body(client.get(reverse("mwim:site", args=[site.pk])))
    assert "Only its owner can register it." in page and "Register for MWIM" not in page


def test_another_user_cannot_see_or_manage_the_mwim_page(client, owner):
    mwim_site, _ = published(owner)
    client.force_login(make_user())
    assert client.get(reverse("mwim:site", args=[mwim_site.site_id])).status_code == 404
    assert client.post(reverse("mwim:site-action", args=[mwim_site.site_id, "push-token"])).status_code == 404


def test_actions_need_the_csrf_token(owner):
    mwim_site, _ = published(owner)
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(reverse("mwim:site-action", args=[mwim_site.site_id, "push-token"])).status_code == 403


def test_indexnow_endpoints_are_checked(signed_in, owner):
    mwim_site, _ = published(owner)
    url = reverse("mwim:site-action", args=[mwim_site.site_id, "indexnow"])
    signed_in.post(url, {"endpoints": "not a url"})
    assert MwimSite.objects.get(pk=mwim_site.pk).indexnow_endpoints == []
    signed_in.post(url, {"endpoints": "https://api.indexnow.org/indexnow\n"})
    assert MwimSite.objects.get(pk=mwim_site.pk).indexnow_endpoints == ["https://api.indexnow.org/indexnow"]


def test_the_report_view_shows_the_extract(signed_in, owner):
    mwim_site, row = published(owner)
    text = body(signed_in.get(reverse("mwim:site-ce", args=[mwim_site.site_id, row.url_key])))
    assert "Token dictionary" in text and "appl" in text and row.fingerprint in text


def test_the_report_view_says_when_a_file_is_unreadable(signed_in, owner):
    mwim_site, row = published(owner)
    ContentExtractFile.objects.filter(pk=row.pk).update(data=b"MWCE\x09")
    text = body(signed_in.get(reverse("mwim:site-ce", args=[mwim_site.site_id, row.url_key])))
    assert "cannot be read" in text


def test_the_crawl_page_offers_the_ce_job_and_its_page_shows_the_result(signed_in, owner):
    from checks.jobs import job_run, job_start
    from tests.mwim.factories import make_crawl_with_pages

    mwim_site = make_mwim_site(owner)
    crawl = make_crawl_with_pages(mwim_site.site, {mwim_site.site.url + "a": "apples"})
    assert "Content extracts (MWIM)" in body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    job = job_run(job=job_start(kind="ce", crawl=crawl, site=crawl.site, parameters={}, enqueue=False))
    text = body(signed_in.get(reverse("checks:job", args=[job.pk])))
    assert "1 pages listed" in text and "1 changed" in text


def test_a_site_past_the_url_limit_serves_an_index_and_its_parts(client, monkeypatch):
    import lxml.etree

    mwim_site, row = published()
    ContentExtractFile.objects.create(
        mwim_site=mwim_site, url=mwim_site.site.url + "b.html", url_key="b" * 40, data=bytes(row.data),
        fingerprint=row.fingerprint, updated_at=timezone.now(),
    )  # fmt: skip
    monkeypatch.setattr("mwim.sitemap.MAX_URLS", 1)
    index = lxml.etree.fromstring(client.get(reverse("mwim:sitemap", args=[mwim_site.site_id])).content)
    assert index.tag.endswith("sitemapindex")
    parts = [element[0].text for element in index]
    assert parts == [f"http://testserver/mwim/{mwim_site.site_id}/sitemap-{n}.xml" for n in (1, 2)]
    second = client.get(reverse("mwim:sitemap-part", args=[mwim_site.site_id, 2]))
    assert second.status_code == 200 and b"b.html" in second.content and b"a.html" not in second.content
    assert client.get(reverse("mwim:sitemap-part", args=[mwim_site.site_id, 3])).status_code == 404


def test_the_admin_lists_mwim_sites_and_files(admin_client):
    published()
    assert admin_client.get(reverse("admin:mwim_mwimsite_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:mwim_contentextractfile_changelist")).status_code == 200


def test_any_uploaded_ce_file_gets_its_report_and_a_bad_one_its_reason(signed_in):
    from django.core.files.uploadedfile import SimpleUploadedFile

    url = reverse("mwim:report-upload")
    good = SimpleUploadedFile("a.ce", ce_bytes("https://x.example/a", "apricots"))
    text = body(signed_in.post(url, {"file": good}))
    assert "Token dictionary" in text and "apricot" in text
    bad = SimpleUploadedFile("b.ce", b"MWCE\\x02garbage")
    assert "cannot be read" in body(signed_in.post(url, {"file": bad}))
    assert "Choose a .ce file" in body(signed_in.post(url, {}))


def test_the_upload_page_shows_a_refused_file_as_an_error_and_names_no_repository_path(signed_in):
    url = reverse("mwim:report-upload")
    assert "docs/" not in body(signed_in.get(url))
    assert '<p class="alert alert-error" role="alert">Choose a .ce file' in body(signed_in.post(url, {}))


def test_the_upload_report_needs_a_login(client):
    assert client.get(reverse("mwim:report-upload")).status_code == 302
