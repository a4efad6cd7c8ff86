"""Pages a crawl labelled through its probes become training data."""

from __future__ import annotations

import re

import pytest

from checks.training import crawl_labelled_pages
from sites.models import Page

pytestmark = pytest.mark.django_db


def test_a_soft404_servers_probe_answers_and_its_real_pages_are_labelled(httpserver, crawl_site):
    real = (
        "<html><head><title>Guide</title></head><body><p>" + "a real guide page " * 40 + "</p></body></html>"
    )
    sorry = "<html><head><title>Sorry</title></head><body><h1>Nothing here</h1></body></html>"
    httpserver.no_handler_status_code = 404
    httpserver.expect_request("/").respond_with_data(
        '<html><body><a href="/guide/intro">Intro</a><a href="/guide/old">Old</a></body></html>',
        content_type="text/html",
    )
    httpserver.expect_request("/guide/intro").respond_with_data(real, content_type="text/html")
    httpserver.expect_request(re.compile(r"/guide/.+")).respond_with_data(sorry, content_type="text/html")
    crawl = crawl_site(httpserver.url_for("/"))
    assert Page.objects.get(crawl=crawl, url__endswith="/guide/old").verdict == "soft404"

    labelled = list(crawl_labelled_pages())
    positives = [page for page in labelled if page.label == 1]
    negatives = [page for page in labelled if page.label == 0]
    assert len(positives) == 1 and b"Nothing here" in positives[0].html
    assert re.search(r"/guide/[a-z]{25}$", positives[0].url)
    assert {page.url.split("/", 3)[3] for page in negatives} == {"", "guide/intro"}
