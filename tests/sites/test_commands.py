"""The management commands: audit (JSON report for pipelines), ensure_admin, and serve's worker on the file broker."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from sites.management.commands.serve import celery_worker_command
from sites.models import Crawl, Site
from tests.sites.sitebuilder import html, serve_site

REPO = Path(__file__).resolve().parents[2]


def never_migrated_env(tmp_path: Path) -> dict[str, str]:
    """The environment of `manage.py` run as a user runs it, on a SQLite file of its own nobody has migrated."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webaudit.settings",
        "WEBAUDIT_VAR_DIR": str(tmp_path),
        "WEBAUDIT_ALLOWED_NETWORKS": "127.0.0.0/8",
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
    }


def command_line_env(tmp_path: Path) -> dict[str, str]:
    """The environment of `manage.py` run as a user runs it, on a migrated SQLite database of its own."""
    env = never_migrated_env(tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
    return env


def manage(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess:
    """`manage.py ARGUMENTS` in its own process, its output captured."""
    return subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.django_db
def test_audit_registers_the_site_and_writes_the_report(httpserver, tmp_path):
    root = serve_site(httpserver, {"/": html("Home", "/a", "/gone"), "/a": html("A", "/")}, robots="")
    httpserver.expect_request("/redirect").respond_with_data("", status=301, headers={"Location": "/a"})
    report_file = tmp_path / "report.json"
    call_command("audit", root, "--max-pages", "10", "--json", str(report_file), "--quiet")

    report = json.loads(report_file.read_text())
    assert set(report) == {"site", "crawl", "pages", "links"}
    assert report["site"]["url"] == root and Site.objects.get(pk=report["site"]["id"]).url == root
    assert report["crawl"]["status"] == "finished"
    pages = {page["url"]: page for page in report["pages"]}
    assert {"url", "status", "final_url", "redirects", "title", "depth", "error"} <= set(pages[root])
    assert pages[root]["title"] == "Home" and pages[root + "gone"]["status"] == 404
    gone = next(link for link in report["links"] if link["target"] == root + "gone")
    assert (gone["source"], gone["text"], gone["internal"], gone["status"]) == (
        root,
        "link to /gone",
        True,
        404,
    )
    assert {"source", "target", "text", "internal", "status", "error"} <= set(gone)


@pytest.mark.django_db
def test_audit_reuses_the_registered_site(httpserver, tmp_path):
    root = serve_site(httpserver, {"/": html("Home")})
    call_command("audit", root, "--quiet")
    call_command("audit", root, "--quiet")
    assert Site.objects.filter(url=root).count() == 1
    assert Crawl.objects.filter(site__url=root).count() == 2


@pytest.mark.django_db
def test_audit_of_an_unreachable_site_fails_with_the_reason_and_still_writes_the_report(
    closed_port, tmp_path
):
    report_file = tmp_path / "report.json"
    with pytest.raises(CommandError, match="could not be fetched"):
        call_command("audit", f"http://127.0.0.1:{closed_port}/", "--json", str(report_file), "--quiet")
    report = json.loads(report_file.read_text())
    assert report["crawl"]["status"] == "failed" and report["pages"][0]["error"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["not a url"], "not an http"),
        (["ftp://example.com/"], "not an http"),
        (["http://example.com/", "--max-pages", "0"], "--max-pages: must be between 1 and 10,000,000"),
        (["http://example.com/", "--delay", "-1"], "--delay: must be between 0 and 60"),
        (["http://example.com/", "--delay", "nan"], "--delay: must be a finite number"),
        (["http://example.com/", "--delay", "inf"], "--delay: must be a finite number"),
        (["http://example.com/", "--delay", "1e308"], "--delay: must be between 0 and 60"),
        (["http://example.com/", "--max-pages", "99999999999999999999"], "--max-pages: must be between"),
        (["http://example.com/", "--max-depth", "-1"], "--max-depth: must be between 0 and 10,000"),
        (["http://example.com/", "--concurrency", "33"], "--concurrency: must be between 1 and 32"),
        (["http://example.com/", "--concurrency", "two"], "'two' is not a whole number"),
        (["http://example.com/", "--json", "/nonexistent/x.json"], "/nonexistent is not a writable folder"),
    ],
)
def test_audit_rejects_bad_arguments_with_a_clear_error_and_exit_status_2(arguments, message):
    with pytest.raises(CommandError, match=message) as raised:
        call_command("audit", *arguments, "--quiet")
    assert raised.value.returncode == 2
    assert not Crawl.objects.exists()


def test_audit_json_to_stdout_is_valid_json(httpserver, tmp_path):
    root = serve_site(httpserver, {"/": html("Home")})
    done = manage(command_line_env(tmp_path), "audit", root, "--json", "-")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pages"][0]["title"] == "Home"


@pytest.mark.django_db
def test_ensure_admin_creates_a_superuser_once_and_says_where_its_password_is(settings, tmp_path, capsys):
    settings.VAR_DIR = tmp_path
    call_command("ensure_admin")
    first = capsys.readouterr().out
    password = (tmp_path / "admin-password.txt").read_text().strip()
    assert "admin-password.txt" in first and password in first
    from django.contrib.auth import authenticate

    assert authenticate(username="admin", password=password).is_superuser
    call_command("ensure_admin")
    assert "exists" in capsys.readouterr().out
    assert (tmp_path / "admin-password.txt").read_text().strip() == password


