"""Searching a live site through the project's HTTP client: robots obeyed, every fetch counted."""

from __future__ import annotations

import random
import socket

import pytest
from werkzeug import Response

from checks.pagefinding.algorithms import search
from checks.pagefinding.live import LiveSettings, LiveSite, StartError
from checks.pagefinding.text import query_terms, terms
from sites.http import FetchSettings

from .sites import HTML, serve_town_hall

SETTINGS = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0))


def find(start: str, query: str, algorithm: str = "BESTFIRST", budget: int | None = 50):
    env = LiveSite(start, SETTINGS, max_downloads=budget)
    env.open()
    try:
        return env, search(env, query_terms(query), algorithm, rng=random.Random(0), query_text=query)
    finally:
        env.close()


def requested(server) -> list[str]:
    return [request.path for request, _ in server.log]


def test_the_finder_follows_link_texts_to_the_page_and_counts_every_fetch(httpserver):
    start = serve_town_hall(httpserver)
    env, result = find(start, "income tax form")
    assert result.found == httpserver.url_for("/tax-form.html")
    assert result.path == [start, httpserver.url_for("/services.html"), httpserver.url_for("/tax-form.html")]
    assert result.link_texts == ["Services", "income tax form"]
    # robots.txt, the start, the sitemap (missing), services, the tax form: each fetch a download
    assert result.downloads == len(requested(httpserver)) == 5
    assert [entry.note for entry in result.log][:3] == ["robots.txt", "HTTP 200", "sitemap"]


def test_pages_robots_txt_disallows_are_never_fetched(httpserver):
    start = serve_town_hall(httpserver)
    find(start, "secret tax form", budget=20)
    assert "/private/tax.html" not in requested(httpserver)


def test_the_paper_algorithms_run_on_a_live_site(httpserver):
    start = serve_town_hall(httpserver)
    for name in ("LS2F", "SIM", "HMM", "A*", "FOCUSED", "RW", "DEG", "SIMDEG", "LS", "HMM2F"):
        env, result = find(start, "income tax form", name)
        assert result.downloads == env.downloads >= 2, name


def test_an_exhausted_budget_finds_nothing(httpserver):
    start = serve_town_hall(httpserver)
    _, result = find(start, "income tax form", budget=3)
    assert result.found is None and result.exhausted
    assert result.downloads == 3


def test_a_start_that_redirects_off_the_site_is_refused(httpserver):
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/").respond_with_data(
        "", status=302, headers={"Location": "http://127.0.0.2:9/"}
    )
    with pytest.raises(StartError, match="redirects off the site"):
        LiveSite(httpserver.url_for("/"), SETTINGS).open()


def test_an_unreachable_start_is_refused():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(StartError, match="could not be reached"):
        LiveSite(f"http://127.0.0.1:{port}/", SETTINGS).open()


def test_a_hostile_sitemap_expands_no_entity_and_adds_its_page_urls(httpserver):
    start = serve_town_hall(httpserver)
    httpserver.clear()
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>'
        + start.encode()
        + b"income-tax-form.html</loc></url><url><loc>&b;</loc></url></urlset>"
    )
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\n", content_type="text/plain")
    httpserver.expect_request("/sitemap.xml").respond_with_data(bomb, content_type="application/xml")
    httpserver.expect_request("/").respond_with_data(
        "<title>Home</title><p>nothing linked</p>", content_type=HTML
    )
    httpserver.expect_request("/income-tax-form.html").respond_with_data(
        "<title>Income tax form</title><p>form</p>", content_type=HTML
    )
    _, result = find(start, "income tax form")
    assert result.found == httpserver.url_for("/income-tax-form.html")
    assert result.link_texts == ["(sitemap)"]


def test_the_sitemaps_robots_txt_names_are_read_as_the_crawl_reads_them(httpserver):
    # The field name in any case, a comment after the URL, the same sitemap named twice: read once, as the crawl's
    # sitemap reader takes robots.txt's Sitemap lines (sites.crawler.sitemaps.sitemaps_in_robots).
    sitemap = httpserver.url_for("/pages.xml")
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"User-agent: *\nSitemap: {sitemap}  # every page\nSITEMAP: {sitemap}\n", content_type="text/plain"
    )
    httpserver.expect_request("/pages.xml").respond_with_data(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{httpserver.url_for('/income-tax-form.html')}</loc></url></urlset>",
        content_type="application/xml",
    )
    httpserver.expect_request("/").respond_with_data(
        "<title>Home</title><p>nothing linked</p>", content_type=HTML
    )
    httpserver.expect_request("/income-tax-form.html").respond_with_data(
        "<title>Income tax form</title><p>form</p>", content_type=HTML
    )
    _, result = find(httpserver.url_for("/"), "income tax form")
    assert result.found == httpserver.url_for("/income-tax-form.html")
    assert [entry.node for entry in result.log if entry.note == "sitemap"] == [sitemap]
    assert requested(httpserver) == ["/robots.txt", "/", "/pages.xml", "/income-tax-form.html"]


