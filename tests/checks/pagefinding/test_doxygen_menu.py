"""Doxygen's menu bar (issue 19): built in the browser from the `menudata.js` every page loads, it is read as
the links it shows, so that a main page without text of its own is no dead end; hostile, huge or malformed
menus are refused clearly and the search goes on without them."""

from __future__ import annotations

import pytest

from checks.pagefinding.doxygenmenu import MAX_ENTRIES, NotAMenu, parse_doxygen_menu

from .books import FILLER, LIGHTHOUSE, robots_and_no_sitemap
from .sites import HTML, live_search, read_html, requested

MENU_URL = "http://127.0.0.1:9/api/menudata.js"
LICENCE = "/*\n @licstart  The MIT License (MIT)\n @licend */\n"


def menu_script(entries: str) -> bytes:
    """A `menudata.js` as Doxygen 1.9 writes it: its licence, then one statement."""
    return (LICENCE + "var menudata={children:[\n" + entries + "]}\n").encode()


MENU = menu_script(
    '{text:"Main Page",url:"index.html"},\n'
    '{text:"Classes",url:"annotated.html",children:[\n'
    '{text:"Class List",url:"annotated.html"},\n'
    '{text:"Class Members",url:"functions.html",children:[\n'
    '{text:"All",url:"functions.html",children:[\n'
    '{text:"a",url:"functions.html#index_a"},\n'
    '{text:"k",url:"functions_k.html#index_k"}]}]}]},\n'
    '{text:"Files \\"{}\\"",url:"files.html"},\n'
    '{text:"Home page",url:"https://elsewhere.example/"},\n'
    '{text:"Search",url:"javascript:void(0)"}'
)


def doxygen_page(title: str, body: str, menu: str = "menudata.js") -> str:
    """A page as Doxygen 1.9 writes it without a tree view: no menu in its HTML, the scripts that build it."""
    return (
        f"<html><head><title>Lighthouse: {title}</title>"
        '<script type="text/javascript" src="jquery.js"></script>'
        f'<script type="text/javascript" src="{menu}"></script>'
        '<script type="text/javascript" src="menu.js"></script></head>'
        "<body><div id='main-nav'></div>"
        f"<script>$(function(){{initMenu('',false,false,'search.php','Search');}});</script>"
        f"<div class='contents'><h1>{title}</h1><p>{body}</p></div></body></html>"
    )


def test_each_entry_is_a_link_named_by_its_text_under_the_entries_it_sits_in():
    entries = parse_doxygen_menu(MENU, menu_url=MENU_URL)
    assert [(e.url.rsplit("/", 1)[-1], e.text, e.context) for e in entries] == [
        ("index.html", "Main Page", ""),
        ("annotated.html", "Classes", ""),
        ("functions.html", "Class Members", "Classes"),
        ("functions_k.html", "k", "Classes Class Members All"),
        ("files.html", 'Files "{}"', ""),  # a brace in a text is no nesting
    ]
    # relative to the menu's folder, the site's root, as menu.js prefixes them; one entry per page
    assert entries[0].url == "http://127.0.0.1:9/api/index.html"


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"<html><body>Not found</body></html>",
        b"var searchData=[['a',['a.html']]];",
        LICENCE.encode() + b"var menudata={children:[]}",
        b"var menudata={" + b"children:[{" * 50 + b'text:"a",url:"a.html"}' + b"]}" * 50,
        b"\x00\xff" * 50,
    ],
)
def test_what_is_not_a_doxygen_menu_is_refused(body):
    with pytest.raises(NotAMenu):
        parse_doxygen_menu(body, menu_url=MENU_URL)


@pytest.mark.parametrize("page", ["p{n}.html", "p.html"])
def test_a_menu_of_more_entries_than_a_site_has_index_pages_is_refused(page):
    entries = ",".join(f'{{text:"p{n}",url:"{page.format(n=n)}"}}' for n in range(MAX_ENTRIES + 1))
    with pytest.raises(NotAMenu, match="more than"):
        parse_doxygen_menu(menu_script(entries), menu_url=MENU_URL)


def test_a_huge_body_is_read_in_bounded_time():
    # the fetch's 5 MB limit: entries that never close, braces without entries
    for body in (b"var menudata={" + b'{text:"' * 700_000, b"var menudata={" + b"{" * 5_000_000):
        with pytest.raises(NotAMenu):
            parse_doxygen_menu(body, menu_url=MENU_URL)


def test_a_page_that_loads_the_menu_links_it_as_the_sites_contents():
    page = read_html(doxygen_page("Main Page", "welcome"), "http://127.0.0.1:9/api/index.html")
    assert [(link.url, link.text) for link in page.links] == [(MENU_URL, "Contents")]
    other = read_html(doxygen_page("Main Page", "welcome", menu="menu.js"), "http://127.0.0.1:9/api/")
    assert other.links == []


def serve_doxygen_site(server, menu: bytes, *, status: int = 200) -> None:
    server.expect_request("/api/").respond_with_data(doxygen_page("Main Page", FILLER), content_type=HTML)
    server.expect_request("/api/menudata.js").respond_with_data(
        menu, status=status, content_type="application/javascript"
    )
    # Doxygen's class list gives each class its brief description beside the link.
    briefs = {n: "the lighthouse keeper" if n == 5 else f"signal flag {n}" for n in range(8)}
    classes = "".join(f"<p><a href='class{n}.html'>Class{n}</a> {briefs[n]}</p>" for n in range(8))
    server.expect_request("/api/annotated.html").respond_with_data(
        doxygen_page("Class List", "the classes " + classes), content_type=HTML
    )
    for n in range(8):
        text = LIGHTHOUSE if n == 5 else f"signal flag {n} " + FILLER
        server.expect_request(f"/api/class{n}.html").respond_with_data(
            doxygen_page(f"Class{n}", text), content_type=HTML
        )
    robots_and_no_sitemap(server)


def test_a_main_page_that_links_nothing_leads_through_its_menu(httpserver):
    serve_doxygen_site(httpserver, MENU)
    _, result = live_search(httpserver.url_for("/api/"), "lighthouse keeper lantern")
    assert result.found == httpserver.url_for("/api/class5.html")
    fetched = requested(httpserver)
    assert fetched.count("/api/menudata.js") == 1  # every page names it: read once
    assert result.downloads == len(fetched)  # the menu is a download too


@pytest.mark.parametrize(
    "body, status, note",
    [
        (b"<html><body>Not found</body></html>", 404, "HTTP 404"),
        (b"var searchData=[['lighthouse',['class5.html']]];", 200, "Doxygen menu refused"),
    ],
)
def test_a_menu_that_is_not_one_is_a_page_without_links_and_the_search_goes_on(
    httpserver, body, status, note
):
    serve_doxygen_site(httpserver, body, status=status)
    _, result = live_search(httpserver.url_for("/api/"), "lighthouse keeper lantern")
    assert result.found is None
    assert "/api/class5.html" not in requested(httpserver)
    notes = [entry.note for entry in result.log if str(entry.node).endswith("/menudata.js")]
    assert len(notes) == 1 and notes[0].startswith(note)
