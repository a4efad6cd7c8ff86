"""MkDocs' own search index (issue 19): found from what the site's pages name (MkDocs' themes load
`search/main.js` beside it, Material names the site's root in its `__config` script), its sections read as
their pages, its pages named relative to the site's root; hostile, huge or malformed indexes refused clearly
and the search going on without them."""

from __future__ import annotations

import json

import pytest

from checks.pagefinding import mkdocsindex
from checks.pagefinding.live import LiveSettings
from checks.pagefinding.mkdocsindex import parse_mkdocs_index
from checks.pagefinding.siteindex import NotAnIndex
from sites.http import FetchSettings

from .books import FILLER, LIGHTHOUSE, robots_and_no_sitemap
from .sites import HTML, live_search, read_html, requested

SETTINGS = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0))
INDEX = "http://127.0.0.1:9/docs/search/search_index.json"


def mkdocs_page(title: str, body: str, base: str, links: str = "", *, material: bool = False) -> str:
    """A page as MkDocs' default theme writes it (`base_url`, then `search/main.js` under it), or as Material
    for MkDocs does (its search form, and its `__config` naming the root and its search worker)."""
    if material:
        config = json.dumps(
            {
                "base": base,
                "features": [],
                "search": f"{base}/assets/javascripts/workers/search.bd0b6b67.min.js",
                "translations": {"search.placeholder": "Search"},
            }
        )
        search = (
            "<form class='md-search__form' name='search'><input type='text' name='query'></form>"
            f"<script id='__config' type='application/json'>{config}</script>"
        )
    else:
        search = (
            f'<script>var base_url = "{base}";</script><script src="{base}/search/main.js" defer></script>'
        )
    return (
        f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p>{links}{search}"
        "</body></html>"
    )


def serve_mkdocs_site(server, chapters: dict[int, str], *, pages: int = 12, material: bool = False) -> None:
    """A site under /docs/ with directory URLs (/docs/chapterN/): a home page linking chapters whose link texts
    say nothing of their words, and the index at /docs/search/search_index.json (each chapter's own entry and
    a section of it)."""
    words = {n: chapters.get(n, f"topic{n} " + FILLER) for n in range(pages)}
    links = "".join(f"<li><a href='chapter{n}/'>Chapter {n}</a></li>" for n in range(pages))
    server.expect_request("/docs/").respond_with_data(
        mkdocs_page("Docs", FILLER, ".", f"<ul>{links}</ul>", material=material), content_type=HTML
    )
    for n in range(pages):
        server.expect_request(f"/docs/chapter{n}/").respond_with_data(
            mkdocs_page(f"Chapter {n}", words[n], "..", material=material), content_type=HTML
        )
    docs = [{"location": "", "title": "Docs", "text": FILLER}]
    for n in range(pages):
        docs.append({"location": f"chapter{n}/", "title": f"Chapter {n}", "text": f"<p>{words[n]}</p>"})
        docs.append({"location": f"chapter{n}/#more", "title": "More", "text": FILLER})
    server.expect_request("/docs/search/search_index.json").respond_with_json(
        {"config": {"lang": ["en"], "separator": "[\\s\\-]+"}, "docs": docs}
    )


def find(start: str, query: str, budget: int | None = 60, settings: LiveSettings = SETTINGS):
    return live_search(start, query, budget=budget, settings=settings)[1]


@pytest.mark.parametrize("material", [False, True], ids=["mkdocs theme", "material"])
def test_a_sites_index_leads_straight_to_a_page_no_link_text_names(httpserver, material):
    serve_mkdocs_site(httpserver, {9: LIGHTHOUSE, 4: "lighthouse history " + FILLER}, material=material)
    robots_and_no_sitemap(httpserver)
    result = find(httpserver.url_for("/docs/"), "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/docs/chapter9/")
    fetched = requested(httpserver)
    # the index the start page names, then the page it ranks first: no chapter is read before it
    assert fetched.index("/docs/search/search_index.json") < fetched.index("/docs/chapter9/")
    assert [path for path in fetched if path.startswith("/docs/chapter")][0] == "/docs/chapter9/"
    assert fetched.count("/docs/search/search_index.json") == 1  # read once, though every page names it
    assert fetched.count("/docs/") == 1  # Material's search form is no search page to read again
    assert result.downloads == len(fetched)  # the index is a download too
    assert httpserver.url_for("/docs/chapter4/") in [node for node, _ in result.candidates[1:]]


