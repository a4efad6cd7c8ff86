"""What the outage tests share: waiting with a deadline, and comparing a crawl that lived through an outage with
an uninterrupted one."""

from __future__ import annotations

import time


def wait_for(condition, timeout: float, what: str, poll: float = 0.2) -> float:
    """Wait until `condition()`, asking every `poll` seconds; return how long it took."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(poll)
    return time.monotonic() - started


def assert_same_crawl(reference: dict, interrupted: dict, pages: int) -> None:
    """The interrupted crawl's report has the reference's pages, each once and fetched, and its links."""
    assert interrupted["crawl"]["status"] == "finished", interrupted["crawl"]
    urls = [page["url"] for page in interrupted["pages"]]
    assert len(urls) == len(set(urls)), "a page was recorded twice"
    assert set(urls) == {page["url"] for page in reference["pages"]}
    assert all(page["fetched"] for page in interrupted["pages"])
    # Every page's links were written exactly once, those of a batch fetched again included.
    assert len(interrupted["links"]) == len(reference["links"])
    assert interrupted["crawl"]["pages_done"] == reference["crawl"]["pages_done"] == len(urls) == pages
