"""What a page is about, as a person asking with its own words means it (issue 19, session 13): its words as it
writes them, not the parts of its identifiers (WRITTEN_WORDS); no stopping on a page that merely holds the query
(ABOUT_TO_STOP); an A-Z bar's other letters last (OTHER_LETTERS_LAST, in test_alphabet.py); a search index that does not cover a page
holding the query confirms nothing (PARTIAL_INDEX_UNSURE); one page under two URLs shown once."""

from __future__ import annotations

from checks.pagefinding import finder
from checks.pagefinding.text import terms, written_terms, written_words

from .books import FILLER, LIGHTHOUSE, as_script, book_page, elasticlunr_index, robots_and_no_sitemap
from .sites import HTML, live_search, page, requested, serve_pages_and_fillers

QUERY = "lathe spindle chuck collet"
ONCE_EACH = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray"
)


def test_an_identifier_is_written_once_whole_without_its_parts():
    page_terms = terms("Call gtk_widget_show to draw the widget, or the_end.")
    assert "widget" in page_terms[:3]  # `terms` adds an identifier's parts after it, for matching
    assert written_terms(page_terms) == ["gtk_widget_show", "draw", "widget", "the_end"]


def serve_signatures_and_prose(server) -> None:
    """/ links /a.html (read first: its link names the query) and /b.html. Both hold each query word three times
    in 36 terms. /a.html holds them only as parts of an identifier it repeats (`lathe_spindle_chuck_collet`)
    and writes "bolt rivet washer shim" twice each; /b.html writes the query's words in sentences."""
    identifiers = " ".join(["lathe_spindle_chuck_collet"] * 3)
    once = " ".join(f"word{letter}" for letter in "abcdefghijklm")  # 13 words written once each
    pages = {
        "/": page("Workshop", "<a href='/a.html'>Lathe spindle</a> <a href='/b.html'>Chuck</a>"),
        "/a.html": page(
            "Workshop A", f"<p>{identifiers} {' '.join(['bolt rivet washer shim'] * 2)} {once}</p>"
        ),
        "/b.html": page("Workshop B", f"<p>{' '.join([QUERY] * 3)} {ONCE_EACH}</p>"),
        **{f"/p{n}.html": page(f"Page {n}", "<p>Nothing of note.</p>") for n in range(6)},
    }
    pages["/"] = pages["/"].replace(
        "</body>", "".join(f"<a href='/p{n}.html'>Page {n}</a>" for n in range(6))
    )
    serve_pages_and_fillers(server, pages)


def test_the_page_writing_the_query_in_sentences_is_about_it_not_the_one_naming_it_in_identifiers(httpserver):
    serve_signatures_and_prose(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=40)
    assert result.found == httpserver.url_for("/b.html")


def test_counting_identifier_parts_the_two_pages_tie_and_the_first_read_wins(httpserver, monkeypatch):
    """What the test above tells apart is the words as written alone: BM25, the share held and the titles tie."""
    monkeypatch.setattr(finder, "WRITTEN_WORDS", False)
    monkeypatch.setattr(finder, "OWN_WORDS_UNSTEMMED", False)
    serve_signatures_and_prose(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=40)
    assert result.found == httpserver.url_for("/a.html")
    scores = dict(result.candidates)
    assert scores[httpserver.url_for("/a.html")] == scores[httpserver.url_for("/b.html")]


def serve_listing_then_page_about_it(server) -> None:
    """/ links /list.html first (its link names a query word), which holds each query word once among four other
    words written eight times each: it holds the query, it is not about it. Then forty pages of nothing; the
    36th links, by a link naming a query word, /about.html, whose most frequent words are the query's."""
    fillers = "".join(f"<a href='/p{n}.html'>Page {n}</a> " for n in range(40))
    pages = {
        "/": page("Workshop", f"<a href='/list.html'>Lathe</a> {fillers}"),
        "/list.html": page("Parts list", f"<p>{QUERY} {' '.join(['bolt rivet washer shim'] * 8)}</p>"),
        "/p35.html": page("Page 35", "<p>Nothing of note.</p><a href='/about.html'>Lathe</a>"),
        "/about.html": page("Workshop B", f"<p>{' '.join([QUERY] * 3)} {ONCE_EACH}</p>"),
    }
    serve_pages_and_fillers(server, pages)


