"""Page searches on a site: their parameters checked, run through the live-site environment, summarised."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from checks.jobs.context import JobInputError
from sites.crawler.urls import normalize_url
from sites.models import Site
from sites.services.crawls import crawl_config_for

from .algorithms import ALGORITHMS, DEFAULT_ALGORITHM, algorithm_named, search
from .live import LiveSettings, LiveSite, RequestInFlight, StartError, site_key
from .records import SearchPaused
from .text import query_terms

DEFAULT_BUDGET = 100
MAX_BUDGET = 1000  # every download is kept in the job's log
MAX_STATES = 10_000  # the automaton's states (default 100): a bound on its memory, far past any useful size
LIVE_ALGORITHMS = [name for name, algorithm in ALGORITHMS.items() if not algorithm.needs_graph]


def findpage_parameters(site: Site, raw: dict[str, Any]) -> dict[str, Any]:
    """The search's parameters, checked: a start on the site (its root by default), a query with words
    that are not all stop words, a known algorithm and a budget of at least one download."""
    start = normalize_url(str(raw.get("start_url") or "").strip() or site.url)
    if start is None:
        raise JobInputError(f"{raw.get('start_url')!r} is not an http(s) URL.")
    root = normalize_url(site.url)
    if root is None or site_key(start) != site_key(root):
        raise JobInputError(f"The start {start} is not on the site {site.url}.")
    query = " ".join(str(raw.get("query") or "").split())
    if not query:
        raise JobInputError("The query is empty: give the words of the page you are after.")
    if not query_terms(query):
        raise JobInputError(
            f"The query {query!r} holds only stop words; add words that say what the page is."
        )
    name = str(raw.get("algorithm") or DEFAULT_ALGORITHM)
    try:
        algorithm = algorithm_named(name)
    except KeyError as exc:
        raise JobInputError(str(exc.args[0])) from None
    if algorithm.needs_graph:
        raise JobInputError(
            f"{algorithm.name} needs the whole graph in advance; it runs on generated sites only."
        )
    budget = raw.get("max_downloads")
    budget = DEFAULT_BUDGET if budget in (None, "") else budget
    try:
        budget = int(budget)
    except (TypeError, ValueError):
        raise JobInputError(f"The download budget {budget!r} is not a whole number.") from None
    if not 1 <= budget <= MAX_BUDGET:
        raise JobInputError(f"The download budget must be between 1 and {MAX_BUDGET}, not {budget}.")
    try:
        threshold = float(raw.get("threshold") or 0.75)
        states = int(raw.get("states") or 100)
    except (TypeError, ValueError, OverflowError):
        raise JobInputError("The threshold must be a number and the states a whole number.") from None
    if not 0 < threshold <= 1:  # nan fails this too
        raise JobInputError(f"The threshold must be in (0, 1], not {threshold}.")
    if not 2 <= states <= MAX_STATES:
        raise JobInputError(f"An automaton needs between 2 and {MAX_STATES:,} states, not {states}.")
    return {
        "start_url": start,
        "query": query,
        "algorithm": algorithm.name,
        "max_downloads": budget,
        "threshold": threshold,
        "states": states,
    }


def findpage_live_settings(site: Site) -> LiveSettings:
    """The site's crawl settings (user agent, limits, allowed networks, delay, robots) for a search."""
    config = crawl_config_for(site=site)
    return LiveSettings(fetch=config.fetch)


def findpage_check_start(*, site: Site, start_url: str) -> None:
    """Fetch the start page once and raise JobInputError when a search cannot begin there (the CLI checks
    before it starts, so that such a start is bad input rather than a failed search)."""
    env = LiveSite(start_url, findpage_live_settings(site))
    try:
        env.open()
    except StartError as exc:
        raise JobInputError(str(exc)) from None
    finally:
        env.close()


def findpage_run(
    *,
    site: Site,
    parameters: dict[str, Any],
    records: list[dict[str, Any]] | None = None,
    on_record: Callable[[LiveSite, int, dict[str, Any]], None] | None = None,
    pause: Callable[[], bool] | None = None,
    on_diverge: Callable[[int], None] | None = None,
    deadline: float | None = None,
    in_flight: RequestInFlight | None = None,
    wait_first: bool = False,
) -> dict[str, Any]:
    """Run the search; the result keeps the path, the guiding link texts and every download.

    Resumable (docs/analysis-jobs.md): `records` are the requests of an earlier, paused run, replayed without
    a request; each new request's record goes to `on_record(env, number, record)` before the search reads it;
    `pause()`, asked before each new request, stops the search with SearchPaused when it returns True.
    `deadline` (time.monotonic): a request is waited for until then; one still running stops the search with
    SearchPaused, its `in_flight` (fetcher open) for the next run in this process to pass as `in_flight` and wait
    for instead of asking again. `wait_first`: wait for the first new request to its end."""
    env = LiveSite(
        parameters["start_url"],
        findpage_live_settings(site),
        max_downloads=parameters["max_downloads"],
        in_flight=in_flight,
    )
    env.replay(records or [])
    env.pause, env.on_diverge = pause, on_diverge
    env.deadline, env.wait_first = deadline, wait_first
    if on_record is not None:
        env.on_record = lambda number, record: on_record(env, number, record)
    running = False
    try:
        env.open()
        result = search(
            env,
            query_terms(parameters["query"]),
            parameters["algorithm"],
            threshold=parameters["threshold"],
            states=parameters["states"],
            rng=random.Random(0),
            query_text=parameters["query"],
            eager_stop=True,
        )
    except SearchPaused as paused:
        running = paused.in_flight is not None  # its fetcher stays open for the next step
        raise
    finally:
        if not running:
            env.close()
    return {
        "found": result.found,
        "downloads": result.downloads,
        "path": [str(node) for node in result.path],
        "link_texts": result.link_texts,
        "algorithm": result.algorithm,
        "exhausted": result.exhausted,
        "candidates": [{"url": str(node), "score": round(score, 3)} for node, score in result.candidates],
        "log": [
            {
                "n": d.number,
                "url": str(d.node),
                "from": d.parent,
                "link_text": d.link_text,
                "score": None if d.score is None else round(d.score, 3),
                "ok": d.ok,
                "note": d.note,
            }
            for d in result.log
        ],
    }


def site_root(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


__all__ = [
    "LIVE_ALGORITHMS",
    "SearchPaused",
    "StartError",
    "findpage_check_start",
    "findpage_parameters",
    "findpage_run",
]
