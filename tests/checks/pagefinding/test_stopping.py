"""The search stops once it is sure of an answer; a best page holding one word of the query's four is no
answer ("not found"), so the search reads on past its patience rather than stop there (issue 19, tenth round)."""

from __future__ import annotations

from checks.pagefinding import finder

from .sites import live_search, page, serve_pages_and_fillers

QUERY = "spindle ratchet flywheel gasket"


def serve_spindle_site(server) -> None:
    """/ links "Spindle" (a page of the word spindle, in its title too: one query word of four, sure of it)
    first, then thirty pages named "ratchet notes N" that hold nothing (more than the search's patience), and
    last "More", the page of the whole query, whose link names none of it."""
    decoys = "".join(f"<li><a href='/p{n}.html'>ratchet notes {n}</a></li>" for n in range(30))
    pages = {
        "/": page(
            "Machine shop",
            f"<a href='/spindle.html'>Spindle spindle</a><ul>{decoys}</ul><a href='/more.html'>More</a>",
        ),
        "/spindle.html": page("Spindle", "<p>" + "spindle " * 40 + "</p>"),
        "/more.html": page(
            "Parts", f"<p>{QUERY}: the spindle, the ratchet, the flywheel and the gasket.</p>"
        ),
    }
    serve_pages_and_fillers(server, pages)


def test_the_search_reads_on_past_its_patience_while_its_best_page_is_no_answer(httpserver):
    serve_spindle_site(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/more.html")


def test_without_the_rule_the_search_stops_at_its_patience_and_finds_nothing(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "ANSWERABLE_TO_STOP", False)
    serve_spindle_site(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found is None
    assert result.downloads < 40  # it stopped, before the budget