def test_the_search_does_not_stop_on_a_page_that_holds_the_query_without_being_about_it(httpserver):
    serve_listing_then_page_about_it(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=80)
    assert result.found == httpserver.url_for("/about.html")
    assert httpserver.url_for("/list.html") in [url for url, _ in result.candidates]


def test_without_about_to_stop_the_listing_ends_the_search_before_the_page(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "ABOUT_TO_STOP", False)
    serve_listing_then_page_about_it(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=80)
    assert result.found == httpserver.url_for("/list.html")
    assert "/about.html" not in requested(httpserver)


def serve_book_with_sources(server) -> None:
    """An mdBook book whose index covers its twelve chapters (chapter 9 holds the query) and whose home page also
    links "Sources", listings the index does not cover: "Lantern" (a listing holding the query once) and 25
    listings of nothing, the 16th of which links "Foghorn lighthouse", /src/foghorn.html, the page most about
    the query."""
    words = {n: f"topic{n} " + FILLER for n in range(12)} | {9: LIGHTHOUSE, 4: "lighthouse history " + FILLER}
    chapters = "".join(f"<li><a href='/chapter{n}.html'>Chapter {n}</a></li>" for n in range(12))
    home = book_page("Book", FILLER, "searchindex-ab12.js", f"<ul>{chapters}</ul><a href='/src/'>Sources</a>")
    fillers = "".join(f"<a href='/src/p{n}.html'>Source {n}</a> " for n in range(25))
    pages = {
        "/": home,
        **{
            f"/chapter{n}.html": book_page(f"Chapter {n}", words[n], "searchindex-ab12.js") for n in range(12)
        },
        "/src/": page("Sources", f"<a href='/src/lantern.html'>Lantern</a> {fillers}"),
        "/src/lantern.html": page("listing.py", f"<p>lighthouse keeper lantern {FILLER}</p>"),
        "/src/p15.html": page(
            "Source 15", "<p>Nothing.</p><a href='/src/foghorn.html'>Foghorn lighthouse</a>"
        ),
        "/src/foghorn.html": page("foghorn.py", f"<p>{' '.join(['lighthouse keeper lantern'] * 3)}</p>"),
        **{f"/src/p{n}.html": page(f"Source {n}", "<p>Nothing.</p>") for n in range(25) if n != 15},
    }
    for path, html in pages.items():
        server.expect_request(path).respond_with_data(html, content_type=HTML)
    sections = {f"chapter{n}.html#chapter-{n}": (f"Chapter {n}", words[n]) for n in range(12)}
    server.expect_request("/searchindex-ab12.js").respond_with_data(
        as_script(elasticlunr_index(sections)), content_type="application/javascript"
    )
    robots_and_no_sitemap(server)


def test_an_index_that_does_not_cover_a_page_holding_the_query_confirms_nothing(httpserver, monkeypatch):
    # Chapter 9's own words are the query too: OWN_WORDS_SURE would make the search sure of it on its own.
    monkeypatch.setattr(finder, "OWN_WORDS_SURE", False)
    serve_book_with_sources(httpserver)
    _, result = live_search(httpserver.url_for("/"), "lighthouse keeper lantern", budget=60)
    assert result.found == httpserver.url_for("/src/foghorn.html")


def test_while_the_index_confirms_its_best_page_the_search_stops_soon_after_it(httpserver, monkeypatch):
    """Without PARTIAL_INDEX_UNSURE the index's best page, chapter 9, is confirmed, and the search stops after
    MIN_PATIENCE downloads without a better page: before the listing that links the foghorn."""
    monkeypatch.setattr(finder, "PARTIAL_INDEX_UNSURE", False)
    serve_book_with_sources(httpserver)
    _, result = live_search(httpserver.url_for("/"), "lighthouse keeper lantern", budget=60)
    assert result.found == httpserver.url_for("/chapter9.html")
    assert "/src/lantern.html" in requested(httpserver) and "/src/foghorn.html" not in requested(httpserver)


