"""What the outage tests share: webaudit's environment in a folder of its own, stopping its workers, waiting with
a deadline, and comparing a crawl that lived through an outage with an uninterrupted one (the generated site they
crawl is tests/sites/conftest.py's `generated_site_url`)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Pages of the generated site: enough that an outage after 60 falls in the middle of the crawl.
PAGES = 300

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


def deployment_env(folder: Path, **settings: str) -> dict[str, str]:
    """The environment of manage.py and workers running webaudit in `folder`: none of this test run's own
    settings (WEBAUDIT_*, its database and broker), the local generated site allowed, 5-s steps, one page
    reader and the tests' lease; `settings` on top."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("WEBAUDIT_") and key not in ("DATABASE_URL", "CELERY_BROKER_URL")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="webaudit.settings",
        WEBAUDIT_VAR_DIR=str(folder),
        WEBAUDIT_ALLOWED_NETWORKS="127.0.0.0/8",
        WEBAUDIT_CRAWL_CHECK_EXTERNAL="0",
        WEBAUDIT_CRAWL_STEP_SECONDS="5",
        **LEASE_ENV,
        WEBAUDIT_PAGE_READERS="1",
        **settings,
    )
    return env


def workers_stop(workers: list[subprocess.Popen]) -> None:
    """SIGTERM to each running worker's process group (started with start_new_session), SIGKILL after 30 s."""
    for worker in workers:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()


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
