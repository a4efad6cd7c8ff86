"""A small site on pytest-httpserver that can change between crawls and answers conditional requests as nginx
does: every page carries an ETag and a Last-Modified, and a matching If-None-Match gets a bodiless 304."""

from __future__ import annotations

import hashlib
import re

from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Request, Response

NOT_FOUND = "<html><body>Not found</body></html>"


class ValidatingSite:
    LAST_MODIFIED = "Mon, 02 Nov 2026 10:00:00 GMT"

    def __init__(self, server: HTTPServer, pages: dict[str, str]) -> None:
        self.pages = dict(pages)  # path -> HTML; change it between crawls
        self.redirects: dict[str, str] = {}  # path -> path it answers 301 to
        self.conditional: list[tuple[str, str, str]] = []  # (path, If-None-Match, If-Modified-Since)
        server.no_handler_status_code = 404
        server.expect_request("/robots.txt").respond_with_data("", content_type="text/plain")
        server.expect_request(re.compile("^/(?!robots).*")).respond_with_handler(self.answer)
        self.root = server.url_for("/")

    def etag(self, path: str) -> str:
        return '"' + hashlib.sha1(self.pages[path].encode()).hexdigest()[:16] + '"'

    def answer(self, request: Request) -> Response:
        path = request.path
        if path in self.redirects:
            return Response(status=301, headers={"Location": self.redirects[path]})
        if path not in self.pages:
            return Response(NOT_FOUND, status=404, content_type="text/html")
        asked_etag = request.headers.get("If-None-Match", "")
        asked_date = request.headers.get("If-Modified-Since", "")
        if asked_etag or asked_date:
            self.conditional.append((path, asked_etag, asked_date))
        headers = {"ETag": self.etag(path), "Last-Modified": self.LAST_MODIFIED}
        if asked_etag == self.etag(path):
            return Response(status=304, headers=headers)
        return Response(self.pages[path], content_type="text/html; charset=utf-8", headers=headers)