def test_sections_are_read_as_the_pages_that_hold_them_and_named_relative_to_the_sites_root():
    docs = [
        {"location": "", "title": "Home", "text": "welcome"},
        {"location": "guide/start/#next", "title": "Next steps", "text": "lantern oil"},
        {"location": "guide/start/", "title": "Getting started", "text": "install the keeper"},
        {"location": "intro.html#intro", "title": "Introduction", "text": "a lighthouse"},
        {"location": "#about", "title": "About", "text": "foghorn"},
    ]
    index = parse_mkdocs_index(json.dumps({"docs": docs}).encode(), index_url=INDEX)
    assert index.urls == [
        "http://127.0.0.1:9/docs/",
        "http://127.0.0.1:9/docs/guide/start/",
        "http://127.0.0.1:9/docs/intro.html",
    ]
    # a page's own entry names it, wherever it comes; a page without one is named by its first section
    assert index.titles == ["Home", "Getting started", "Introduction"]
    assert [url for url, _ in index.rank("keeper lantern")] == ["http://127.0.0.1:9/docs/guide/start/"]
    assert [url for url, _ in index.rank("foghorn")] == ["http://127.0.0.1:9/docs/"]
    assert index.best_share("keeper lantern") == 1.0 and index.best_share("keeper lighthouse") < 1.0


def test_words_are_stemmed_as_the_other_indexes_stem_them_and_materials_markup_is_not_text():
    # Material's plugin keeps a few bare tags and escapes the text: "&lt;warning&gt;" is what the page shows
    docs = [
        {
            "location": "a/",
            "title": "Keepers",
            "text": "<p>lighting <code>lanterns &lt;warning&gt;</code></p>",
        }
    ]
    index = parse_mkdocs_index(json.dumps({"docs": docs}).encode(), index_url=INDEX)
    assert index.best_share("keeper lights lantern warning") == 1.0  # "Keepers", "lighting", "lanterns"
    assert index.document_frequency("code") is None and index.document_frequency("lt") is None


def test_mkdocs_plain_text_keeps_the_words_of_the_code_a_page_shows():
    # MkDocs' own plugin writes text without markup: a tag in it is code shown on the page
    docs = [{"location": "cli/", "title": "CLI", "text": 'Run it: <font color="#4E9A06">serving</font> at'}]
    index = parse_mkdocs_index(json.dumps({"docs": docs}).encode(), index_url=INDEX)
    assert index.best_share("font color serving") == 1.0


def test_pages_of_other_sites_are_not_pages_of_this_one():
    docs = [
        {"location": "https://elsewhere.example/keeper/", "title": "Keeper", "text": "keeper"},
        {"location": "//elsewhere.example/lantern/", "title": "Lantern", "text": "lantern"},
        {"location": "a/", "title": "A", "text": "keeper"},
    ]
    index = parse_mkdocs_index(json.dumps({"docs": docs}).encode(), index_url=INDEX)
    assert index.urls == ["http://127.0.0.1:9/docs/a/"]


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b'{"config": {}, "docs": [{"location": "a/", "title": "A", "te',
        b"Search.setIndex({})",
        b'{"doc_urls": ["a.html"], "index": {}}',
        b'{"docs": {"location": "a/"}}',
        b'{"docs": [{"location": 3, "title": "A", "text": "keeper"}]}',
        b'{"docs": ["a/"]}',
        b"[" * 100_000 + b"]" * 100_000,
        b"\x00\xff" * 50,
        b"<html><body>Not found</body></html>",
    ],
)
def test_hostile_or_malformed_indexes_are_refused_clearly(body):
    with pytest.raises(NotAnIndex):
        parse_mkdocs_index(body, index_url=INDEX)


