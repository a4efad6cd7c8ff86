"""Short and plain real pages stay ok: the classifier does not take plainness, or link texts that name error
pages, for a page that does not exist (issue 11's three ~60-word pages with links like "decay 404.html")."""

from __future__ import annotations

import pytest

from sites.crawler.soft404.shipped import soft404_model
from sites.models import Page

pytestmark = pytest.mark.django_db

SHORT = (
    "<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p><ul>"
    "<li><a href='/{a}.html'>{a} 404.html</a></li><li><a href='/{b}.html'>{b} 405.html</a></li>"
    "<li><a href='/{c}.html'>{c} 410.html</a></li></ul></body></html>"
)
TEXTS = {
    "decay": "Links decay as sites move their pages around. This note collects the cases we met while checking "
    "old bookmarks: pages that moved without a redirect, servers that answer every address with their home page, "
    "and archives that were taken down.",
    "walk": "A walk through the crawl of one small site, step by step: the start page, the links it finds, the "
    "pages it fetches next and the order in which it visits them, with the time each request took.",
    "probe": "How the random probe tells a real page from an error page: it asks the server for a name that "
    "cannot exist and compares the answer with the page, word by word, by shingles of four words.",
}


def short_page(name: str) -> str:
    others = [other for other in TEXTS if other != name] + ["hidden"]
    return SHORT.format(title=name.capitalize(), text=TEXTS[name], a=others[0], b=others[1], c=others[2])


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_a_short_real_page_with_error_like_link_texts_is_not_a_soft404_by_the_classifier(name):
    assert soft404_model("").page_probability(short_page(name), "http://h/x.html") < 0.5


def test_short_pages_stay_ok_and_the_page_only_they_link_to_is_crawled(httpserver, crawl_site):
    httpserver.no_handler_status_code = 404
    httpserver.expect_request("/").respond_with_data(
        "<html><body><h1>Notes</h1><p><a href='/decay.html'>decay</a> <a href='/walk.html'>walk</a> "
        "<a href='/probe.html'>probe</a></p></body></html>",
        content_type="text/html",
    )
    for name in TEXTS:
        httpserver.expect_request(f"/{name}.html").respond_with_data(
            short_page(name), content_type="text/html"
        )
    httpserver.expect_request("/hidden.html").respond_with_data(
        "<html><body><h1>Hidden</h1><p>Only the short pages link here.</p></body></html>",
        content_type="text/html",
    )
    crawl = crawl_site(httpserver.url_for("/"), site_settings={"check_external": False})
    verdicts = {page.url.rsplit("/", 1)[1]: page.verdict for page in Page.objects.filter(crawl=crawl)}
    assert verdicts == {
        "": "ok",
        "decay.html": "ok",
        "walk.html": "ok",
        "probe.html": "ok",
        "hidden.html": "ok",
    }
