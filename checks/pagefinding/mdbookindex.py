"""An mdBook's own search index, read as its search box's script reads it. Every page of a book built with
mdBook (the Rust books, many project manuals) names the index its search box loads (`searchindex-HASH.js`,
older books `searchindex.json`): an elasticlunr index of every section of the book, its words stemmed (Porter)
in a character trie per field, with their frequencies. One download gives, for every page of the book, the
words of its text and of its section titles: what a person typing the query into the book's search box would
be shown. Sections ("ch06-01-defining-an-enum.html#enum-values") are read as the page that holds them."""

from __future__ import annotations

import json
import re
from urllib.parse import urldefrag, urljoin

from .siteindex import MAX_DOCUMENTS, NotAnIndex, SiteIndex

# A book's index is a few MB; these bound what a hostile one can make the reader walk.
MAX_TRIE_NODES = 3_000_000
MAX_WORD_LENGTH = 60
# mdBook >= 0.4.4x: window.search = Object.assign(window.search, JSON.parse('…')); the JSON inside a
# single-quoted JavaScript string, its backslashes and quotes escaped. Older: Object.assign(window.search, {…});
_JSON_PARSE = re.compile(rb"^\s*window\.search\s*=\s*Object\.assign\(\s*window\.search\s*,\s*JSON\.parse\('")
_JSON_PARSE_END = re.compile(rb"'\)\s*\)\s*;?\s*$")
_OBJECT_ASSIGN = re.compile(rb"^\s*(?:window\.search\s*=\s*)?Object\.assign\(\s*window\.search\s*,\s*")
_OBJECT_ASSIGN_END = re.compile(rb"\)\s*;?\s*$")
_JS_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_JS_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def parse_mdbook_index(body: bytes, *, index_url: str) -> SiteIndex:
    """Read an mdBook `searchindex.js` or `searchindex.json` fetched from `index_url` (its pages are named
    relative to it); raise NotAnIndex when the body is not one (a soft-404 page, a truncated file, another
    script, an index that would take too long to walk)."""
    data = _load(body)
    if not isinstance(data, dict) or not isinstance(data.get("doc_urls"), list):
        raise NotAnIndex("the search index names no pages (no doc_urls)")
    index = data.get("index")
    fields = index.get("index") if isinstance(index, dict) else None
    if not isinstance(fields, dict):
        raise NotAnIndex("the search index has no elasticlunr index")
    doc_urls = data["doc_urls"][:MAX_DOCUMENTS]
    if not all(isinstance(url, str) for url in doc_urls):
        raise NotAnIndex("the search index's page names are not all text")
    pages: dict[str, int] = {}
    page_of_section: list[int] = []
    for doc_url in doc_urls:
        url = urljoin(index_url, urldefrag(doc_url)[0])
        page_of_section.append(pages.setdefault(url, len(pages)))
    titles = [""] * len(pages)
    store = index.get("documentStore")
    docs = store.get("docs") if isinstance(store, dict) else None
    if isinstance(docs, dict):
        # A page's title is its first section's (the page's heading); the store may be left out (save: false).
        for section in range(len(page_of_section) - 1, -1, -1):
            doc = docs.get(str(section))
            if isinstance(doc, dict) and isinstance(doc.get("title"), str):
                titles[page_of_section[section]] = doc["title"]
    budget = [MAX_TRIE_NODES]
    return SiteIndex(
        urls=list(pages),
        titles=titles,
        terms=_field_terms(fields.get("body"), page_of_section, budget),
        title_terms=_field_terms(fields.get("title"), page_of_section, budget),
    )


def _load(body: bytes) -> object:
    stripped = body.strip()
    try:
        if stripped.startswith(b"{"):
            return json.loads(stripped)
        start, end = _JSON_PARSE.match(stripped), _JSON_PARSE_END.search(stripped)
        if start and end and start.end() <= end.start():
            text = stripped[start.end() : end.start()].decode("utf-8")
            return json.loads(_JS_ESCAPE.sub(lambda m: _JS_ESCAPES.get(m.group(1), m.group(1)), text))
        start, end = _OBJECT_ASSIGN.match(stripped), _OBJECT_ASSIGN_END.search(stripped)
        if start and end and start.end() <= end.start():
            return json.loads(stripped[start.end() : end.start()])
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise NotAnIndex(f"the search index is not JSON: {exc}") from None
    raise NotAnIndex("not an mdBook search index (no Object.assign(window.search, …))")


def _field_terms(root: object, page_of_section: list[int], budget: list[int]) -> dict[str, frozenset[int]]:
    """The words of one field's trie (elasticlunr keeps a word as the path of its letters, each node with
    the sections holding the word so far, `docs`, and their count, `df`), each with the pages holding it."""
    field = root.get("root") if isinstance(root, dict) else None
    if not isinstance(field, dict):
        return {}
    out: dict[str, set[int]] = {}
    stack: list[tuple[dict, str]] = [(field, "")]
    while stack:
        node, word = stack.pop()
        budget[0] -= 1
        if budget[0] < 0:
            raise NotAnIndex(f"the search index has more than {MAX_TRIE_NODES} entries")
        docs = node.get("docs")
        if word and isinstance(docs, dict) and docs:
            held = out.setdefault(word, set())
            for section in docs:
                number = (
                    int(section)
                    if isinstance(section, str)
                    and section.isascii()
                    and section.isdigit()
                    and len(section) < 10
                    else -1
                )
                if 0 <= number < len(page_of_section):
                    held.add(page_of_section[number])
        if len(word) >= MAX_WORD_LENGTH:
            continue
        for key, child in node.items():
            if len(key) == 1 and isinstance(child, dict):
                stack.append((child, word + key))
    return {word: frozenset(held) for word, held in out.items() if held}
