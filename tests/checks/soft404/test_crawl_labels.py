"""Pages a crawl labelled through its probes become training data."""

from __future__ import annotations

import re

import pytest

from checks.soft404.crawl_labels import crawl_labelled_pages
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
    assert {page.url.split("/", 3)[3] for page in negatives} == {"guide/intro"}  # the root is never probed


def test_a_home_page_served_for_unknown_urls_is_never_learnt_as_a_soft404(httpserver, crawl_site):
    """Redirect-to-home and single-page-app servers answer the probe with a real page's content."""
    home = "<html><body><h1>Welcome</h1><p>" + "our home page text " * 30 + '</p><a href="/spa/x">x</a>'
    home += '<a href="/go/y">y</a></body></html>'
    httpserver.expect_request("/").respond_with_data(home, content_type="text/html")
    httpserver.expect_request(re.compile(r"/spa/.+")).respond_with_data(home, content_type="text/html")
    httpserver.expect_request(re.compile(r"/go/.+")).respond_with_data(
        "", status=302, headers={"Location": "/"}
    )
    httpserver.no_handler_status_code = 404
    crawl = crawl_site(httpserver.url_for("/"))
    assert set(Page.objects.filter(crawl=crawl, depth=1).values_list("verdict", flat=True)) == {"soft404"}
    assert [page for page in crawl_labelled_pages() if page.label == 1] == []


def tiny_corpus(directory):
    """A corpus of a few real-looking pages in the manifest format build_soft404_corpus writes."""
    import hashlib
    import json

    (directory / "pages").mkdir(parents=True)
    lines = []
    for number in range(24):
        label = number % 2
        words = "page not found sorry" if label else "installing the widget toolkit step by step"
        html = f"<html><head><title>{words}</title></head><body><h1>{words}</h1><p>{words * (3 + number)}</p>"
        html += "<img src='x.png'>" * (0 if label else 3) + "</body></html>"
        path = directory / "pages" / f"{number}.html"
        path.write_text(html)
        lines.append(
            json.dumps(
                {
                    "bytes": len(html),
                    "file": f"pages/{number}.html",
                    "id": f"test/{number}",
                    "label": label,
                    "lang": "en",
                    "license": "test",
                    "origin": "test",
                    "package": "test",
                    "sha256": hashlib.sha256(html.encode()).hexdigest(),
                    "source": "test",
                    "synthetic": False,
                    "url": f"http://localhost/test/{number}.html",
                }
            )
        )
    (directory / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    return directory


def test_train_soft404_adds_the_crawl_labelled_pages_and_saves_a_loadable_model(
    httpserver, crawl_site, tmp_path
):
    import json

    from django.core.management import call_command

    from sites.crawler.soft404.model import load_model

    sorry = "<html><head><title>Sorry</title></head><body><h1>Nothing here</h1></body></html>"
    httpserver.no_handler_status_code = 404
    httpserver.expect_request("/").respond_with_data('<a href="/docs/old">old</a>', content_type="text/html")
    httpserver.expect_request(re.compile(r"/docs/.+")).respond_with_data(sorry, content_type="text/html")
    crawl_site(httpserver.url_for("/"))
    output = tmp_path / "model.joblib"
    call_command(
        "train_soft404",
        "--corpus",
        str(tiny_corpus(tmp_path / "corpus")),
        "--output",
        str(output),
        "--from-crawls",
    )
    metadata = json.loads(output.with_suffix(".json").read_text())
    assert metadata["training_crawl_labelled_pages"] == 1  # the probe's answer
    assert metadata["training_pages"] == 25
    assert load_model(output).probability_of_tree is not None


def test_train_soft404_without_a_corpus_says_how_to_build_one(tmp_path):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="build_soft404_corpus"):
        call_command(
            "train_soft404", "--corpus", str(tmp_path / "none"), "--output", str(tmp_path / "m.joblib")
        )


def test_query_probe_answers_are_never_learnt_as_soft404_pages(httpserver, crawl_site):
    """A program that ignores a parameter answers the query probe with the page itself: no soft-404 to learn."""
    page = (
        "<html><head><title>Catalogue</title></head><body><p>"
        + "gears and levers " * 40
        + "</p></body></html>"
    )
    httpserver.no_handler_status_code = 404
    httpserver.expect_request("/").respond_with_data(
        '<html><body><a href="/catalogue?campaign=spring">Catalogue</a></body></html>',
        content_type="text/html",
    )
    httpserver.expect_request("/catalogue").respond_with_data(page, content_type="text/html")
    crawl_site(httpserver.url_for("/"))
    assert [p for p in crawl_labelled_pages() if p.label == 1] == []
