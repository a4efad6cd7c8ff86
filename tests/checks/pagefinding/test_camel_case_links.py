"""A link to a CamelCase identifier names its humps (htmlpage.CAMEL_PARTS, issue 19, session 13): API references
link modules and classes by compound names ("CholmodSupport module"), and a person asking for "cholmod" clicks it."""

from __future__ import annotations

from checks.pagefinding import htmlpage

from .sites import live_search, page, requested, serve_pages_and_fillers

QUERY = "cholmod factorization classes"


def serve_modules(server) -> None:
    """/ links three module pages by their compound names, the Cholmod one last; only it holds the query."""
    pages = {
        "/": page(
            "Modules",
            "<a href='/group__SparseSupport.html'>SparseSupport module</a> "
            "<a href='/group__PardisoSupport.html'>PardisoSupport module</a> "
            "<a href='/group__CholmodSupport.html'>CholmodSupport module</a>",
        ),
        "/group__SparseSupport.html": page("SparseSupport", "<p>Sparse matrices.</p>"),
        "/group__PardisoSupport.html": page("PardisoSupport", "<p>Pardiso solvers.</p>"),
        "/group__CholmodSupport.html": page(
            "CholmodSupport module", "<p>Cholmod factorization classes. Cholmod factorization classes.</p>"
        ),
    }
    serve_pages_and_fillers(server, pages)


def test_the_link_whose_identifier_holds_a_query_word_is_read_first(httpserver, monkeypatch):
    monkeypatch.setattr(htmlpage, "CAMEL_PARTS", True)
    serve_modules(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=20)
    assert result.found == httpserver.url_for("/group__CholmodSupport.html")
    assert [path for path in requested(httpserver) if path.startswith("/group__")][
        0
    ] == "/group__CholmodSupport.html"


def test_without_camel_parts_the_modules_are_read_in_the_pages_order(httpserver):
    """The default (CAMEL_PARTS off: measured, its comment)."""
    serve_modules(httpserver)
    live_search(httpserver.url_for("/"), QUERY, budget=20)
    assert [path for path in requested(httpserver) if path.startswith("/group__")][
        0
    ] == "/group__SparseSupport.html"
