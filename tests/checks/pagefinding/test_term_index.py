"""A site's term index page (DocBook's bookindex, Sphinx's genindex), read as an index when the site has no
search box (issue 19): its entries, with the entries they sit under, say which pages the site files under the
query's words; malformed, huge or hostile index pages are bounded and refused clearly."""

from __future__ import annotations

import lxml.html
import pytest

from checks.pagefinding import termindex
from checks.pagefinding.live import LiveSettings
from checks.pagefinding.siteindex import NotAnIndex
from checks.pagefinding.termindex import parse_term_index, rank_entries
from sites.http import FetchSettings

from .books import robots_and_no_sitemap
from .sites import HTML, live_search, requested

SETTINGS = LiveSettings(
    fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0), use_term_index=True
)
SITE = "http://127.0.0.1:9/"
FILLER_ENTRIES = "".join(
    f"<dt>topic{n}, <a href='chapter{n}.html#s{n}'>Chapter {n}</a></dt>" for n in range(25)
)
BOOKINDEX = (
    "<html><head><title>Index</title></head><body><div class='index'><dl>"
    "<dt>lighthouse, <a href='coast.html#lights'>Coastal Lights</a></dt>"
    "<dd><dl><dt>keeper of, <a href='keeper.html'>The Keeper</a></dt>"
    "<dt>lantern, <a href='lantern.html#lens'>Lenses</a>, <a href='keeper.html#lamp'>The Keeper</a></dt>"
    "</dl></dd>"
    "<dt>harbour, <a href='harbour.html'>Harbours</a></dt>" + FILLER_ENTRIES + "</dl></div></body></html>"
)


def tree(html: str):
    return lxml.html.fromstring(html).getroottree().getroot()


def index_of(html: str, url: str = SITE + "bookindex.html"):
    return parse_term_index(tree(html), url=url)


def test_a_sub_entry_is_filed_under_its_own_words_and_those_of_the_entry_above_it():
    ranked = rank_entries(index_of(BOOKINDEX), "lighthouse keeper lantern")
    # keeper.html is named by "lighthouse → keeper of" and "lighthouse → lantern": every query word
    assert ranked[0] == (SITE + "keeper.html", pytest.approx(1.0))
    assert [url for url, _ in ranked[1:3]] == [SITE + "lantern.html", SITE + "coast.html"]
    assert SITE + "harbour.html" not in dict(ranked)  # filed under none of the query's words


def test_sphinx_general_index_entries_nested_in_lists_are_read_the_same_way():
    entries = "".join(f"<li><a href='mod{n}.html#x'>mod{n} (module)</a></li>" for n in range(25))
    genindex = (
        "<html><body><table class='indextable'><tr><td><ul>"
        "<li>lighthouse<ul><li><a href='api/lights.html#keeper'>keeper() (in module lights)</a></li></ul></li>"
        + entries
        + "</ul></td></tr></table></body></html>"
    )
    ranked = rank_entries(index_of(genindex, SITE + "genindex.html"), "lighthouse keeper")
    assert ranked[0] == (SITE + "api/lights.html", pytest.approx(1.0))


def test_links_off_the_site_to_files_or_to_the_index_itself_are_not_entries():
    html = BOOKINDEX.replace(
        "</dl></div>",
        "<dt>lighthouse keeper, <a href='http://elsewhere.example/keeper.html'>Elsewhere</a>,"
        " <a href='keeper.pdf'>PDF</a>, <a href='#lighthouse'>here</a></dt></dl></div>",
    )
    urls = index_of(html).urls
    assert not [url for url in urls if "elsewhere" in url or url.endswith((".pdf", "bookindex.html"))]


@pytest.mark.parametrize(
    "html",
    [
        "<html><body><p>Index</p><a href='a.html'>a</a></body></html>",  # a page, not an index
        "<html><body><ul>" + "<li>x</li>" * 500 + "</ul></body></html>",  # a list without links
        "<html><body>" + "<a href='a.html'>lighthouse</a>" * 100 + "</body></html>",  # links in no entry
    ],
)
def test_a_page_that_lists_too_few_entries_is_refused_clearly(html):
    with pytest.raises(NotAnIndex, match="not a term index"):
        index_of(html)


def test_an_index_with_more_entries_than_allowed_is_refused_not_kept(monkeypatch):
    monkeypatch.setattr(termindex, "MAX_ENTRIES", 30)
    with pytest.raises(NotAnIndex, match="more than 30"):
        index_of(BOOKINDEX.replace("</dl></div>", FILLER_ENTRIES + "</dl></div>"))