def test_binary_and_malformed_pages_are_downloads_that_yield_no_links(httpserver):
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/sitemap.xml").respond_with_data("", status=404)
    httpserver.expect_request("/").respond_with_data(
        "<title>Home</title><a href='/blob'>tax form</a><a href='/broken.html'>tax</a>", content_type=HTML
    )
    httpserver.expect_request("/blob").respond_with_data(
        b"\x00\x01\xff" * 100, content_type="application/octet-stream"
    )
    httpserver.expect_request("/broken.html").respond_with_data(b"<p><b><i>tax <a href=", content_type=HTML)
    _, result = find(httpserver.url_for("/"), "tax form", budget=10)
    notes = {entry.node: entry.note for entry in result.log}
    assert notes[httpserver.url_for("/blob")].startswith("not HTML")
    assert notes[httpserver.url_for("/broken.html")] == "HTTP 200"  # read despite its broken markup
    assert result.found != httpserver.url_for("/blob")


def test_a_page_answering_429_is_asked_again_after_retry_after_and_both_fetches_count(httpserver):
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/sitemap.xml").respond_with_data("", status=404)
    httpserver.expect_request("/").respond_with_data(
        "<title>Home</title><a href='/tax.html'>tax form</a>", content_type=HTML
    )
    answers = [
        Response("", status=429, headers={"Retry-After": "0"}),
        Response("<title>Tax form</title><p>tax form</p>", content_type=HTML),
    ]
    httpserver.expect_request("/tax.html").respond_with_handler(lambda request: answers.pop(0))
    _, result = find(httpserver.url_for("/"), "tax form")
    assert result.found == httpserver.url_for("/tax.html")
    assert result.downloads == len(requested(httpserver)) == 5


def _serve_index_page(httpserver, body: str) -> str:
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/sitemap.xml").respond_with_data("", status=404)
    httpserver.expect_request("/").respond_with_data(f"<title>Index</title>{body}", content_type=HTML)
    return httpserver.url_for("/")


def test_several_links_a_page_has_to_one_target_are_one_document_about_it(httpserver):
    # An index lists a page under several entries: together they name it; the first one alone does not.
    start = _serve_index_page(
        httpserver,
        "<ul><li><a href='/varieties.html'>apple varieties</a></li><li><a href='/orchard.html'>apple</a></li>"
        "<li><a href='/orchard.html'>orchard care</a></li></ul>",
    )
    env = LiveSite(start, SETTINGS, max_downloads=10)
    try:
        page = env.open()
    finally:
        env.close()
    links = {link.target: link for link in page.links}
    assert set(links[httpserver.url_for("/orchard.html")].label) == set(terms("apple orchard care"))
    assert links[httpserver.url_for("/orchard.html")].text == "apple"  # shown as the first link's text
    assert set(links[httpserver.url_for("/varieties.html")].label) == set(terms("apple varieties"))


def test_a_target_linked_thousands_of_times_keeps_a_bounded_document(httpserver):
    from checks.pagefinding.live import MAX_LINK_TERMS

    entries = "".join(f"<p>entry {i} <a href='/one.html'>term{i} word{i}</a></p>" for i in range(3000))
    env = LiveSite(_serve_index_page(httpserver, entries), SETTINGS, max_downloads=10)
    try:
        page = env.open()
    finally:
        env.close()
    [link] = page.links
    assert len(link.label) == MAX_LINK_TERMS and len(link.context) <= MAX_LINK_TERMS


def test_where_every_page_has_one_title_the_heading_names_the_page_answered(httpserver):
    """Doxygen-style pages: every <title> is the library's name; the heading names the thing. The query names
    the member list by its heading; both pages hold its words in their text alike."""
    generic = "<html><head><title>Gearbox library</title></head><body>{}</body></html>"
    body = "<p>gear shaft clutch gear shaft clutch</p>"
    pages = {
        "/": generic.format("<a href='/class.html'>Gear class</a> <a href='/members.html'>Gear members</a>"),
        "/class.html": generic.format(f"<div class='title'>Gear Class Reference</div>{body}"),
        "/members.html": generic.format(f"<div class='title'>Gear Member List</div>{body}"),
    }
    for path, html in pages.items():
        httpserver.expect_request(path).respond_with_data(html, content_type=HTML)
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\n", content_type="text/plain")
    env, result = find(httpserver.url_for("/"), "gear member list clutch")
    page = env.download(httpserver.url_for("/members.html"))  # in memory
    assert set(terms("Gear Member List")) <= set(page.title_terms)
    assert result.found == httpserver.url_for("/members.html")
