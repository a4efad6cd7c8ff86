"""A page far longer than the pages read holds most words of any query by its length alone (Xerces-C's release
archive): the stopping rule is sure of it only if a passage of a typical page's length holds the query as an
answer must (`PASSAGES_TO_STOP`), so the search reads on to the page about the query (issue 19, fourteenth
round)."""

from __future__ import annotations

from checks.pagefinding import finder

from .sites import live_search, page, serve_pages_and_fillers

QUERY = "spindle ratchet flywheel gasket"


def serve_site_with_an_archive(server) -> None:
    """/ links "Spindle archive" first: every release's notes on one page, three of the query's four words
    each in a release of its own, hundreds of words apart; then pages of nothing (ten more than the search's
    patience) and last "More", the short page of the whole query, whose link names none of it."""
    filler = " ".join(f"change{n}" for n in range(300))
    releases = "".join(
        f"<h2>Release {n}</h2><p>{word} {filler}</p>" for n, word in enumerate(QUERY.split()[:3])
    )
    decoys = "".join(
        f"<li><a href='/p{n}.html'>notes {n}</a></li>" for n in range(finder.LIVE_UNSURE_PATIENCE + 10)
    )
    pages = {
        "/": page(
            "Machine shop",
            f"<a href='/archive.html'>Spindle archive</a><ul>{decoys}</ul><a href='/more.html'>More</a>",
        ),
        "/archive.html": page("Releases", releases),
        "/more.html": page(
            "Parts", f"<p>{QUERY}: the spindle, the ratchet, the flywheel and the gasket.</p>"
        ),
    }
    serve_pages_and_fillers(server, pages)


def test_a_long_page_holding_the_query_only_scattered_does_not_stop_the_search(httpserver):
    serve_site_with_an_archive(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/more.html")


def test_without_passages_the_search_stops_on_the_archive(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "PASSAGES_TO_STOP", False)
    serve_site_with_an_archive(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/archive.html")


def test_a_long_page_holding_the_query_in_one_passage_still_stops_it(httpserver):
    """The archive with the whole query in one release's notes: sure of it, the search stops before "More"."""
    filler = " ".join(f"change{n}" for n in range(300))
    pages = {
        "/": page(
            "Machine shop",
            "<a href='/archive.html'>Spindle archive</a>"
            + "".join(f"<a href='/p{n}.html'>notes {n}</a>" for n in range(30))
            + "<a href='/more.html'>More</a>",
        ),
        "/archive.html": page("Releases", f"<p>{filler}</p><p>{QUERY}</p><p>{filler}</p>"),
    }
    serve_pages_and_fillers(httpserver, pages)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/archive.html")
