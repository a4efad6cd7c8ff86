"""Pages are read (parsed, links, soft-404 features) in reader processes, which may die or hang without loss."""

from __future__ import annotations

import os
import signal

import lxml.html
import pytest

from sites.crawler import reading
from sites.crawler.parse import element_text, parse_document
from sites.crawler.reading import PageReader, PageRequest, ReaderDied
from sites.crawler.soft404.errors import ModelVersionError
from sites.models import Crawl, Link, Page
from tests.sites.sitebuilder import html, serve_site

PAGE = (
    b"<html><head><title>Not found</title></head><body><h1>Page not found</h1>"
    b"<p>Sorry, the page you asked for does not exist.</p><a href='/a'>Go <b>home</b></a>"
    b"<img src='x.png' alt='logo'><script>var hidden = 1;</script></body></html>"
)
# The page's visible text: the script is not part of it.
PROBE_TEXT = "Page not found Sorry, the page you asked for does not exist. Go home"


def request(**overrides) -> PageRequest:
    return PageRequest(
        **{"body": PAGE, "url": "http://example.com/dir/page", "probe_text": PROBE_TEXT, **overrides}
    )


@pytest.fixture
def reader():
    reader = PageReader(1)
    yield reader
    reader.close()


def reader_pids(reader: PageReader) -> list[int]:
    return [process.process.pid for process in reader._idle.queue]


def test_a_page_read_in_a_reader_process_is_read_as_in_the_thread(reader):
    here = PageReader(0).read(request())
    there = reader.read(request())
    assert there == here
    assert [(link.url, link.text) for link in there.page.links] == [
        ("http://example.com/a", "Go home"),
        ("http://example.com/dir/x.png", "logo"),
    ]
    assert there.page.title == "Not found" and there.parsed and there.encoding
    assert 0 <= there.probability <= 1 and there.says_not_found is True
    assert there.probe_resemblance == 1.0
    assert reader.read(request(probe_text=PROBE_TEXT + " and more words")).probe_resemblance < 1.0
    (pid,) = reader_pids(reader)
    assert pid != os.getpid()


def test_what_the_crawl_does_not_ask_for_is_not_read(reader):
    reading_ = reader.read(request(with_links=False, model=None, probe_text=None))
    assert reading_.page.title == "Not found" and reading_.page.links == []
    assert (reading_.probability, reading_.says_not_found, reading_.probe_resemblance) == (None, None, None)


def test_a_reader_that_dies_is_replaced_and_the_page_read_by_the_next(reader):
    reader.read(request())
    (first,) = reader_pids(reader)
    os.kill(first, signal.SIGKILL)
    assert reader.read(request()).page.title == "Not found"
    (second,) = reader_pids(reader)
    assert second != first


def test_a_page_whose_readers_keep_dying_is_recorded_unreadable(reader, monkeypatch):
    def dies(self, name, argument, timeout):
        raise ReaderDied("the reader process ended (exit status -9)")

    monkeypatch.setattr(reading._ReaderProcess, "call", dies)
    reading_ = reader.read(request())
    assert not reading_.parsed and "died twice" in reading_.page.error
    assert len(reader_pids(reader)) == 1  # the dead ones were replaced, not piled up


def test_a_reader_stuck_on_a_page_is_stopped_and_replaced():
    reader = PageReader(1, timeout=0.000_001)
    try:
        reading_ = reader.read(request())
        assert not reading_.parsed and "took over" in reading_.page.error
        reader.timeout = 30
        assert reader.read(request()).parsed  # its replacement reads the next page
    finally:
        reader.close()


def test_an_unusable_model_is_reported_from_the_reader(reader, tmp_path):
    with pytest.raises(ModelVersionError):
        reader.load_model(str(tmp_path / "no-such-model.joblib"))
    assert reader.read(request()).parsed  # the reader that refused the model still reads pages


def test_anchor_text_is_the_text_content_lxml_gives():
    body = (
        b"<p><a href=x>He<b>l<i>l</i>o</b> w<span>or</span>ld</a> tail <a href=y></a><a href=z>plain</a></p>"
    )
    root, _ = parse_document(body)
    expected = [a.text_content() for a in lxml.html.document_fromstring(body).iter("a")]
    assert [element_text(a) for a in root.iter("a")] == expected == ["Hello world", "", "plain"]


@pytest.mark.django_db
@pytest.mark.parametrize("readers", [0, 2])
def test_a_crawl_reads_the_same_with_or_without_reader_processes(httpserver, crawl_site, settings, readers):
    settings.WEBAUDIT_PAGE_READERS = readers
    root = serve_site(
        httpserver,
        {
            "/": html("Home", "/a", "/b", "/missing"),
            "/a": html("A", "/", "/b"),
            "/b": html("B", "/a", extra='<meta name="robots" content="nofollow">'),
        },
    )
    crawl = crawl_site(root)
    assert crawl.status == Crawl.Status.FINISHED
    pages = {page.url.removeprefix(root): page for page in Page.objects.filter(crawl=crawl)}
    assert {path: (page.title, page.verdict) for path, page in pages.items()} == {
        "": ("Home", "ok"),
        "a": ("A", "ok"),
        "b": ("B", "ok"),
        "missing": ("", "dead"),
    }
    assert pages["b"].nofollow and pages["a"].soft404_probability is not None
    assert Link.objects.filter(crawl=crawl).count() == 6


@pytest.mark.django_db
def test_a_crawl_with_an_unusable_model_fails_with_a_readable_error(
    httpserver, crawl_site, settings, tmp_path
):
    settings.WEBAUDIT_SOFT404_MODEL = str(tmp_path / "no-such-model.joblib")
    crawl = crawl_site(serve_site(httpserver, {"/": html("Home")}))
    assert crawl.status == Crawl.Status.FAILED
    assert "soft-404 model cannot be used" in crawl.error


@pytest.mark.django_db
def test_a_page_no_reader_survives_is_recorded_and_the_crawl_goes_on(
    httpserver, crawl_site, settings, monkeypatch
):
    settings.WEBAUDIT_PAGE_READERS = 1

    def dies(self, name, argument, timeout):
        if name == "read_page" and argument.url.endswith("/poison"):
            raise ReaderDied("the reader process ended (exit status -11)")
        return original(self, name, argument, timeout)

    original = reading._ReaderProcess.call
    monkeypatch.setattr(reading._ReaderProcess, "call", dies)
    root = serve_site(
        httpserver, {"/": html("Home", "/poison", "/fine"), "/poison": html("P", "/x"), "/fine": html("F")}
    )
    crawl = crawl_site(root)
    assert crawl.status == Crawl.Status.FINISHED
    poison = Page.objects.get(crawl=crawl, url=root + "poison")
    assert poison.status_code == 200 and poison.fetch_error == (
        "Page not read: the process reading this page died twice; not read"
    )
    assert not Link.objects.filter(source=poison).exists()  # its links were never read
    assert Page.objects.get(crawl=crawl, url=root + "fine").title == "F"
