"""Serve a small website from pytest-httpserver: pages by path, robots.txt, 404 for everything else."""

from __future__ import annotations

from pytest_httpserver import HTTPServer


def html(title: str, *links: str, extra: str = "") -> str:
    anchors = "".join(f'<a href="{href}">link to {href}</a>\n' for href in links)
    return f"<!doctype html><html><head><title>{title}</title>{extra}</head><body>{anchors}</body></html>"


def serve_site(server: HTTPServer, pages: dict[str, str], robots: str | None = None) -> str:
    """Register `pages` (path -> HTML) on the server; return its root URL."""
    server.no_handler_status_code = 404
    if robots is not None:
        server.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
    for path, body in pages.items():
        server.expect_request(path).respond_with_data(body, content_type="text/html; charset=utf-8")
    return server.url_for("/")


def requested_paths(server: HTTPServer) -> list[str]:
    return [request.path for request, _ in server.log]
