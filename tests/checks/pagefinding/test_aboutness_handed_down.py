"""A page hands its links the chance that they lead on to the topic: how much the page is about the query (its
length-normalised BM25), not how many of the query's words it holds. A long page that names most of the
query's words once in passing (a changelog, an almanac) hands down less than a short page about the topic that
holds fewer of them (issue 19, ninth round)."""

from __future__ import annotations

import re

from .sites import live_search, page, requested, serve_pages_and_fillers

QUERY = "lighthouse keeper lantern tide"
FILLERS = 10  # fewer than HUB_LINKS: the almanac is no hub, its links are not damped as one's


def serve_almanac_and_coast(server) -> None:
    """/ (the whole query, twice) → "Almanac" (three of the query's four words, once each among 600 others,
    links to FILLERS pages) and "Coast" (two of them, three times each in a few words, a link "Next" to the
    keeper's page, the target, whose URL names none of the query's words)."""
    filler_words = " ".join(f"word{n % 97}" for n in range(300))
    fillers = "".join(f"<li><a href='/p{n}.html'>Page {n}</a></li>" for n in range(FILLERS))
    pages = {
        "/": page(
            "Guide",
            "<p>lighthouse keeper lantern tide; the lighthouse keeper, lantern and tide.</p>"
            "<a href='/almanac.html'>Almanac</a> <a href='/coast.html'>Coast</a>",
        ),
        "/almanac.html": page(
            "Almanac", f"<p>{filler_words} lighthouse {filler_words} keeper lantern</p><ul>{fillers}</ul>"
        ),
        "/coast.html": page(
            "Coast",
            "<p>The lighthouse at high tide; tide, lighthouse, tide, lighthouse.</p>"
            "<a href='/next.html'>Next</a>",
        ),
        "/next.html": page(
            "Lighthouse keeper lantern tide", "<p>The lighthouse keeper tends the lantern at high tide.</p>"
        ),
    }
    serve_pages_and_fillers(server, pages)


def test_the_links_of_a_short_page_about_the_topic_outrank_those_of_a_long_page_naming_more_of_its_words(
    httpserver,
):
    serve_almanac_and_coast(httpserver)
    _, result = live_search(httpserver.url_for("/"), QUERY, budget=40)
    fetched = requested(httpserver)
    assert "/almanac.html" in fetched and "/coast.html" in fetched  # the choice is between their links
    assert result.found == httpserver.url_for("/next.html")
    keeper = fetched.index("/next.html")
    assert not [path for path in fetched[:keeper] if re.fullmatch(r"/p\d+\.html", path)]
