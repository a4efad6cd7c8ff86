"""Twin pages (checks/pagefinding/twins.py): one thing's views, named alike, that link each other. The finder
reads the twins of its best pages before it answers, since the query's words are on both and only reading
tells which holds them most (issue 19: Doxygen member lists, Javadoc "Uses of" pages and source listings,
Sphinx's highlighted module source)."""

from __future__ import annotations

import pytest

from checks.pagefinding import finder
from checks.pagefinding.environment import Link
from checks.pagefinding.twins import MAX_TWINS, VIEW_MIN_PAGES, ViewLinks, are_twins, twins_of

from .sites import live_search, page, requested, serve_pages_and_fillers

SITE = "http://docs.example.org"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Doxygen: a class and its list of all members; a header and its source listing.
        ("/classlog4cplus_1_1NullAppender.html", "/classlog4cplus_1_1NullAppender-members.html"),
        ("/d7/dd5/_s_d_l__version_8h.html", "/d7/dd5/_s_d_l__version_8h_source.html"),
        # Javadoc: a class, its "Uses of" page and its source listing.
        (
            "/org/apache/commons/io/monitor/FileEntry.html",
            "/org/apache/commons/io/monitor/class-use/FileEntry.html",
        ),
        ("/org/lang3/time/DateFormatUtils.html", "/src-html/org/lang3/time/DateFormatUtils.html"),
        # Sphinx: a module's API page and its highlighted source (viewcode).
        ("/internals/reference/celery.worker.control.html", "/_modules/celery/worker/control.html"),
        # A folder's own page is named by its folder.
        ("/guide/widgets/index.html", "/api/widgets.html"),
    ],
)
def test_one_things_views_are_twins_either_way(a, b):
    assert are_twins(SITE + a, SITE + b)
    assert are_twins(SITE + b, SITE + a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # A dot adds a part: a submodule, a nested class. That is a child, not another view.
        ("/reference/celery.app.html", "/reference/celery.app.task.html"),
        ("/org/lang3/ThreadUtils.html", "/org/lang3/ThreadUtils.ThreadGroupPredicate.html"),
        # A name inside another name is no twin ("Appender" and "AppenderAttachable").
        ("/classlog4cplus_1_1Appender.html", "/classlog4cplus_1_1AppenderAttachable.html"),
        ("/library/os.html", "/library/ossaudiodev.html"),
        # The same page, and a page with a query string, are not twins.
        ("/library/os.html", "/library/os.html"),
        ("/library/os.html", "/library/os.html?highlight=path"),
    ],
)
def test_other_pages_are_not_twins(a, b):
    assert not are_twins(SITE + a, SITE + b)


def test_pages_of_another_site_are_never_twins():
    assert not are_twins(f"{SITE}/api/widget.html", "http://mirror.example.org/_modules/widget.html")
    assert not are_twins(f"{SITE}/api/widget.html", "https://docs.example.org/_modules/widget.html")


def test_a_page_linking_more_pages_of_its_name_than_max_twins_is_a_listing_with_no_twins():
    asyncio = f"{SITE}/library/asyncio.html"
    parts = [f"{SITE}/library/asyncio-{part}.html" for part in ("task", "stream", "queue", "sync", "future")]
    assert len(parts) > MAX_TWINS
    assert twins_of(asyncio, parts) == []
    assert twins_of(asyncio, parts[:2] + [f"{SITE}/library/os.html", parts[0]]) == parts[:2]


def test_generated_graphs_nodes_have_no_twins():
    assert twins_of(3, [4, 5]) == []


def doxygen_class_page(number: int, members: int) -> list[Link]:
    """A class page of a Doxygen site with numbered file names: the navigation, and its member list."""
    return [
        Link(target=f"{SITE}/index.html", label=(), text="Main Page"),
        Link(target=f"{SITE}/annotated.html", label=(), text="Classes"),
        Link(target=f"{SITE}/a{members:05}.html", label=(), text="List of all  members"),
        Link(target=f"{SITE}/a00042_source.html#l{number}", label=(), text=str(number)),
    ]


def read_class_pages(views: ViewLinks, count: int) -> None:
    for number in range(count):
        views.add(f"{SITE}/a{1000 + 2 * number:05}.html", doxygen_class_page(number, 1001 + 2 * number))


def test_a_text_every_page_of_a_kind_links_once_to_its_own_target_is_a_view_link():
    """Doxygen's "List of all members" where file names are numbers: no URL names the member list a twin."""
    views = ViewLinks()
    read_class_pages(views, VIEW_MIN_PAGES)
    page = f"{SITE}/a01000.html"
    assert views.of(page, doxygen_class_page(0, 1001)) == [f"{SITE}/a01001.html"]
    assert not are_twins(page, f"{SITE}/a01001.html")


def test_navigation_line_numbers_and_too_few_pages_are_no_view_links():
    views = ViewLinks()
    read_class_pages(views, VIEW_MIN_PAGES - 1)
    assert views.of(f"{SITE}/a01000.html", doxygen_class_page(0, 1001)) == []  # seen on too few pages
    read_class_pages(views, VIEW_MIN_PAGES + 2)
    found = views.of(f"{SITE}/a01000.html", doxygen_class_page(0, 1001))
    assert f"{SITE}/index.html" not in found and f"{SITE}/annotated.html" not in found  # one target for all
    assert not any("_source" in url for url in found)  # a line number is no text


