"""Real test-bed pages for the MWIM tests, fetched once per session."""

from __future__ import annotations

import urllib.request

import pytest

PAGES = [
    "http://127.0.0.1:8101/library/os.html",  # 750 KB, 13,000 words
    "http://127.0.0.1:8101/tutorial/introduction.html",
    "http://127.0.0.1:8102/sql-select.html",
    "http://127.0.0.1:8102/sql-commit.html",  # 5 KB
    "http://127.0.0.1:8103/topics/db/models.html",
    "http://127.0.0.1:8103/",
]


@pytest.fixture(scope="session")
def testbed_pages(testbed) -> list[tuple[str, bytes]]:
    pages = []
    for url in PAGES:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - the local test bed
            pages.append((url, response.read()))
    return pages
