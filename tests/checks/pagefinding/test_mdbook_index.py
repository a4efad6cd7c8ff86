"""mdBook's own search index (issue 19): read as the book's search box reads it, from the URL every page of the
book names; its sections read as their pages; hostile, huge or malformed indexes refused clearly; a site of
several books searched book by book."""

from __future__ import annotations

import json
import random

import pytest

from checks.pagefinding import mdbookindex
from checks.pagefinding.algorithms import search
from checks.pagefinding.live import LiveSettings, LiveSite
from checks.pagefinding.mdbookindex import parse_mdbook_index
from checks.pagefinding.siteindex import NotAnIndex
from checks.pagefinding.text import query_terms
from sites.http import FetchSettings

from .books import (
    FILLER,
    LIGHTHOUSE,
    as_script,
    book_page,
    elasticlunr_index,
    robots_and_no_sitemap,
    serve_book,
)
from .sites import HTML, live_search, read_html, requested

SETTINGS = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0))


def find(start: str, query: str, budget: int | None = 60):
    return live_search(start, query, budget=budget, settings=SETTINGS)[1]


def test_a_books_index_leads_straight_to_a_page_no_link_text_names(httpserver):
    serve_book(httpserver, "/", {9: LIGHTHOUSE, 4: "lighthouse history " + FILLER})
    robots_and_no_sitemap(httpserver)
    result = find(httpserver.url_for("/"), "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/chapter9.html")
    fetched = requested(httpserver)
    # the index the start page names, then the page it ranks first: no chapter is read before it
    assert fetched.index("/searchindex-ab12.js") < fetched.index("/chapter9.html")
    assert [path for path in fetched if path.startswith("/chapter")][0] == "/chapter9.html"
    assert result.downloads == len(fetched)  # the index is a download too
    assert httpserver.url_for("/chapter4.html") in [node for node, _ in result.candidates[1:]]


def test_a_site_of_books_reads_the_next_books_index_when_the_first_lacks_the_query(httpserver):
    """The home page links two books; the first book's index holds no page with the query's words, so the
    search goes on to the other book (the first book's home page's sibling) and its index."""
    httpserver.expect_request("/").respond_with_data(
        "<html><head><title>Docs</title></head><body><a href='/first/'>The First Book</a>"
        "<a href='/second/'>The Second Book</a></body></html>",
        content_type=HTML,
    )
    serve_book(httpserver, "/first/", {})
    serve_book(httpserver, "/second/", {7: LIGHTHOUSE})
    robots_and_no_sitemap(httpserver)
    result = find(httpserver.url_for("/"), "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/second/chapter7.html")
    fetched = requested(httpserver)
    assert "/first/searchindex-ab12.js" in fetched and "/second/searchindex-ab12.js" in fetched
    # the other book before any page the first book's index says holds none of the query
    assert not [path for path in fetched if path.startswith("/first/chapter")]


def test_sections_are_read_as_the_pages_that_hold_them_and_named_relative_to_the_index():
    sections = {
        "guide/start.html#start": ("Getting started", "install the keeper"),
        "guide/start.html#next": ("Next steps", "lantern oil"),
        "intro.html#intro": ("Introduction", "a lighthouse"),
    }
    index = parse_mdbook_index(
        as_script(elasticlunr_index(sections)), index_url="http://127.0.0.1:9/book/s.js"
    )
    assert index.urls == ["http://127.0.0.1:9/book/guide/start.html", "http://127.0.0.1:9/book/intro.html"]
    assert index.titles == ["Getting started", "Introduction"]  # a page's first section names it
    assert [url for url, _ in index.rank("keeper lantern")] == ["http://127.0.0.1:9/book/guide/start.html"]
    assert index.best_share("keeper lantern") == 1.0 and index.best_share("keeper lighthouse") < 1.0


def test_every_form_mdbook_has_written_its_index_in_is_read():
    index = elasticlunr_index({"a.html#a": ("It's here", "the keeper's \\ lantern")})
    older = b"Object.assign(window.search, " + json.dumps(index).encode() + b");"
    plain_json = json.dumps(index).encode()  # searchindex.json
    for body in (as_script(index), older, plain_json):
        assert parse_mdbook_index(body, index_url="http://127.0.0.1:9/searchindex.js").titles == ["It's here"]


