"""Finding a page by its own words on a live site (issue 19): the site's own search index, BM25 over what was
read, an honest "not found", candidates with scores, and the paper's algorithms guided by link texts."""

from __future__ import annotations

import json

import pytest

from checks.pagefinding.live import LiveSettings
from checks.pagefinding.siteindex import NotAnIndex, parse_sphinx_index, stem
from sites.http import FetchSettings

from .sites import HTML, live_search, page, requested

SETTINGS = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0))
FILLER = "chapter section guide overview notes reference "


def find(start: str, query: str, algorithm: str = "BESTFIRST", budget: int | None = 60):
    return live_search(start, query, algorithm=algorithm, budget=budget, settings=SETTINGS)


def serve_docs(
    server, *, with_index: bool = True, pages: int = 30, opensearch: bool = False, old_sphinx: bool = False
) -> str:
    """A documentation site: a home page linking chapters whose link texts say nothing of their pages' words;
    page 17 is about "lighthouse keeper lantern" (its most frequent words). With `with_index`, a Sphinx search
    page that loads searchindex.js listing every page's words (`old_sphinx`: from an inline script, as Sphinx
    before 2.0 did)."""
    words = {n: f"topic{n} " + FILLER for n in range(pages)}
    words[17] = "lighthouse keeper lantern lighthouse keeper lantern lighthouse foghorn " + FILLER
    words[5] = "lighthouse history " + FILLER  # holds one query word: a runner-up, not the answer
    links = "".join(f"<li><a href='/chapter{n}.html'>Chapter {n}</a></li>" for n in range(pages))
    head = "<link rel='search' title='Search' href='/search.html'>" if with_index else ""
    if opensearch:  # as Python's docs: the link names an OpenSearch description, the form the search page
        head = "<link rel='search' type='application/opensearchdescription+xml' href='/opensearch.xml'>"
        links += "<form action='/search.html' method='get'><input type='text' name='q'></form>"
        server.expect_request("/opensearch.xml").respond_with_data(
            "<OpenSearchDescription/>", content_type="application/opensearchdescription+xml"
        )
    server.expect_request("/").respond_with_data(
        f"<html><head><title>Docs</title>{head}</head><body><ul>{links}</ul></body></html>", content_type=HTML
    )
    for n in range(pages):
        server.expect_request(f"/chapter{n}.html").respond_with_data(
            page(f"Chapter {n}", f"<p>{words[n]}</p><a href='/'>Home</a>"), content_type=HTML
        )
    server.expect_request("/robots.txt").respond_with_data("User-agent: *\n", content_type="text/plain")
    server.expect_request("/sitemap.xml").respond_with_data("missing", status=404)
    if with_index:
        loads = (
            "<script src='_static/searchtools.js'></script><script>jQuery(function() { "
            'Search.loadIndex("searchindex.js"); });</script>'
            if old_sphinx
            else "<script src='/searchindex.js' defer></script>"
        )
        server.expect_request("/search.html").respond_with_data(
            f"<html><head><title>Search</title>{loads}</head>"
            "<body><form action='/search.html'><input name='q'></form></body></html>",
            content_type=HTML,
        )
        terms: dict[str, list[int]] = {}
        for n in range(pages):
            for word in words[n].split():  # Porter stems, as Sphinx's English index keeps them
                terms.setdefault(stem(word), [])
                if n not in terms[stem(word)]:
                    terms[stem(word)].append(n)
        index = {
            "docnames": [f"chapter{n}" for n in range(pages)],
            "titles": [f"Chapter {n}" for n in range(pages)],
            "terms": terms,
            "titleterms": {"chapter": list(range(pages))},
        }
        server.expect_request("/searchindex.js").respond_with_data(
            "Search.setIndex(" + json.dumps(index) + ")", content_type="application/javascript"
        )
    return server.url_for("/")


def test_the_sites_own_search_index_leads_straight_to_a_page_no_link_text_names(httpserver):
    start = serve_docs(httpserver)
    env, result = find(start, "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/chapter17.html")
    fetched = requested(httpserver)
    assert "/searchindex.js" in fetched and "/search.html" in fetched
    # the index, not the links: the answer is among the first pages read
    pages_read = [path for path in fetched if path.startswith("/chapter")]
    assert pages_read[0] == "/chapter17.html"
    # every request is a download: robots, start, sitemap, search page, index and each page
    assert result.downloads == len(fetched)
    assert result.candidates[0] == (result.found, pytest.approx(result.candidates[0][1]))
    runner_ups = [node for node, _ in result.candidates[1:]]
    assert httpserver.url_for("/chapter5.html") in runner_ups
    scores = [score for _, score in result.candidates]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[1]


