"""Alphabetical indexes split by letter (checks/pagefinding/alphabet.py): on a page with an A–Z bar, the link
"r" names the query words beginning with r, and hands down nothing of the page it is on (issue 19: Doxygen's
member indexes, `functions_r.html`, were found once in ten on TinyXML)."""

from __future__ import annotations

from checks.pagefinding import finder
from checks.pagefinding.alphabet import alphabet_letters, filed_under, is_letter

from .sites import live_search, page, requested, serve_pages_and_fillers

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def test_a_letter_is_one_alphabetic_character():
    assert is_letter("r") and is_letter(" R ")
    assert not is_letter("re") and not is_letter("1") and not is_letter("") and not is_letter("»")


def test_a_page_with_fewer_than_three_letters_has_no_alphabet_bar():
    assert alphabet_letters(["a", "Next", "b"]) == frozenset()
    assert alphabet_letters(["a", "B", "c", "Index"]) == frozenset("abc")


def test_a_letter_files_the_query_words_typed_with_it():
    typed = {"removechild": "removechild", "rootel": "rootelement", "text": "text"}
    assert filed_under("R", typed) == ("removechild", "rootel")
    assert filed_under("x", typed) == ()


def serve_member_index(server) -> None:
    """/ links the member index "Class members" (functions.html, the "a" page), whose A–Z bar links a page per
    letter; only functions_r.html holds the query (member names beginning with r). The letter links' texts
    hold no query word and their URLs none either."""
    bar = "".join(f"<li><a href='/functions_{c}.html'>{c}</a></li>" for c in LETTERS)

    def letter_page(letter: str, entries: str) -> str:
        return page("Class members", f"<ul class='tabs'>{bar}</ul><p>Members: {entries}</p>")

    pages = {
        "/": page("Widget library", "<p>Widgets.</p><a href='/functions.html'>Class members</a>"),
        "/functions.html": letter_page("a", "addchild (Widget) attach (Node) removal notes"),
    }
    for c in LETTERS:
        entries = f"{c}thing{c} (Node)"
        if c == "r":
            entries = (
                "removechild (Node) removeattribute (Element) replacechild (Node) rootelement (Document)"
            )
        pages[f"/functions_{c}.html"] = letter_page(c, entries)
    serve_pages_and_fillers(server, pages)


QUERY = "removechild removeattribute replacechild rootelement"


def test_the_search_follows_the_letter_its_query_words_begin_with(httpserver):
    serve_member_index(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/functions_r.html")
    letter_pages = [path for path in requested(httpserver) if path.startswith("/functions_")]
    assert letter_pages[0] == "/functions_r.html"


def test_without_letter_links_the_letters_are_read_in_the_bars_order(httpserver, monkeypatch):
    """The case above is one the rest of the search gets wrong: the letters tie, and "a" comes first."""
    monkeypatch.setattr(finder, "LETTER_LINKS", False)
    serve_member_index(httpserver)
    live_search(httpserver.url_for("/"), QUERY, budget=60)
    letter_pages = [path for path in requested(httpserver) if path.startswith("/functions_")]
    assert letter_pages[0] == "/functions_a.html"


def serve_member_index_and_guide(server) -> None:
    """/ links "Class members" (the index above; its "r" page holds two of the query's four words) and, after
    it, "Guide": a page whose link names nothing but which holds the whole query."""
    serve_member_index(server)
    server.clear()
    pages = {
        "/": page(
            "Widget library",
            "<p>Widgets.</p><a href='/functions.html'>Class members</a> <a href='/guide.html'>Guide</a>",
        ),
        "/guide.html": page("Guide", f"<p>{QUERY}. {QUERY}.</p>"),
    }
    serve_pages_and_fillers(server, pages | letter_pages())


def letter_pages() -> dict[str, str]:
    """The member index (functions.html) and a page per letter, each with the A-Z bar; the "r" page lists two
    of the query's names, each under several classes: it is about them."""
    bar = "".join(f"<li><a href='/functions_{c}.html'>{c}</a></li>" for c in LETTERS)
    pages = {}
    for c in ["", *LETTERS]:
        entries = " ".join(["removechild (Node) removeattribute (Element)"] * 6) if c == "r" else f"{c}thing"
        name = f"/functions_{c}.html" if c else "/functions.html"
        pages[name] = page("Class members", f"<ul class='tabs'>{bar}</ul><p>Members: {entries}</p>")
    return pages


def test_a_letter_inherits_nothing_of_the_letter_page_it_is_on(httpserver):
    """The "r" page is about the query; the other letters its bar links are not, whatever it says: the guide,
    which nothing points to as strongly, is read before any of them."""
    serve_member_index_and_guide(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/guide.html")
    fetched = requested(httpserver)
    after_r = fetched[fetched.index("/functions_r.html") + 1 :]
    assert after_r[0] == "/guide.html"


def test_letters_that_inherit_are_read_before_the_guide(httpserver, monkeypatch):
    """The case above with the letters inheriting the "r" page's aboutness (and not read last for filing none of
    the query): the other letters come first."""
    monkeypatch.setattr(finder, "LETTERS_INHERIT", True)
    monkeypatch.setattr(finder, "OTHER_LETTERS_LAST", False)
    serve_member_index_and_guide(httpserver)
    live_search(httpserver.url_for("/"), QUERY, budget=60)
    fetched = requested(httpserver)
    after_r = fetched[fetched.index("/functions_r.html") + 1 :]
    assert after_r[0].startswith("/functions_")


def serve_index_and_deep_guide(server) -> None:
    """/ links "Class members" (an A-Z bar; its "r" page lists two of the query's four names) and "Notes", which
    leads through /more.html to /guide.html, three links deep: the page holding the whole query. No link on the
    way names the query."""
    pages = {
        "/": page(
            "Widget library", "<a href='/functions.html'>Class members</a> <a href='/notes.html'>Notes</a>"
        ),
        "/notes.html": page("Notes", "<p>Notes.</p><a href='/more.html'>More</a>"),
        "/more.html": page("More", "<p>More notes.</p><a href='/guide.html'>Further</a>"),
        "/guide.html": page("Guide", f"<p>{QUERY}. {QUERY}.</p>"),
    }
    serve_pages_and_fillers(server, pages | letter_pages())


def test_letters_filing_none_of_the_query_are_read_after_every_other_link(httpserver):
    serve_index_and_deep_guide(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/guide.html")
    fetched = requested(httpserver)
    other_letters = [
        path for path in fetched if path.startswith("/functions_") and path != "/functions_r.html"
    ]
    assert all(fetched.index(path) > fetched.index("/guide.html") for path in other_letters)


def test_without_other_letters_last_the_bar_is_read_before_the_deep_guide(httpserver, monkeypatch):
    monkeypatch.setattr(finder, "OTHER_LETTERS_LAST", False)
    serve_index_and_deep_guide(httpserver)
    live_search(httpserver.url_for("/"), QUERY, budget=60)
    fetched = requested(httpserver)
    assert "/functions_s.html" in fetched
    assert "/guide.html" not in fetched or fetched.index("/functions_s.html") < fetched.index("/guide.html")
