"""What the outage tests share: waiting with a deadline, and comparing a crawl that lived through an outage with
an uninterrupted one."""

from __future__ import annotations

import os
import time

# The bound: a crawl goes on within 60 s of the service's return.
RESUME_WITHIN_SECONDS = 60
# The tests run with a 15-s lease and a 2-s resume check, so a lost step is found within 17 s and the suite
# does not wait out production's 40 s twice a test; a live step renews its lease every 3.75 s, and the 7-s
# database outage stays shorter than the lease. docs/operations.md's figures were measured with production's
# 30 s and 10 s: WEBAUDIT_TEST_PRODUCTION_LEASE=1 runs the tests so.
if os.environ.get("WEBAUDIT_TEST_PRODUCTION_LEASE"):
    LEASE_SECONDS, RESUME_CHECK_SECONDS = 30, 10
else:
    LEASE_SECONDS, RESUME_CHECK_SECONDS = 15, 2
# A lost step is found at most lease + check after the last sign of life; 20 s for a worker starting on a
# loaded machine and its first batch. With production's settings that is the 60 s.
RESUMED_WITHIN = min(RESUME_WITHIN_SECONDS, LEASE_SECONDS + RESUME_CHECK_SECONDS + 20)
LEASE_ENV = {
    "WEBAUDIT_CRAWL_LEASE_SECONDS": str(LEASE_SECONDS),
    "WEBAUDIT_RESUME_CHECK_SECONDS": str(RESUME_CHECK_SECONDS),
}


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