def test_an_index_without_its_document_store_still_gives_its_words():
    index = elasticlunr_index({"a.html#a": ("Keeper", "lantern")})
    del index["index"]["documentStore"]
    parsed = parse_mdbook_index(json.dumps(index).encode(), index_url="http://127.0.0.1:9/searchindex.json")
    assert parsed.titles == [""] and parsed.rank("lantern")


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b'window.search = Object.assign(window.search, JSON.parse(\'{"doc_urls": [',
        b"Search.setIndex({})",
        b'{"doc_urls": 3, "index": {}}',
        b'{"doc_urls": [1, 2], "index": {"index": {}}}',
        b'{"doc_urls": ["a.html"]}',
        b"[" * 100_000 + b"]" * 100_000,
        b"\x00\xff" * 50,
        b"window.search = Object.assign(window.search, JSON.parse('\xff\xfe'));",
    ],
)
def test_hostile_or_malformed_indexes_are_refused_clearly(body):
    with pytest.raises(NotAnIndex):
        parse_mdbook_index(body, index_url="http://127.0.0.1/searchindex.js")


def test_an_index_too_large_to_walk_is_refused_not_walked(monkeypatch):
    monkeypatch.setattr(mdbookindex, "MAX_TRIE_NODES", 50)
    words = " ".join(f"word{n}" for n in range(100))
    body = json.dumps(elasticlunr_index({"a.html#a": ("A", words)})).encode()
    with pytest.raises(NotAnIndex, match="more than 50"):
        parse_mdbook_index(body, index_url="http://127.0.0.1/searchindex.json")


def test_section_numbers_out_of_range_or_absurd_are_ignored():
    index = elasticlunr_index({"a.html#a": ("A", "lantern")})
    index["index"]["index"]["body"]["root"]["l"]["docs"] = {"7" * 5000: {}, "-1": {}, "x": {}}
    parsed = parse_mdbook_index(json.dumps(index).encode(), index_url="http://127.0.0.1/searchindex.json")
    assert parsed.rank("lantern") == [("http://127.0.0.1/a.html", pytest.approx(1 / 3))]


def test_a_huge_index_is_a_refused_download_and_the_search_goes_on(httpserver):
    serve_book(httpserver, "/", {9: LIGHTHOUSE})  # its index is larger than the 2,000 bytes allowed below
    robots_and_no_sitemap(httpserver)
    env = LiveSite(
        httpserver.url_for("/"),
        LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0, max_bytes=2_000)),
        max_downloads=40,
    )
    env.open()
    try:
        result = search(
            env,
            query_terms("lighthouse keeper"),
            "BESTFIRST",
            rng=random.Random(0),
            query_text="lighthouse keeper",
        )
    finally:
        env.close()
    assert "/searchindex-ab12.js" in requested(httpserver)
    assert requested(httpserver).count("/searchindex-ab12.js") == 1  # read once, though every page names it
    refused = [entry for entry in result.log if entry.note.startswith("site search index")]
    assert len(refused) == 1 and not refused[0].ok and "larger" in refused[0].note
    assert result.found == httpserver.url_for("/chapter9.html")


def parsed(html: str, url: str = "http://127.0.0.1:9/book/ch1.html"):
    return read_html(html, url)


def test_a_page_names_the_index_its_search_box_loads():
    new = parsed(book_page("One", "text", "searchindex-ab12.js"))
    assert new.search_index == "http://127.0.0.1:9/book/searchindex-ab12.js"
    older = parsed(
        '<html><head><script>var path_to_root = "../";</script><script src="../searcher.js"></script></head>'
        "<body></body></html>"
    )
    assert older.search_index == "http://127.0.0.1:9/searchindex.json"
    assert parsed("<html><head><script>var path_to_root = '';</script></head></html>").search_index == ""
    long_script = "var x = 1;" * 500 + 'window.path_to_searchindex_js = "s.js";'
    assert parsed(f"<html><head><script>{long_script}</script></head></html>").search_index == ""


def test_a_search_results_page_that_shows_what_the_search_page_shows_is_no_results(httpserver):
    """rustdoc's search form names a page whose results a script fills in: the page read with the query is
    the page without it, and its links are not followed as results."""
    httpserver.expect_request("/").respond_with_data(
        "<html><head><title>Docs</title></head><body><form action='/api.html'><input name='search'></form>"
        "<a href='/guide.html'>Guide</a></body></html>",
        content_type=HTML,
    )
    httpserver.expect_request("/api.html").respond_with_data(
        "<html><head><title>API</title></head><body><p>keeper</p><a href='/keeper.html'>keeper</a>"
        "</body></html>",
        content_type=HTML,
    )
    httpserver.expect_request("/keeper.html").respond_with_data(
        "<html><head><title>Keeper type</title></head><body><p>keeper</p></body></html>", content_type=HTML
    )
    httpserver.expect_request("/guide.html").respond_with_data(
        "<html><head><title>Guide</title></head><body><p>the lighthouse keeper lights the lantern</p></body>"
        "</html>",
        content_type=HTML,
    )
    robots_and_no_sitemap(httpserver)
    result = find(httpserver.url_for("/"), "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/guide.html")
    fetched = requested(httpserver)
    assert "/keeper.html" not in fetched[: fetched.index("/guide.html")]
