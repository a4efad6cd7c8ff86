"""A page that links hundreds of pages (Javadoc's "Index", a site map) holds the query's words because it
holds every word: its links inherit less of its topicality than a page about the topic hands down, so the
search follows the topical page's links before the hub's (issue 19, eighth round)."""

from __future__ import annotations

import math
import re

import pytest

from checks.pagefinding.finder import HUB_LINKS, hub_damped

from .sites import live_search, page, requested, serve_pages_and_fillers

HUB_SIZE = 300


def serve_site_with_a_hub(server) -> None:
    """/ → "Site map" (every word, HUB_SIZE links to filler pages) and "Lighthouse" (three of the query's
    four words, a link "Next" to the keeper's page, the target)."""
    fillers = "".join(f"<li><a href='/p{n}.html'>Page {n}</a></li>" for n in range(HUB_SIZE))
    pages = {
        "/": page(
            "Coastal guide",
            "<p>Welcome.</p><a href='/sitemap.html'>Site map</a> <a href='/coast.html'>Lighthouse</a>",
        ),
        "/sitemap.html": page(
            "All pages", "<p>lighthouse keeper lantern harbour tide</p><ul>" + fillers + "</ul>"
        ),
        "/coast.html": page(
            "The coast", "<p>The lighthouse, its lantern and the tide.</p><a href='/keeper.html'>Next</a>"
        ),
        "/keeper.html": page(
            "Lighthouse keeper lantern tide", "<p>The lighthouse keeper tends the lantern at high tide.</p>"
        ),
    }
    serve_pages_and_fillers(server, pages)


def test_a_hubs_links_do_not_outrank_the_links_of_a_page_about_the_topic(httpserver):
    serve_site_with_a_hub(httpserver)
    env, result = live_search(httpserver.url_for("/"), "lighthouse keeper lantern tide", budget=40)
    fetched = requested(httpserver)
    assert fetched.index("/sitemap.html") < fetched.index("/coast.html")  # the hub is read first
    assert result.found == httpserver.url_for("/keeper.html")
    assert not [path for path in fetched if re.fullmatch(r"/p\d+\.html", path)]  # none of the hub's links


def test_a_page_with_a_documentation_pages_own_navigation_hands_down_its_whole_topicality():
    assert hub_damped(0.75, 10) == 0.75
    assert hub_damped(0.75, HUB_LINKS) == 0.75


def test_a_page_with_e_times_as_many_links_hands_down_half_and_more_links_hand_down_less():
    assert hub_damped(1.0, round(HUB_LINKS * math.e)) == pytest.approx(0.5, abs=0.01)
    assert hub_damped(1.0, 10 * HUB_LINKS) < hub_damped(1.0, 3 * HUB_LINKS) < 1.0
    assert hub_damped(0.0, 10 * HUB_LINKS) == 0.0
