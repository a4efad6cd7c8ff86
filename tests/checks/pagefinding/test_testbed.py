"""Searches on the test bed's documentation sites: start at the root, the query made of the target page's
own title words, the target found within the download budget."""

from __future__ import annotations

import random
import statistics

import pytest

from checks.pagefinding.algorithms import search
from checks.pagefinding.live import LiveSettings, LiveSite
from checks.pagefinding.text import query_terms
from sites.http import FetchSettings

from .testbed import fetch_title, sample_targets, title_query

pytestmark = pytest.mark.testbed

SETTINGS = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0))


def find(port: int, query: str, budget: int, algorithm: str = "BESTFIRST"):
    env = LiveSite(f"http://127.0.0.1:{port}/", SETTINGS, max_downloads=budget)
    try:
        env.open()
        result = search(env, query_terms(query), algorithm, rng=random.Random(0), query_text=query)
    finally:
        env.close()
    return result, env.final_urls.get(result.found, result.found)


def test_a_module_page_is_found_from_the_python_docs_root(testbed):
    result, found = find(8101, "argparse parser for command-line options", 40)
    assert found == "http://127.0.0.1:8101/library/argparse.html"
    assert result.downloads <= 25  # found within ten; the live site's patience, 15, after it
    assert result.path[0] == "http://127.0.0.1:8101/"


def test_sampled_pages_of_three_documentation_sites_are_found_within_the_budget(testbed):
    outcomes = []
    for port in (8101, 8102, 8103):
        home = fetch_title(f"http://127.0.0.1:{port}/")
        for url in sample_targets(port, 5, seed=7):
            query = title_query(fetch_title(url), home)
            if query_terms(query):
                result, found = find(port, query, 100)
                outcomes.append((found == url, result.downloads))
    accuracy = sum(hit for hit, _ in outcomes) / len(outcomes)
    assert len(outcomes) >= 12
    assert accuracy >= 0.85, outcomes
    assert statistics.median(d for _, d in outcomes) <= 20, outcomes