def test_a_text_a_page_repeats_is_a_list_not_its_view():
    """Sphinx writes "[source]" beside each function of a module's page: those are its parts' sources."""
    views = ViewLinks()
    pages = [f"{SITE}/api/mod{n}.html" for n in range(VIEW_MIN_PAGES + 1)]
    for n, url in enumerate(pages):
        sources = [
            Link(target=f"{SITE}/_modules/mod{n}.html#f{k}", label=(), text="[source]") for k in (1, 2)
        ]
        views.add(url, sources if n == 0 else sources[:1])
    assert views.of(pages[0], [Link(target=f"{SITE}/_modules/mod0.html#f1", label=(), text="[source]")]) == []
    one = [Link(target=f"{SITE}/_modules/mod1.html#f1", label=(), text="[source]")]
    assert views.of(pages[1], one) == [f"{SITE}/_modules/mod1.html#f1"]


QUERY = "spindle ratchet flywheel gasket"


def serve_widget_site(server) -> None:
    """/ links "Ratchet widget" (the class page: its text holds each query word once among many) and thirty
    pages whose link texts name one query word but which hold nothing, more than the search's patience.
    The class page links its member list ("All members": two of the query's words) and its source listing
    ("[source]"): the listing is the page the query was made from (each word many times) and no other page
    links it."""
    decoys = "".join(f"<li><a href='/p{n}.html'>spindle notes {n}</a></li>" for n in range(30))
    source = " ".join(["spindle ratchet flywheel gasket assembly"] * 12)
    pages = {
        "/": page(
            "Machine shop",
            f"<p>Parts and tools.</p><a href='/api/widget.html'>Ratchet widget</a><ul>{decoys}</ul>",
        ),
        "/api/widget.html": page(
            "Widget class",
            "<p>The widget turns a spindle with a ratchet; see also the flywheel and the gasket.</p>"
            + " ".join(f"word{n}" for n in range(200))
            + "<a href='/_modules/widget.html'>[source]</a> <a href='/api/widget-members.html'>All members</a>",
        ),
        "/_modules/widget.html": page("widget", f"<pre>{source}</pre>"),
        "/api/widget-members.html": page("Widget members", "<p>turn, spindle, ratchet</p>"),
    }
    serve_pages_and_fillers(server, pages)


def test_the_search_reads_its_answers_twin_and_answers_the_twin_that_holds_the_query_most(httpserver):
    serve_widget_site(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/_modules/widget.html")
    assert [url for url, _ in result.candidates[:2]] == [
        httpserver.url_for("/_modules/widget.html"),
        httpserver.url_for("/api/widget.html"),
    ]
    fetched = requested(httpserver)
    assert fetched.count("/_modules/widget.html") == 1


def test_without_twin_reads_the_search_stops_on_the_class_page(httpserver, monkeypatch):
    """The case above is one the rest of the search misses: the twin reads are what find it."""
    monkeypatch.setattr(finder, "TWIN_READS", 0)
    serve_widget_site(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=60)
    assert result.found == httpserver.url_for("/api/widget.html")
    assert "/_modules/widget.html" not in requested(httpserver)


MEMBERS_QUERY = "spindle ratchet flywheel gasket"


def serve_numbered_doxygen_site(server) -> None:
    """A Doxygen site whose files are numbers (SHORT_NAMES): the class list links four class pages, each linking
    its member list as "List of all members". The Widget class names the query's words once each among many;
    its member list (a00002) repeats them: the page the query was made from, whose URL names no twin. Thirty
    pages whose links name a query word but which hold nothing outlast the search's patience."""
    classes = {1: "Widget", 3: "Gadget", 5: "Sprocket", 7: "Lever"}
    decoys = "".join(f"<li><a href='/p{n}.html'>gasket notes {n}</a></li>" for n in range(30))
    pages = {
        "/": page("Reference", f"<a href='/annotated.html'>Class list of spindle parts</a><ul>{decoys}</ul>"),
        "/annotated.html": page(
            "Class list",
            "".join(f"<a href='/a{n:05}.html'>{name} (spindle part)</a> " for n, name in classes.items()),
        ),
    }
    for n, name in classes.items():
        words = "spindle ratchet flywheel gasket " if name == "Widget" else "spindle "
        pages[f"/a{n:05}.html"] = page(
            f"{name} class",
            f"<p>The {name} {words}</p>"
            + " ".join(f"{name.lower()}word{k}" for k in range(150))
            + f" <a href='/a{n + 1:05}.html'>List of all members</a> <a href='/'>Main Page</a>",
        )
        members = " ".join(["spindle ratchet flywheel gasket"] * 6) if name == "Widget" else "turn"
        pages[f"/a{n + 1:05}.html"] = page(f"{name} members", f"<p>{members}</p>")
    serve_pages_and_fillers(server, pages)


@pytest.mark.parametrize("view_links", [True, False])
def test_the_search_reads_its_answers_view_link_where_urls_name_no_twin(httpserver, monkeypatch, view_links):
    """With view links the member list is read before the search answers, and is the answer; without, the
    search answers the class page and never asks for the list."""
    monkeypatch.setattr(finder, "VIEW_LINKS", view_links)
    serve_numbered_doxygen_site(httpserver)
    _, result = live_search(httpserver.url_for("/"), MEMBERS_QUERY, budget=60)
    members, widget = httpserver.url_for("/a00002.html"), httpserver.url_for("/a00001.html")
    if view_links:
        assert result.found == members
        assert requested(httpserver).count("/a00002.html") == 1
    else:
        assert result.found == widget
        assert "/a00002.html" not in requested(httpserver)
