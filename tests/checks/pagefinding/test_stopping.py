"""The search stops once it is sure of an answer; a best page holding one word of the query's four is no
answer ("not found"), so the search reads on past its patience rather than stop there (issue 19, tenth round)."""

from __future__ import annotations

from checks.pagefinding import finder

from .sites import live_search, page, requested, serve_pages_and_fillers

QUERY = "spindle ratchet flywheel gasket"
DECOYS = finder.LIVE_UNSURE_PATIENCE + 10  # more than the search's patience on a live site
TWIN_DECOYS = 30


def short_patience(monkeypatch) -> None:
    """The patience the twin site is made for: fewer downloads than its decoys."""
    monkeypatch.setattr(finder, "LIVE_MIN_PATIENCE", 10)
    monkeypatch.setattr(finder, "LIVE_UNSURE_PATIENCE", 25)


def serve_spindle_site(server) -> None:
    """/ links "Spindle" (a page of the word spindle, in its title too: one query word of four, sure of it)
    first, then DECOYS pages named "ratchet notes N" that hold nothing (more than the search's patience), and
    last "More", the page of the whole query, whose link names none of it."""
    decoys = "".join(f"<li><a href='/p{n}.html'>ratchet notes {n}</a></li>" for n in range(DECOYS))
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
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=80)
    assert result.found == httpserver.url_for("/more.html")


def test_without_the_rule_the_search_stops_at_its_patience_and_finds_nothing(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "ANSWERABLE_TO_STOP", False)
    serve_spindle_site(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=80)
    assert result.found is None
    assert result.downloads < DECOYS  # it stopped, before the budget and the last decoy


def serve_spindle_site_with_a_twin(server) -> None:
    """As serve_spindle_site, the "Spindle" page at /item7.html linking its twin, /item7-parts.html (its name
    with a word added), which holds the whole query; no other page links it, and the link ("see also") names
    none of it. Thirty decoys: more would make "ratchet" in their links too common to lure the search, so the
    twin tests set the patience below thirty (`short_patience`)."""
    decoys = "".join(f"<li><a href='/p{n}.html'>ratchet notes {n}</a></li>" for n in range(TWIN_DECOYS))
    pages = {
        "/": page("Machine shop", f"<a href='/item7.html'>Spindle spindle</a><ul>{decoys}</ul>"),
        "/item7.html": page(
            "Spindle", "<p>" + "spindle " * 40 + "</p><a href='/item7-parts.html'>see also</a>"
        ),
        "/item7-parts.html": page("Parts", f"<p>{QUERY}: the spindle, ratchet, flywheel and gasket.</p>"),
    }
    serve_pages_and_fillers(server, pages)


def test_sure_of_a_page_that_is_no_answer_the_search_reads_its_twins_before_reading_on(
    httpserver, monkeypatch
):
    short_patience(monkeypatch)
    serve_spindle_site_with_a_twin(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=80)
    assert result.found == httpserver.url_for("/item7-parts.html")
    fetched = requested(httpserver)
    twin = fetched.index("/item7-parts.html")
    assert len([p for p in fetched[:twin] if p.startswith("/p")]) < TWIN_DECOYS  # before every decoy was read


def test_without_twins_first_the_twin_is_read_only_after_every_decoy(httpserver, monkeypatch):
    monkeypatch.setattr(finder.BestFirst, "_patience_spent", lambda *args: False)
    short_patience(monkeypatch)
    serve_spindle_site_with_a_twin(httpserver)
    live_search(httpserver.url_for("/"), QUERY, budget=80)
    fetched = requested(httpserver)
    assert "/item7-parts.html" not in fetched or fetched.index("/item7-parts.html") > max(
        fetched.index(f"/p{n}.html") for n in range(TWIN_DECOYS)
    )