def test_an_older_sphinx_search_page_that_loads_its_index_from_an_inline_script_is_read(httpserver):
    start = serve_docs(httpserver, old_sphinx=True)
    env, result = find(start, "lighthouse keeper lantern")
    fetched = requested(httpserver)
    assert fetched.index("/search.html") < fetched.index("/searchindex.js")
    assert [path for path in fetched if path.startswith("/chapter")][0] == "/chapter17.html"
    assert result.found == httpserver.url_for("/chapter17.html")


def test_a_search_link_to_an_opensearch_description_leads_on_to_the_search_forms_page(httpserver):
    start = serve_docs(httpserver, opensearch=True)
    env, result = find(start, "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/chapter17.html")
    fetched = requested(httpserver)
    assert fetched.index("/opensearch.xml") < fetched.index("/search.html") < fetched.index("/searchindex.js")
    assert [path for path in fetched if path.startswith("/chapter")][0] == "/chapter17.html"
    assert result.downloads == len(fetched)


def test_without_a_search_index_the_finder_still_reads_the_site_and_ranks_by_bm25(httpserver):
    start = serve_docs(httpserver, with_index=False, pages=12)
    env, result = find(start, "lighthouse keeper lantern", budget=None)
    assert "/searchindex.js" not in requested(httpserver)
    # chapter 17 does not exist here: the page holding one query word is all there is, and it holds too
    # little of the query to be called the answer
    assert result.found is None
    assert result.candidates and result.candidates[0][0] == httpserver.url_for("/chapter5.html")


def test_a_query_no_page_holds_is_answered_not_found_with_no_candidates(httpserver):
    start = serve_docs(httpserver)
    env, result = find(start, "zeppelin marmalade")
    assert result.found is None
    assert not result.exhausted  # it stopped by itself, and says so: nothing read holds the query
    assert result.candidates == []


def test_a_search_index_that_is_not_one_is_refused_and_costs_its_download(httpserver):
    start = serve_docs(httpserver, with_index=False, pages=3)
    httpserver.clear()
    httpserver.expect_request("/").respond_with_data(
        "<html><head><title>Docs</title><link rel='search' href='/search.html'></head>"
        "<body><a href='/chapter0.html'>Lighthouse keeper</a></body></html>",
        content_type=HTML,
    )
    httpserver.expect_request("/search.html").respond_with_data(
        "<html><head><script src='/searchindex.js'></script></head><body></body></html>", content_type=HTML
    )
    httpserver.expect_request("/searchindex.js").respond_with_data(
        "alert('hi')", content_type="text/javascript"
    )
    httpserver.expect_request("/chapter0.html").respond_with_data(
        page("Lighthouse keeper", "<p>lighthouse keeper lantern</p>"), content_type=HTML
    )
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\n", content_type="text/plain")
    env, result = find(start, "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/chapter0.html")
    assert result.downloads == len(requested(httpserver))


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"Search.setIndex(",
        b'Search.setIndex({"docnames": 3})',
        b"Search.setIndex([1,2])",
        b"\x00\xff" * 50,
        b'Search.setIndex({docnames:["index"],terms:{a:[0}})',  # Sphinx 1.x's bare keys, broken
        b"Search.setIndex({" + b", " * 500_000 + b'"' + b"a" * 1_000_000 + b")",  # an unending string
    ],
)
def test_hostile_search_index_bodies_are_refused_clearly(body):
    with pytest.raises(NotAnIndex):
        parse_sphinx_index(body, index_url="http://127.0.0.1/searchindex.js")


def test_a_sphinx_index_names_pages_relative_to_itself_and_ranks_title_words_higher():
    body = (
        b'Search.setIndex({"docnames": ["library/os", "index"], "titles": ["os", "Home"],'
        b' "terms": {"path": [0, 1], "fork": 0}, "titleterms": {"os": 0, "path": 1}})'
    )
    index = parse_sphinx_index(body, index_url="http://127.0.0.1:9/docs/searchindex.js")
    assert index.urls == ["http://127.0.0.1:9/docs/library/os.html", "http://127.0.0.1:9/docs/index.html"]
    ranked = index.rank("path")
    assert [url for url, _ in ranked] == [
        "http://127.0.0.1:9/docs/index.html",
        "http://127.0.0.1:9/docs/library/os.html",
    ]
    directory = parse_sphinx_index(body, index_url="http://127.0.0.1:9/searchindex.js", page_suffix="/")
    assert directory.urls == ["http://127.0.0.1:9/library/os/", "http://127.0.0.1:9/"]