def test_an_index_too_large_to_read_is_refused_not_read(monkeypatch):
    monkeypatch.setattr(mkdocsindex, "MAX_WORDS", 50)
    words = " ".join(f"word{n}" for n in range(100))
    body = json.dumps({"docs": [{"location": "a/", "title": "A", "text": words}]}).encode()
    with pytest.raises(NotAnIndex, match="more than 50"):
        parse_mkdocs_index(body, index_url=INDEX)


def test_titles_and_texts_that_are_not_text_are_read_as_empty():
    docs = [
        {"location": "a/", "title": ["Keeper"], "text": {"lantern": 1}},
        {"location": "b/", "text": "keeper"},
    ]
    index = parse_mkdocs_index(json.dumps({"docs": docs}).encode(), index_url=INDEX)
    assert index.titles == ["", ""] and index.rank("keeper") == [
        ("http://127.0.0.1:9/docs/b/", pytest.approx(1 / 3))
    ]


def test_a_huge_index_is_a_refused_download_and_the_search_goes_on(httpserver):
    serve_mkdocs_site(httpserver, {9: LIGHTHOUSE})  # its index is larger than the 2,500 bytes allowed below
    robots_and_no_sitemap(httpserver)
    small = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0, max_bytes=2_500))
    result = find(httpserver.url_for("/docs/"), "lighthouse keeper", budget=40, settings=small)
    assert requested(httpserver).count("/docs/search/search_index.json") == 1
    refused = [entry for entry in result.log if entry.note.startswith("site search index")]
    assert len(refused) == 1 and not refused[0].ok and "larger" in refused[0].note
    assert result.found == httpserver.url_for("/docs/chapter9/")


def test_an_index_that_is_no_index_is_noted_as_refused_and_the_search_goes_on(httpserver):
    # a soft-404 at the index's path (registered first, this handler answers)
    httpserver.expect_request("/docs/search/search_index.json").respond_with_data(
        "<html><body>Not found</body></html>", content_type=HTML
    )
    serve_mkdocs_site(httpserver, {9: LIGHTHOUSE})
    robots_and_no_sitemap(httpserver)
    result = find(httpserver.url_for("/docs/"), "lighthouse keeper")
    refused = [entry for entry in result.log if entry.note.startswith("site search index")]
    assert len(refused) == 1 and refused[0].note == (
        "site search index refused: the search index is not JSON: Expecting value: line 1 column 1 (char 0)"
    )
    assert result.found == httpserver.url_for("/docs/chapter9/")


def parsed(html: str, url: str = "http://127.0.0.1:9/docs/guide/start/"):
    return read_html(html, url)


def test_a_page_names_the_index_its_search_box_loads():
    mkdocs_theme = parsed(mkdocs_page("Start", "text", "../.."))
    assert mkdocs_theme.search_index == "http://127.0.0.1:9/docs/search/search_index.json"
    material = parsed(mkdocs_page("Start", "text", "../..", material=True))
    assert material.search_index == "http://127.0.0.1:9/docs/search/search_index.json"
    material_5 = parsed(
        '<html><body><script>app = initialize({base: "../..", features: [], search: Object.assign({worker: '
        '"../../assets/javascripts/worker/search.58d22e8e.min.js"}, typeof search !== "undefined" && search)})'
        "</script></body></html>"
    )
    assert material_5.search_index == "http://127.0.0.1:9/docs/search/search_index.json"
    at_root = parsed(mkdocs_page("Home", "text", ".", material=True), url="http://127.0.0.1:9/docs/")
    assert at_root.search_index == "http://127.0.0.1:9/docs/search/search_index.json"


def test_a_page_that_loads_no_mkdocs_search_names_no_index():
    # a base without MkDocs' search worker, a script merely named main.js, a config too long to be read
    assert parsed('<html><script>var config = {base: "..", theme: "x"};</script></html>').search_index == ""
    assert parsed('<html><script src="../js/main.js"></script></html>').search_index == ""
    huge = mkdocs_page("Start", "text", "../..", material=True).replace(
        '"features": []', '"features": [' + ", ".join(['"x"'] * 10_000) + "]"
    )
    assert parsed(huge).search_index == ""
