"""A search that has read no answer gives up, answering "not found" instead of spending its budget (issue 19,
session 11), when its frontier held no lead (no link's words, index or page said anything of the query) for
BLIND_PATIENCE downloads in a row, or when NOT_FOUND_PATIENCE downloads found no better page; a lead found within
that patience is still followed. Asked for (`LiveSettings.give_up`, off by default)."""

from __future__ import annotations

from checks.pagefinding import finder
from checks.pagefinding.live import LiveSettings
from sites.http import FetchSettings

from .sites import live_search, page, requested, serve_pages_and_fillers

QUERY = "spindle ratchet flywheel gasket"
GIVING_UP = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0), give_up=True)


def serve_site_without_the_page(server, pages: int = 60) -> None:
    """/ links `pages` pages of nothing ("notes N"): no page of the site holds a word of the query."""
    links = "".join(f"<li><a href='/p{n}.html'>notes {n}</a></li>" for n in range(pages))
    serve_pages_and_fillers(server, {"/": page("Machine shop", f"<ul>{links}</ul>")})


def test_a_search_for_a_page_the_site_lacks_stops_after_its_blind_patience(httpserver):
    serve_site_without_the_page(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=100, settings=GIVING_UP)
    assert result.found is None
    assert result.downloads <= 3 + finder.BLIND_PATIENCE + 1  # robots, start, sitemap, the blind reads


def test_without_the_rules_it_reads_every_page_first(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "BLIND_PATIENCE", 10_000)
    monkeypatch.setattr(finder, "NOT_FOUND_PATIENCE", 10_000)
    serve_site_without_the_page(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=100, settings=GIVING_UP)
    assert result.found is None
    assert result.downloads >= 60


def test_by_default_a_search_does_not_give_up(httpserver):
    """`LiveSettings.give_up` off, the default (and on the generated graphs, which have no settings)."""
    serve_site_without_the_page(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=100)
    assert result.found is None
    assert result.downloads >= 60


def test_a_lead_found_by_a_blind_read_is_followed(httpserver):
    """The fifth page of nothing links "Spindle parts", the page of the whole query: the lead shows up within
    the blind patience, so the search goes on and finds it."""
    links = "".join(f"<li><a href='/p{n}.html'>notes {n}</a></li>" for n in range(60))
    pages = {
        "/": page("Machine shop", f"<ul>{links}</ul>"),
        "/p4.html": page("Notes 4", "<p>Nothing.</p><a href='/parts.html'>Spindle parts</a>"),
        "/parts.html": page("Parts", f"<p>{QUERY}: the spindle, ratchet, flywheel and gasket.</p>"),
    }
    serve_pages_and_fillers(httpserver, pages)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=100, settings=GIVING_UP)
    assert result.found == httpserver.url_for("/parts.html")
    assert requested(httpserver).index("/parts.html") < requested(httpserver).index("/p5.html")


def serve_site_of_one_word(server) -> None:
    """/ links "Spindle" (a page of that one query word of four: no answer) and 90 pages of nothing whose links
    name another query word ("ratchet notes N"): every link is a lead, none leads anywhere."""
    decoys = "".join(f"<li><a href='/p{n}.html'>ratchet notes {n}</a></li>" for n in range(90))
    pages = {
        "/": page("Machine shop", f"<a href='/spindle.html'>Spindle</a><ul>{decoys}</ul>"),
        "/spindle.html": page("Spindle", "<p>" + "spindle " * 40 + "</p>"),
    }
    serve_pages_and_fillers(server, pages)


def test_a_search_finding_no_better_page_for_its_not_found_patience_gives_up(httpserver):
    serve_site_of_one_word(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=100, settings=GIVING_UP)
    assert result.found is None
    assert result.downloads <= 4 + finder.NOT_FOUND_PATIENCE + finder.TWIN_READS


def test_without_the_not_found_patience_it_reads_to_its_budget(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "NOT_FOUND_PATIENCE", 10_000)
    serve_site_of_one_word(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=100, settings=GIVING_UP)
    assert result.found is None
    assert result.downloads >= 90
