"""On a live site an untitled page that holds the whole query is one candidate among others, not the answer
that ends the search: Doxygen writes pages without a <title> (JsonCpp's docs), and the first of them holding the
query's words used to end every search there after a few downloads (issue 19, ninth round). Generated graphs,
whose pages have no titles at all, keep the paper's rule."""

from __future__ import annotations

from .books import robots_and_no_sitemap
from .sites import HTML, live_search, page, requested

QUERY = "lighthouse keeper lantern tide"


def serve_untitled_list_and_keeper(server) -> None:
    """/ links an untitled list that names each query word once among many, then the keeper's page, titled
    and about the query; the list's link comes first and says more of the query."""
    many = " ".join(f"entry{n}" for n in range(200))
    pages = {
        "/": page(
            "Docs",
            "<a href='/list.html'>lighthouse keeper lantern tide list</a> <a href='/keeper.html'>Keeper</a>",
        ),
        "/list.html": f"<html><body><p>{many} lighthouse keeper lantern tide {many}</p></body></html>",
        "/keeper.html": page(
            "The keeper",
            "<p>The lighthouse keeper lights the lantern at each tide: lighthouse, lantern, tide.</p>",
        ),
    }
    for path, html in pages.items():
        server.expect_request(path).respond_with_data(html, content_type=HTML)
    robots_and_no_sitemap(server)


def test_an_untitled_page_holding_the_query_does_not_end_the_search_on_a_live_site(httpserver):
    serve_untitled_list_and_keeper(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=40)
    fetched = requested(httpserver)
    assert fetched.index("/list.html") < fetched.index("/keeper.html")  # the untitled page was read first
    assert result.found == httpserver.url_for("/keeper.html")
    assert httpserver.url_for("/list.html") in [url for url, _ in result.candidates]
