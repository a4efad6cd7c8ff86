"""Targets and queries on the test bed: a target page's title, less the words of the site's home title."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import urllib.request

from checks.pagefinding.htmlpage import read_page
from checks.pagefinding.text import query_terms
from sites.crawler.parse import parse_document
from tests.conftest import TESTBED


def fetch_title(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:  # test bed only, on loopback
        root, _ = parse_document(response.read())
    return read_page(root, url=url).title if root is not None else ""


def title_query(title: str, home_title: str, words: int = 6) -> str:
    """What an auditor would type: the page's own title words, without the site-wide ones."""
    common = set(query_terms(home_title))
    kept = [w for w in title.replace("—", " ").replace("|", " ").split() if not set(query_terms(w)) <= common]
    return " ".join(kept[:words])


def sample_targets(port: int, count: int, seed: int = 1) -> list[str]:
    """`count` real pages of the site, from the test bed's ground truth (truth.py)."""
    output = subprocess.run(
        [sys.executable, str(TESTBED / "truth.py"), "--n", "200"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    # The general index's letter pages (genindex-A … genindex-Z) all have the title "Index": no query made
    # of a page's title can tell one from another, so they are not targets.
    pages = [
        u["url"]
        for u in json.loads(output)["urls"]
        if u["port"] == port
        and u["kind"] == "page"
        and u["verdict"] == "ok"
        and not u["url"].endswith("/")
        and "/genindex-" not in u["url"]
    ]
    return random.Random(seed).sample(pages, min(count, len(pages)))
