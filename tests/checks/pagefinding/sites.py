"""A small town-hall site on pytest-httpserver, for the live-site tests."""

from __future__ import annotations

import random
import re

import lxml.html
from pytest_httpserver import HTTPServer

from checks.pagefinding.algorithms import search
from checks.pagefinding.htmlpage import ReadPage, read_page
from checks.pagefinding.live import LiveSettings, LiveSite
from checks.pagefinding.text import query_terms
from sites.http import FetchSettings

HTML = "text/html; charset=utf-8"


def page(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def serve_town_hall(server: HTTPServer, *, robots: str = "User-agent: *\nDisallow: /private/\n") -> str:
    """/ → services → tax form; / → news; / → private (disallowed) copy of the tax form."""
    pages = {
        "/": page(
            "Town hall",
            "<p>Welcome.</p><ul><li><a href='/services.html'>Services</a> for residents</li>"
            "<li><a href='/news.html'>News</a></li><li><a href='/private/tax.html'>Tax form</a></li></ul>",
        ),
        "/services.html": page(
            "Services",
            "<p>Parking, waste and tax.</p>"
            "<p>Download the <a href='/tax-form.html'>income tax form</a> here.</p>"
            "<a href='/parking.html'>Parking</a>",
        ),
        "/news.html": page("News", "<p>The mayor opened a bridge.</p>"),
        "/parking.html": page("Parking permits", "<p>Apply for a parking permit.</p>"),
        "/tax-form.html": page("Income tax form", "<p>The form for your income tax return.</p>"),
        "/private/tax.html": page("Tax form", "<p>Secret income tax form.</p>"),
    }
    for path, html in pages.items():
        server.expect_request(path).respond_with_data(html, content_type=HTML)
    server.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
    server.expect_request("/sitemap.xml").respond_with_data("missing", status=404)
    return server.url_for("/")


def live_search(
    start: str,
    query: str,
    *,
    algorithm: str = "BESTFIRST",
    budget: int | None = 60,
    settings: LiveSettings | None = None,
    eager_stop: bool = True,
):
    """(the site, the search's result) of `query` on a live local site from `start`; the settings allow loopback
    and ask without delay unless `settings` says otherwise."""
    settings = settings or LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0))
    env = LiveSite(start, settings, max_downloads=budget)
    env.open()
    try:
        result = search(
            env, query_terms(query), algorithm, rng=random.Random(0), query_text=query, eager_stop=eager_stop
        )
        return env, result
    finally:
        env.close()


def serve_pages_and_fillers(server: HTTPServer, pages: dict[str, str]) -> None:
    """Serve `pages` (path -> HTML), any /pN.html as a page of nothing, robots.txt allowing all and no sitemap."""
    for path, html in pages.items():
        server.expect_request(path).respond_with_data(html, content_type=HTML)
    server.expect_request(re.compile(r"/p\d+\.html")).respond_with_data(
        page("A page", "<p>Nothing of note.</p>"), content_type=HTML
    )
    server.expect_request("/robots.txt").respond_with_data("User-agent: *\n", content_type="text/plain")
    server.expect_request("/sitemap.xml").respond_with_data("missing", status=404)


def requested(server) -> list[str]:
    """The paths the server was asked for, in order."""
    return [request.path for request, _ in server.log]


def read_html(html: str, url: str) -> ReadPage:
    """A page's HTML as the finder reads it (htmlpage.read_page), fetched from `url`."""
    return read_page(lxml.html.fromstring(html).getroottree().getroot(), url=url)
