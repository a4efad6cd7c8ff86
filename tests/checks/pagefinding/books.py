"""mdBook sites on pytest-httpserver, for the tests of mdBook's search index: books whose pages name their
index, and the index as mdBook writes it."""

from __future__ import annotations

import json

from checks.pagefinding.siteindex import stem

from .sites import HTML

FILLER = "chapter section guide overview notes reference "


def elasticlunr_index(sections: dict[str, tuple[str, str]]) -> dict:
    """An mdBook search index as mdBook writes it: doc_urls, a document store, and per field a trie of the
    Porter stems of each section's words with the sections holding them."""
    fields: dict[str, dict] = {"title": {}, "body": {}, "breadcrumbs": {}}
    for number, (title, body) in enumerate(sections.values()):
        for field, text in (("title", title), ("body", body)):
            for word in text.lower().split():
                node = fields[field]
                for letter in stem(word):
                    node = node.setdefault(letter, {})
                node.setdefault("docs", {})[str(number)] = {"tf": 1.0}
                node["df"] = len(node["docs"])
    return {
        "doc_urls": list(sections),
        "index": {
            "documentStore": {
                "docs": {
                    str(n): {"id": str(n), "title": title, "body": body}
                    for n, (title, body) in enumerate(sections.values())
                },
                "save": True,
            },
            "fields": ["title", "body", "breadcrumbs"],
            "index": {field: {"root": trie} for field, trie in fields.items()},
            "ref": "id",
        },
    }


def as_script(index: dict) -> bytes:
    """searchindex-HASH.js as mdBook >= 0.4.4x writes it: the JSON in a single-quoted JavaScript string."""
    quoted = json.dumps(index).replace("\\", "\\\\").replace("'", "\\'")
    return f"window.search = Object.assign(window.search, JSON.parse('{quoted}'));".encode()


def book_page(title: str, body: str, index_path: str, links: str = "") -> str:
    return (
        f"<html><head><title>{title}</title>"
        f'<script>var path_to_root = "";window.path_to_searchindex_js = "{index_path}";</script>'
        f"<script src='searcher-1234.js'></script></head><body><h1>{title}</h1><p>{body}</p>{links}</body></html>"
    )


def serve_book(server, prefix: str, chapters: dict[int, str], *, pages: int = 12) -> None:
    """A book under `prefix`: a home page linking chapters whose link texts say nothing of their words, and
    its search index (sections of each chapter) at `prefix`searchindex-ab12.js."""
    words = {n: chapters.get(n, f"topic{n} " + FILLER) for n in range(pages)}
    links = "".join(f"<li><a href='{prefix}chapter{n}.html'>Chapter {n}</a></li>" for n in range(pages))
    server.expect_request(prefix).respond_with_data(
        book_page("Book", FILLER, "searchindex-ab12.js", f"<ul>{links}</ul>"), content_type=HTML
    )
    for n in range(pages):
        server.expect_request(f"{prefix}chapter{n}.html").respond_with_data(
            book_page(f"Chapter {n}", words[n], "searchindex-ab12.js"), content_type=HTML
        )
    sections = {}
    for n in range(pages):
        sections[f"chapter{n}.html#chapter-{n}"] = (f"Chapter {n}", words[n])
        sections[f"chapter{n}.html#more"] = ("More", FILLER)
    server.expect_request(f"{prefix}searchindex-ab12.js").respond_with_data(
        as_script(elasticlunr_index(sections)), content_type="application/javascript"
    )


def robots_and_no_sitemap(server) -> None:
    server.expect_request("/robots.txt").respond_with_data("User-agent: *\n", content_type="text/plain")
    server.expect_request("/sitemap.xml").respond_with_data("missing", status=404)


LIGHTHOUSE = "lighthouse keeper lantern lighthouse keeper lantern foghorn " + FILLER
