"""Sites that look documents up by a query value holding a path, each read as its server reads it (issue 18).

A docs tree (Django's Debian docs, like test-bed port 8103) served at `/doc?p=<path>` by three small servers on
127.0.0.1, one per way a server reads the value. An unknown value gets 200 with the site's "no such document" page
(a soft-404); any other path 404 (so the directory probe sees an honest server):

- `raw-slash`: the raw value, undecoded, as nginx's `$arg_p`: `p=ref/models/constraints` is the document,
  `p=ref%2Fmodels%2Fconstraints` is not. Links are written with `/`.
- `encoded-slash`: a router that takes a literal `/` in the value for a separator: only `p=ref%2Fmodels%2F…`
  names the document. Links are written with `%2F`.
- `space-encoded`: the value percent-decoded as RFC 3986 says (a `+` stays a plus), words for segments:
  `p=ref%20models%20constraints`; `p=ref+models+constraints` is not a document. Links are written with `%20`.

The truth lists, per site, real documents in the form its links take and missing ones: a random name in a real
directory, a random path, and (a quarter) a real document written the other way (`%2F` for `/`, `+` for `%20`),
which that server does not know. A checker that fetched the canonical form (`%2F`, `+`) instead of the link would
call the real documents soft-404s.
"""

from __future__ import annotations

import random
import string
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

TREE = Path("/usr/share/doc/python-django-doc/html")
KINDS = ("raw-slash", "encoded-slash", "space-encoded")
_SAFE_PATH = frozenset(string.ascii_letters + string.digits + "/_.-")

NOT_FOUND = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Django documentation</title></head>
<body><header><a href="/">Django documentation</a> <form action="/doc"><input name="p"></form></header>
<nav><a href="/doc?{home}">Home</a> <a href="/doc?{faq}">FAQ</a> <a href="/doc?{topics}">Using Django</a></nav>
<main><h1>No such document</h1><p>We could not find the document you asked for. It may have moved, or the link
you followed may be out of date. Try the search box above, or start again from the documentation's home.</p>
</main><footer>Django documentation, served by a lookup.</footer></body></html>"""


def write_value(document: str, kind: str) -> str:
    """The query value a link of `kind`'s site writes for `document` (a path under TREE, without .html)."""
    if kind == "raw-slash":
        return document
    if kind == "encoded-slash":
        return document.replace("/", "%2F")
    return "%20".join(document.split("/"))


def other_value(document: str, kind: str) -> str:
    """The same document written the way this site does not read it (what a canonicalizing fetcher sends)."""
    if kind == "raw-slash":
        return document.replace("/", "%2F")
    if kind == "encoded-slash":
        return document
    return "+".join(document.split("/"))


def read_value(raw: str, kind: str) -> str | None:
    """The document a raw query value names on `kind`'s site, or None."""
    if kind == "raw-slash":
        return raw
    if kind == "encoded-slash":
        return None if "/" in raw else unquote(raw)
    return unquote(raw).replace(" ", "/")  # unquote, not unquote_plus: a "+" stays a plus


def _handler(kind: str) -> type[BaseHTTPRequestHandler]:
    not_found = NOT_FOUND.format(
        home=f"p={write_value('index', kind)}",
        faq=f"p={write_value('faq/index', kind)}",
        topics=f"p={write_value('topics/index', kind)}",
    ).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            if path == "/robots.txt":
                return self._send(404, b"")
            if path == "/":
                return self._send(200, (TREE / "index.html").read_bytes())
            if path != "/doc":
                return self._send(404, b"<h1>404 Not Found</h1>")
            raw = next((item[2:] for item in query.split("&") if item.startswith("p=")), "")
            document = read_value(raw, kind)
            if document and set(document) <= _SAFE_PATH and ".." not in document:
                file = TREE / f"{document}.html"
                if file.is_file():
                    return self._send(200, file.read_bytes())
            return self._send(200, not_found)

    return Handler


class QueryValueSites:
    """The three servers, started on free ports of 127.0.0.1; a context manager."""

    def __init__(self) -> None:
        self.servers: dict[str, ThreadingHTTPServer] = {}

    def __enter__(self) -> QueryValueSites:
        for kind in KINDS:
            server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(kind))
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self.servers[kind] = server
        return self

    def __exit__(self, *exc) -> None:
        for server in self.servers.values():
            server.shutdown()
            server.server_close()

    def base(self, kind: str) -> str:
        return f"http://127.0.0.1:{self.servers[kind].server_address[1]}"

    def truth(self, n: int, seed: int = 1) -> list[dict]:
        """Per site, `n` real documents and `n` missing ones: {url, site, kind: page|missing, verdict}."""
        rng = random.Random(seed)

        def word() -> str:
            return "".join(rng.choice(string.ascii_lowercase) for _ in range(9))

        documents = sorted(
            str(path.relative_to(TREE))[: -len(".html")]
            for path in TREE.rglob("*.html")
            if set(str(path.relative_to(TREE))) <= _SAFE_PATH and not path.name.startswith("_")
        )
        directories = sorted({d.rsplit("/", 1)[0] for d in documents if "/" in d})
        urls = []
        for kind in KINDS:
            base = self.base(kind)

            def url(value: str, base: str = base) -> str:
                return f"{base}/doc?p={value}"

            for document in rng.sample(documents, min(n, len(documents))):
                urls.append({"url": url(write_value(document, kind)), "site": kind, "verdict": "ok"})
            real = [d for d in documents if "/" in d]
            for index in range(n):
                if index % 4 == 0:
                    value = other_value(rng.choice(real), kind)
                elif index % 4 == 1:
                    value = write_value(f"{word()}/{word()}/{word()}", kind)
                else:
                    value = write_value(f"{rng.choice(directories)}/{word()}", kind)
                urls.append({"url": url(value), "site": kind, "verdict": "soft404"})
        return urls


def quote_check() -> None:
    """The forms above are what they say (a self-check run by the benchmark before it measures)."""
    assert quote("ref/models", safe="/") == write_value("ref/models", "raw-slash")
    for kind in KINDS:
        assert read_value(write_value("ref/models/fields", kind), kind) == "ref/models/fields"
        assert read_value(other_value("ref/models/fields", kind), kind) != "ref/models/fields"
