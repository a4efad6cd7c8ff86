"""A live search's downloads as plain records (JSON), so that a search can stop between two downloads and go on
in another step, in another process: the next step runs the search again from the start over the recorded
downloads, without a request, and fetches live from where the records end.

A search is deterministic given what the site answered (its random choices come from a seeded generator), so
the replay takes the same path, makes the same choices and counts the same downloads as the search that made
the records; the search then goes on as the uninterrupted one would have. Pure: no ORM, no network.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .environment import Link, Page
from .siteindex import SiteIndex
from .text import url_terms


class SearchPaused(Exception):
    """The step's time is up before a download that is not recorded yet, or while one is still running: the
    search stops here and the next step replays the records and goes on. `in_flight` is the request still
    running (its fetcher and thread open; live.RequestInFlight), for the job to park for its next step."""

    def __init__(self, in_flight: Any = None) -> None:
        super().__init__()
        self.in_flight = in_flight


def _words(words: tuple[str, ...] | frozenset[str]) -> str:
    # Terms are runs of word characters (text.terms): a space never occurs inside one.
    return " ".join(words)


def _unwords(text: str) -> tuple[str, ...]:
    return tuple(text.split(" ")) if text else ()


def page_record(page: Page | None) -> dict[str, Any] | None:
    if page is None:
        return None
    return {
        "terms": _words(page.terms),
        "title": page.title,
        "title_terms": _words(page.title_terms),
        "own_terms": None if page.own_terms is None else _words(sorted(page.own_terms)),
        "search_index": page.search_index,
        "words": None if page.words is None else dict(page.words),
        "links": [
            [link.target, _words(link.label), link.text, _words(link.context), _words(link.url_terms)]
            for link in page.links
        ],
    }


def page_from_record(node: str, record: dict[str, Any] | None) -> Page | None:
    if record is None:
        return None
    own = record["own_terms"]
    return Page(
        node=node,
        terms=_unwords(record["terms"]),
        links=[
            Link(
                target=target,
                label=_unwords(label),
                text=text,
                context=_unwords(context),
                url_terms=_unwords(words),
            )
            for target, label, text, context, words in record["links"]
        ],
        title=record["title"],
        title_terms=_unwords(record["title_terms"]),
        own_terms=None if own is None else frozenset(_unwords(own)),
        search_index=record.get("search_index", ""),  # records saved before issue 19 have none
        words=Counter(record["words"]) if record.get("words") is not None else None,  # nor before session 14
    )


def sitemap_links_from_record(urls: list[str]) -> list[Link]:
    return [Link(target=url, label=(), text="", url_terms=url_terms(url)) for url in urls]


def index_record(index: SiteIndex | None) -> dict[str, Any] | None:
    if index is None:
        return None
    return {
        "urls": index.urls,
        "titles": index.titles,
        "terms": {word: sorted(pages) for word, pages in index.terms.items()},
        "title_terms": {word: sorted(pages) for word, pages in index.title_terms.items()},
    }


def index_from_record(record: dict[str, Any] | None) -> SiteIndex | None:
    if record is None:
        return None
    return SiteIndex(
        urls=record["urls"],
        titles=record["titles"],
        terms={word: frozenset(pages) for word, pages in record["terms"].items()},
        title_terms={word: frozenset(pages) for word, pages in record["title_terms"].items()},
    )