@pytest.mark.worker
def test_the_embedded_default_runs_a_crawl_on_a_real_worker_with_the_file_broker(httpserver, tmp_path):
    """What `scripts/run` starts: SQLite and kombu's filesystem transport, no server at all."""
    root = serve_site(httpserver, {"/": html("Home", "/a"), "/a": html("A")})
    env = {
        key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "CELERY_BROKER_URL")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="webaudit.settings",
        WEBAUDIT_VAR_DIR=str(tmp_path),
        WEBAUDIT_ALLOWED_NETWORKS="127.0.0.0/8",
    )
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
    worker = subprocess.Popen(
        celery_worker_command(concurrency=1, loglevel="WARNING"),
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        done = subprocess.run(
            [*manage, "audit", root, "--worker", "--json", str(tmp_path / "r.json")],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["crawl"]["status"] == "finished" and len(report["pages"]) == 2


def _processes_in_group(group: int) -> list[str]:
    """The command lines of the processes still in process group `group`."""
    found = subprocess.run(["pgrep", "-a", "-g", str(group)], capture_output=True, text=True).stdout
    return found.splitlines()


@pytest.mark.worker
def test_serve_runs_the_web_server_and_a_worker_and_ctrl_c_stops_both(tmp_path, closed_port):
    import signal
    import urllib.request

    env = {
        key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "CELERY_BROKER_URL")
    }
    env.update(DJANGO_SETTINGS_MODULE="webaudit.settings", WEBAUDIT_VAR_DIR=str(tmp_path))
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
    # No collectstatic: serve collects the static files itself (without them every page answered 500).
    # Its output goes to a file, not a pipe: a pipe's reader waits for every process that inherited it (the
    # worker's pool processes and page readers too), which says nothing about serve itself.
    log = tmp_path / "serve.log"
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(closed_port)],
        cwd=REPO,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline and status is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{closed_port}/login/", timeout=2) as response:
                    status = response.status
                    page = response.read().decode()
            except OSError:
                time.sleep(0.5)
        assert status == 200
        stylesheet = re.search(r'href="(/static/[^"]+\.css)"', page)
        assert stylesheet, page[:500]
        with urllib.request.urlopen(f"http://127.0.0.1:{closed_port}{stylesheet[1]}", timeout=5) as response:
            assert response.status == 200
        children = subprocess.run(
            ["pgrep", "-P", str(serve.pid)], capture_output=True, text=True
        ).stdout.split()
        assert len(children) == 2  # gunicorn and the celery worker
        os.killpg(serve.pid, signal.SIGINT)  # what Ctrl-C does in a terminal
        # The worker's warm shutdown lets a running task end first; on a loaded machine that took over 60 s once
        # (serve had exited, a pool process still held the output pipe).
        serve.wait(timeout=150)
        # Nothing it started outlives it: not the web server, the worker, its pool processes or page readers.
        deadline = time.monotonic() + 60
        while (left := _processes_in_group(serve.pid)) and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    output = log.read_text()
    assert serve.returncode == 0, output
    assert "Stopped web server and worker." in output
    assert all(not Path(f"/proc/{pid}").exists() for pid in children)
    assert left == [], f"still running a minute after serve ended: {left}"


@pytest.mark.django_db
def test_audits_progress_line_counts_the_sites_own_pages_and_the_external_targets_apart(capsys):
    from sites.management.commands.audit import Progress
    from tests.sites.factories import make_crawl

    crawl = make_crawl(
        status=Crawl.Status.RUNNING,
        pages_done=120,
        pages_queued=40,
        pages_failed=2,
        external_admitted=25,
        external_done=15,
    )
    progress = Progress(enabled=True)  # stderr is no terminal here: a line, not a bar
    progress.update(crawl)
    line = capsys.readouterr().err
    assert "105 site pages done, 30 queued, 2 failed" in line  # 120 - 15 external done; 40 - 10 left
    assert "external targets: 15 checked, 10 left" in line


def test_a_reader_that_stops_early_ends_the_command_quietly_with_the_status_of_sigpipe(tmp_path, closed_port):
    """`findpage … --json - | head -1`: the reader closes the pipe before the report is written. The command ends
    as a C tool killed by SIGPIPE does (status 141), not with a BrokenPipeError traceback on the terminal."""
    env = command_line_env(tmp_path)
    command = subprocess.Popen(
        [sys.executable, "manage.py", "check_url", f"http://127.0.0.1:{closed_port}/", "--json", "-"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    command.stdout.close()  # the reader is gone before a byte is written
    errors = command.stderr.read().decode()
    assert command.wait(timeout=120) == 141, errors
    assert "Traceback" not in errors and "BrokenPipeError" not in errors, errors


@pytest.mark.parametrize(
    "arguments",
    [
        ["findpage", "http://127.0.0.1:9/", "--query", "anything"],
        ["audit", "http://127.0.0.1:9/"],
        ["crawl_issues", "1"],
    ],
)
def test_a_command_on_a_database_never_migrated_says_to_migrate_in_one_line(tmp_path, arguments):
    """A new user who skips `migrate` is told what to run, not shown a traceback about a missing table."""
    env = never_migrated_env(tmp_path)
    done = manage(env, *arguments)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "no such table" not in done.stderr, done.stderr
    assert "run `manage.py migrate` first" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_command_that_needs_no_database_runs_where_none_was_set_up(tmp_path):
    """ce_report reads a file and writes a file: the database check does not stand in its way."""
    from mwim.ce import encode
    from tests.mwim.test_ce_limits import image_only

    (tmp_path / "a.ce").write_bytes(encode(image_only()))
    env = never_migrated_env(tmp_path)
    done = manage(env, "ce_report", str(tmp_path / "a.ce"), "-o", str(tmp_path / "a.html"))
    assert done.returncode == 0, done.stderr
    assert "0 tokens" in (tmp_path / "a.html").read_text()
