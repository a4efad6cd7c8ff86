"""Ownership verification: a token file or a meta tag on the site itself, fetched through the HTTP client."""

from __future__ import annotations

import pytest
from werkzeug import Response

from mwim.models import MwimSite
from mwim.services import mwim_register, mwim_verify
from mwim.services.registration import FILE_NAME, META_NAME
from tests.sites.factories import make_site

pytestmark = pytest.mark.django_db


def registered(httpserver) -> MwimSite:
    return mwim_register(site=make_site(url=httpserver.url_for("/")))


def test_the_token_file_proves_control(httpserver):
    mwim_site = registered(httpserver)
    httpserver.expect_request(f"/{FILE_NAME}").respond_with_data(mwim_site.verification_token + "\n")
    assert mwim_verify(mwim_site=mwim_site)
    mwim_site.refresh_from_db()
    assert mwim_site.is_verified and mwim_site.verified_by == "file" and mwim_site.verification_error == ""


def test_the_meta_tag_on_the_start_page_proves_control(httpserver):
    mwim_site = registered(httpserver)
    token = mwim_site.verification_token
    httpserver.expect_request("/").respond_with_data(
        f'<html><head><meta name="{META_NAME}" content="{token}"></head><body></body></html>',
        content_type="text/html",
    )
    assert mwim_verify(mwim_site=mwim_site)
    assert MwimSite.objects.get(pk=mwim_site.pk).verified_by == "meta"


def test_a_wrong_token_does_not_verify_and_says_why(httpserver):
    mwim_site = registered(httpserver)
    httpserver.expect_request(f"/{FILE_NAME}").respond_with_data("someone-elses-token")
    httpserver.expect_request("/").respond_with_data(
        "<html><body>hello</body></html>", content_type="text/html"
    )
    assert not mwim_verify(mwim_site=mwim_site)
    mwim_site.refresh_from_db()
    assert not mwim_site.is_verified
    assert "does not hold the token" in mwim_site.verification_error
    assert "no meta tag" in mwim_site.verification_error


def test_a_redirect_to_another_host_proves_nothing(httpserver):
    mwim_site = registered(httpserver)
    elsewhere = httpserver.url_for(f"/{FILE_NAME}").replace("localhost", "127.0.0.1")
    httpserver.expect_request(f"/{FILE_NAME}").respond_with_response(
        Response(status=302, headers={"Location": elsewhere})
    )
    httpserver.expect_request("/").respond_with_data("<html></html>", content_type="text/html")
    assert not mwim_verify(mwim_site=mwim_site)


def test_an_unreachable_site_does_not_verify(closed_port):
    mwim_site = mwim_register(site=make_site(url=f"http://127.0.0.1:{closed_port}/"))
    assert not mwim_verify(mwim_site=mwim_site)
    assert mwim_site.verification_error