def test_long_entries_and_deep_nesting_file_a_bounded_number_of_words():
    prose = " ".join(f"word{n}" for n in range(5_000))
    nested = "<ul><li>level" * 100 + "<a href='deep.html'>deep</a>" + "</li></ul>" * 100
    html = (
        "<html><body><dl><dt>"
        + prose
        + " <a href='long.html'>Long</a></dt>"
        + FILLER_ENTRIES
        + "</dl>"
        + nested
        + "</body></html>"
    )
    index = index_of(html)
    filed_long = [
        word for word, pages in index.terms.items() if index.urls.index(SITE + "long.html") in pages
    ]
    assert len(filed_long) <= termindex.MAX_ENTRY_WORDS
    deep = index.urls.index(SITE + "deep.html")
    filed_deep = [word for word, pages in index.terms.items() if deep in pages]
    assert len(filed_deep) <= (termindex.MAX_DEPTH + 1) * termindex.MAX_ENTRY_WORDS


def serve_docbook_site(server, index_body: str = BOOKINDEX) -> None:
    """A site without a search box: the home page links a contents chain and the index; the keeper's page
    is four pages down a chain of links that name nothing of the query."""
    server.expect_request("/").respond_with_data(
        "<html><head><title>Manual</title></head><body><a href='part1.html'>Part I</a>"
        "<a href='bookindex.html'>Index</a></body></html>",
        content_type=HTML,
    )
    for n in range(1, 4):
        server.expect_request(f"/part{n}.html").respond_with_data(
            f"<html><head><title>Part {n}</title></head><body>general matters "
            f"<a href='part{n + 1}.html'>Part {n + 1}</a></body></html>",
            content_type=HTML,
        )
    server.expect_request("/part4.html").respond_with_data(
        "<html><head><title>Part 4</title></head><body><a href='keeper.html'>The Keeper</a></body></html>",
        content_type=HTML,
    )
    server.expect_request("/keeper.html").respond_with_data(
        "<html><head><title>The Keeper</title></head><body>The lighthouse keeper trims the lantern; "
        "lighthouse keeper, lantern, keeper.</body></html>",
        content_type=HTML,
    )
    for name in ("coast", "lantern", "harbour", *(f"chapter{n}" for n in range(25))):
        server.expect_request(f"/{name}.html").respond_with_data(
            f"<html><head><title>{name}</title></head><body>{name} notes</body></html>", content_type=HTML
        )
    server.expect_request("/bookindex.html").respond_with_data(index_body, content_type=HTML)
    robots_and_no_sitemap(server)


def find(start: str, query: str, budget: int = 40, settings: LiveSettings = SETTINGS):
    return live_search(start, query, budget=budget, settings=settings)[1]


def test_a_site_without_a_search_box_is_searched_through_its_index_page(httpserver):
    serve_docbook_site(httpserver)
    result = find(httpserver.url_for("/"), "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/keeper.html")
    fetched = requested(httpserver)
    assert fetched.count("/bookindex.html") == 1  # read once, as an index, and not again as a page
    assert fetched.index("/bookindex.html") < fetched.index("/keeper.html")
    assert "/part4.html" not in fetched[: fetched.index("/keeper.html")]  # straight there, not down the chain
    assert result.downloads == len(fetched)  # the index is a download too
    assert [entry.note for entry in result.log if str(entry.node).endswith("/bookindex.html")] == [
        "term index"
    ]


def test_an_index_link_to_a_page_that_is_no_index_is_refused_and_the_search_goes_on(httpserver):
    serve_docbook_site(httpserver, "<html><body><p>Nothing here yet.</p></body></html>")
    result = find(httpserver.url_for("/"), "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/keeper.html")  # down the chain instead
    notes = [entry.note for entry in result.log if str(entry.node).endswith("/bookindex.html")]
    assert len(notes) == 1 and notes[0].startswith("term index refused: not a term index")


def test_a_sphinx_index_split_by_letter_is_read_through_its_one_page_form(httpserver):
    serve_docbook_site(
        httpserver, "<html><body><a href='genindex-all.html'>Full index on one page</a></body></html>"
    )
    httpserver.expect_request("/genindex-all.html").respond_with_data(BOOKINDEX, content_type=HTML)
    result = find(httpserver.url_for("/"), "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/keeper.html")
    fetched = requested(httpserver)
    assert (
        fetched.index("/bookindex.html") < fetched.index("/genindex-all.html") < fetched.index("/keeper.html")
    )
    assert result.downloads == len(fetched)


def test_the_term_index_is_read_only_when_asked_for(httpserver):
    """Off by default: measured, it did not find more pages (docs/benchmarks.md, issue 19)."""
    serve_docbook_site(httpserver)
    default = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0))
    result = find(httpserver.url_for("/"), "lighthouse keeper lantern", settings=default)
    assert not [entry for entry in result.log if entry.note.startswith("term index")]
