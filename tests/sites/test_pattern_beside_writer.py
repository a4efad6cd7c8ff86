"""A crawl whose exclude pattern is catastrophic for a backtracking engine ends normally while another
process's audit writes to the same database (issue 18: SQLite, the embedded default, and PostgreSQL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from pytest_httpserver import HTTPServer

from sites.models import Crawl, Page
from sites.services.sites import site_create
from tests.sites.sitebuilder import html, serve_site
from tests.sites.test_worker_resume import database_url

pytestmark = pytest.mark.django_db(transaction=True)

REPO = Path(__file__).resolve().parents[2]
CATASTROPHIC = "(a+)+$"  # Python's re: 2**40 steps against forty a's and a "!"; RE2: one pass
HOSTILE_LINKS = 60
WRITER_PAGES = 250
# A liveness bound, not a speed figure: each audit takes seconds; a frozen one never ends.
BOUND_SECONDS = 60


def hostile_site(server: HTTPServer) -> str:
    """A home page linking to pages whose URLs make `(a+)+$` backtrack, each linking to all the others."""
    paths = [f"/{'a' * 40}!{number}" for number in range(HOSTILE_LINKS)]
    pages = {"/": html("Home", *paths)}
    pages.update({path: html(f"Hostile {number}", *paths) for number, path in enumerate(paths)})
    return serve_site(server, pages, robots="")


def writer_site(server: HTTPServer) -> str:
    """Enough pages, each linking to ten others and to a page that is gone, that its audit writes for a while."""
    links = {
        number: [f"/p{(number * 7 + k) % WRITER_PAGES}" for k in range(1, 11)] + ["/gone"]
        for number in range(WRITER_PAGES)
    }
    pages = {"/": html("Home", *links[0])}
    pages.update({f"/p{number}": html(f"Page {number}", *links[number]) for number in range(WRITER_PAGES)})
    return serve_site(server, pages, robots="")


@pytest.fixture
def second_server():
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


def audit(root: str, report: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "audit", root, "--quiet", "--links", "none", "--json", str(report)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_catastrophic_exclude_pattern_crawl_ends_while_another_process_audit_writes(
    httpserver, second_server, tmp_path
):
    owner = get_user_model().objects.create(username="admin")
    hostile_root = hostile_site(httpserver)
    # The pattern is the site's own setting; the audit command crawls with it.
    site_create(owner=owner, url=hostile_root, exclude_patterns=CATASTROPHIC)
    writer_root = writer_site(second_server)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webaudit.settings",
        "DATABASE_URL": database_url(),
        "WEBAUDIT_VAR_DIR": str(tmp_path),
        "WEBAUDIT_ALLOWED_NETWORKS": "127.0.0.0/8",
        "WEBAUDIT_CRAWL_DELAY": "0",
    }
    env.pop("CELERY_BROKER_URL", None)
    reports = {name: tmp_path / f"{name}.json" for name in ("hostile", "writer")}
    processes = {
        "writer": audit(writer_root, reports["writer"], env),
        "hostile": audit(hostile_root, reports["hostile"], env),
    }
    outcomes = {}
    try:
        for name, process in processes.items():
            outcomes[name] = (*process.communicate(timeout=BOUND_SECONDS), process.returncode)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    for name, (_, stderr, returncode) in outcomes.items():
        assert returncode == 0, f"{name}: {stderr[-3000:]}"
        assert "database is locked" not in stderr and "Traceback" not in stderr, f"{name}: {stderr[-3000:]}"

    hostile = json.loads(reports["hostile"].read_text())
    writer = json.loads(reports["writer"].read_text())
    assert hostile["crawl"]["status"] == writer["crawl"]["status"] == Crawl.Status.FINISHED
    # Nothing was excluded: every hostile URL ends in a digit, which `(a+)+$` never matches.
    hostile_urls = {page["url"] for page in hostile["pages"]}
    assert sum(url.rstrip("0123456789").endswith("a!") for url in hostile_urls) == HOSTILE_LINKS
    assert len({page["url"] for page in writer["pages"]}) == WRITER_PAGES + 2  # the home page and /gone
    assert (
        Page.objects.filter(crawl__site__url=writer_root, state=Page.State.DONE).count() == WRITER_PAGES + 2
    )
    # The two crawls ran side by side: each began before the other ended.
    first, second = Crawl.objects.order_by("started_at")
    assert second.started_at < first.finished_at
