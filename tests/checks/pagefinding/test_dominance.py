"""A page is about the words it repeats: of two pages holding the query's words as often, at the same length,
the one whose most frequent words they are is the answer, not the one where other words come first (a source
listing beside its API page, a class page beside its member list: issue 19, tenth round)."""

from __future__ import annotations

from checks.pagefinding import finder

from .sites import live_search, page, serve_pages_and_fillers

QUERY = "lathe spindle chuck collet"
OTHER_WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray"
)


def serve_workshops(server, *, also_saying_bolts: int = 0) -> None:
    """/ links /a.html ("Lathe spindle", read first) and /b.html ("Chuck"), and six pages of nothing, the first
    `also_saying_bolts` of which say "bolt rivet washer shim". Both hold each query word three times among 36
    words; /a.html repeats those four other words six times each, /b.html has 24 other words once each."""
    repeated = " ".join(["bolt rivet washer shim"] * 6)
    fillers = "".join(f"<a href='/p{n}.html'>Page {n}</a> " for n in range(6))
    pages = {
        **{
            f"/p{n}.html": page(f"Page {n}", "<p>bolt rivet washer shim</p>")
            for n in range(also_saying_bolts)
        },
        "/": page("Workshop", f"<a href='/a.html'>Lathe spindle</a> <a href='/b.html'>Chuck</a> {fillers}"),
        "/a.html": page("Workshop A", f"<p>{' '.join([QUERY] * 3)} {repeated}</p>"),
        "/b.html": page("Workshop B", f"<p>{' '.join([QUERY] * 3)} {OTHER_WORDS}</p>"),
    }
    serve_pages_and_fillers(server, pages)


def test_the_page_whose_most_frequent_words_are_the_query_is_the_answer(httpserver):
    serve_workshops(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=40)
    assert result.found == httpserver.url_for("/b.html")
    assert [url for url, _ in result.candidates[:2]] == [
        httpserver.url_for("/b.html"),
        httpserver.url_for("/a.html"),
    ]


def test_without_dominance_the_two_pages_tie_and_the_first_read_wins(httpserver, monkeypatch):
    """What the test above tells apart is dominance alone: BM25, the share held and the titles tie."""
    monkeypatch.setattr(finder, "DOMINANCE", 0.0)
    serve_workshops(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=40)
    assert result.found == httpserver.url_for("/a.html")
    scores = dict(result.candidates)
    assert scores[httpserver.url_for("/a.html")] == scores[httpserver.url_for("/b.html")]


def test_words_on_under_half_the_pages_read_are_still_the_pages_own(httpserver):
    """The pages read are the query's neighbourhood: its topic's words are on many of them. Three of the six
    other pages also say "bolt rivet washer shim" (4 of the 9 pages read hold them): they are /a.html's own
    words, not the site's navigation, and still come before the query's there."""
    serve_workshops(httpserver, also_saying_bolts=3)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=40)
    assert result.found == httpserver.url_for("/b.html")


def test_words_on_most_pages_read_are_the_sites_not_the_pages(httpserver):
    """Words on more than half of the pages read are the site's common words (its navigation): they do not
    put the query's words down on /a.html, and the two pages tie again."""
    serve_workshops(httpserver, also_saying_bolts=6)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=40)
    scores = dict(result.candidates)
    assert scores[httpserver.url_for("/a.html")] == scores[httpserver.url_for("/b.html")]