def test_one_page_under_two_urls_is_one_candidate(httpserver):
    """/ and /index.html serve one file: it is shown once, under the URL read first."""
    home = page("Workshop", f"<p>{QUERY}</p><a href='/index.html'>Home</a> <a href='/b.html'>Chuck</a>")
    serve_pages_and_fillers(
        httpserver,
        {"/": home, "/index.html": home, "/b.html": page("Workshop B", f"<p>{QUERY} {QUERY}</p>")},
    )
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=20)
    urls = [url for url, _ in result.candidates]
    assert "/index.html" in requested(httpserver)
    assert httpserver.url_for("/") in urls and httpserver.url_for("/index.html") not in urls


INFLECTED_QUERY = "lathe spindle including collet"


def test_a_page_s_words_are_counted_as_written_not_stemmed():
    counted = written_words("Including the include files: #include <x.h>, gtk_widget_show, utf8 and IT.")
    assert counted == {"including": 1, "include": 2, "files": 1}


def serve_member_list_and_class_page(server) -> None:
    """Both pages write "lathe spindle collet" three times among the same 24 other words. The member list
    (/members.html) writes "including" three times; the class page (/class.html), read first, writes "include"
    four times and never "including". Stemmed, "include" is "including" ("includ"): the class page holds more
    of it, and BM25 ranks it first."""
    common = f"{ONCE_EACH}"
    pages = {
        "/": page(
            "Workshop", "<a href='/class.html'>Lathe spindle</a> <a href='/members.html'>Lathe collet</a>"
        ),
        "/class.html": page(
            "Workshop A",
            f"<p>{' '.join(['lathe spindle collet'] * 3)} {' '.join(['include'] * 4)} {common}</p>",
        ),
        "/members.html": page("Workshop B", f"<p>{' '.join([INFLECTED_QUERY] * 3)} {common}</p>"),
        **{f"/p{n}.html": page(f"Page {n}", "<p>Nothing of note.</p>") for n in range(6)},
    }
    pages["/"] = pages["/"].replace(
        "</body>", "".join(f"<a href='/p{n}.html'>Page {n}</a>" for n in range(6))
    )
    serve_pages_and_fillers(server, pages)


def test_the_page_writing_the_query_s_word_is_the_answer_not_the_one_writing_its_stem(httpserver):
    serve_member_list_and_class_page(httpserver)
    _, result = live_search(httpserver.url_for("/"), INFLECTED_QUERY, budget=40)
    assert result.found == httpserver.url_for("/members.html")


def test_counting_stems_the_page_writing_another_word_of_the_stem_wins(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "OWN_WORDS_UNSTEMMED", False)
    serve_member_list_and_class_page(httpserver)
    _, result = live_search(httpserver.url_for("/"), INFLECTED_QUERY, budget=40)
    assert result.found == httpserver.url_for("/class.html")


def serve_page_about_the_query_then_nothing(server) -> None:
    """/about.html, linked first from /, writes the query's words more often than any other word but is not
    titled with them; forty pages of nothing follow, none better."""
    fillers = "".join(f"<a href='/p{n}.html'>Page {n}</a> " for n in range(40))
    pages = {
        "/": page("Workshop", f"<a href='/about.html'>Lathe</a> {fillers}"),
        "/about.html": page("Workshop B", f"<p>{' '.join([QUERY] * 3)} {ONCE_EACH}</p>"),
    }
    serve_pages_and_fillers(server, pages)


def test_a_page_whose_own_words_are_the_query_makes_the_search_as_sure_as_its_title_would(httpserver):
    serve_page_about_the_query_then_nothing(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=80)
    assert result.found == httpserver.url_for("/about.html")
    assert (
        result.downloads <= finder.LIVE_MIN_PATIENCE + 5
    )  # the start page, robots.txt, the sitemap, the page


def test_without_it_the_search_waits_as_long_as_when_unsure(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "OWN_WORDS_SURE", False)
    serve_page_about_the_query_then_nothing(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=80)
    assert result.found == httpserver.url_for("/about.html")
    assert result.downloads >= 2 + finder.LIVE_UNSURE_PATIENCE