def test_an_index_written_by_sphinx_1_with_bare_keys_reads_as_its_json_twin():
    json_body = (
        b'Search.setIndex({"docnames": ["library/os", "index"], "titles": ["os, path: and more", "Home"],'
        b' "terms": {"path": [0, 1], "_new": 0, "os.path": 1}, "titleterms": {"os": 0, "path": 1}})'
    )
    # Sphinx 1.x's jsdump: names bare, other keys and every string quoted; a string may hold ", x:"
    bare_body = (
        b'Search.setIndex({docnames:["library/os","index"],titles:["os, path: and more","Home"],'
        b'terms:{path:[0,1],_new:0,"os.path":1},titleterms:{os:0,path:1}})'
    )
    url = "http://127.0.0.1:9/searchindex.js"
    new, old = parse_sphinx_index(json_body, index_url=url), parse_sphinx_index(bare_body, index_url=url)
    assert old == new
    assert old.titles == ["os, path: and more", "Home"] and old.rank("path") == new.rank("path")


def serve_table_of_contents(server) -> str:
    """A home page with more links than the budget, the one whose text names the query last; a contents
    page listing "drop schema" among its links; the DROP SCHEMA page itself."""
    links = "".join(f"<li><a href='/part{n}.html'>Part {n}</a></li>" for n in range(40))
    links += "<li><a href='/commands.html'>SQL commands: drop schema and others</a></li>"
    server.expect_request("/").respond_with_data(page("Manual", f"<ul>{links}</ul>"), content_type=HTML)
    for n in range(40):
        server.expect_request(f"/part{n}.html").respond_with_data(
            page(f"Part {n}", "<p>nothing here</p>"), content_type=HTML
        )
    server.expect_request("/commands.html").respond_with_data(
        page(
            "SQL commands",
            "<ul><li><a href='/create.html'>CREATE TABLE</a></li><li><a href='/dropschema.html'>DROP SCHEMA"
            "</a> remove it</li></ul>",
        ),
        content_type=HTML,
    )
    server.expect_request("/create.html").respond_with_data(
        page("CREATE TABLE", "<p>create</p>"), content_type=HTML
    )
    server.expect_request("/dropschema.html").respond_with_data(
        page("DROP SCHEMA", "<p>DROP SCHEMA removes a schema.</p>"), content_type=HTML
    )
    server.expect_request("/robots.txt").respond_with_data("User-agent: *\n", content_type="text/plain")
    server.expect_request("/sitemap.xml").respond_with_data("missing", status=404)
    return server.url_for("/")


@pytest.mark.parametrize("algorithm", ["SIM", "SIMDEG", "A*", "LS2F", "LS", "FOCUSED"])
def test_the_papers_algorithms_follow_the_promising_link_first_and_log_its_score(httpserver, algorithm):
    start = serve_table_of_contents(httpserver)
    env, result = find(start, "drop schema", algorithm, budget=60)
    first_page = next(entry for entry in result.log if entry.parent == start)
    assert first_page.node == httpserver.url_for("/commands.html")
    assert first_page.score is not None and first_page.score > 0
    if algorithm != "LS" and algorithm != "LS2F":
        # the contents page holds the query only in its links: it is the way, not the answer
        assert result.found == httpserver.url_for("/dropschema.html")
    assert result.candidates


def test_a_table_of_contents_link_is_read_as_a_site_index(httpserver):
    """The page asked for is linked only from the contents page, whose link reads "Table of contents"."""
    chapters = "".join(f"<li><a href='/chapter{n}.html'>Chapter {n}</a></li>" for n in range(8))
    httpserver.expect_request("/").respond_with_data(
        page(
            "Docs",
            f"<ul>{chapters}</ul><a href='/contents.html' title='Table of contents'>Table of contents</a>",
        ),
        content_type=HTML,
    )
    for n in range(8):
        httpserver.expect_request(f"/chapter{n}.html").respond_with_data(
            page(f"Chapter {n}", "<p>nothing</p>"), content_type=HTML
        )
    httpserver.expect_request("/contents.html").respond_with_data(
        page("Contents", "<ul><li><a href='/keeper.html'>The lighthouse keeper</a></li></ul>"),
        content_type=HTML,
    )
    httpserver.expect_request("/keeper.html").respond_with_data(
        page("Lighthouse keeper lantern", "<p>lighthouse keeper lantern</p>"), content_type=HTML
    )
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\n", content_type="text/plain")
    httpserver.expect_request("/sitemap.xml").respond_with_data("missing", status=404)
    env, result = find(httpserver.url_for("/"), "lantern")
    assert result.found == httpserver.url_for("/keeper.html")
    pages_read = [path for path in requested(httpserver) if path.endswith(".html")]
    assert pages_read[0] == "/contents.html"
