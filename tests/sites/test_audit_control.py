"""Controlling crawls from the command line: stop signals, taking over a stalled crawl, crawl_cancel, --links."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from sites.models import Crawl, Link, Page
from sites.services.crawls import crawl_run, crawl_start, crawl_step
from sites.services.frontier import frontier_claim
from sites.services.sites import site_get_or_create
from tests.sites.factories import make_crawl, make_page
from tests.sites.sitebuilder import html, serve_site

REPO = Path(__file__).resolve().parents[2]


def chain_site(httpserver, length: int) -> str:
    """Pages 0 … length-1, each linking to the next and to a page that is gone."""
    pages = {"/": html("Page 0", "/p1", "/gone")}
    pages.update({f"/p{i}": html(f"Page {i}", f"/p{i + 1}", "/gone") for i in range(1, length)})
    return serve_site(httpserver, pages, robots="")


@pytest.mark.django_db
def test_links_all_broken_or_none_choose_the_links_of_the_report(httpserver, tmp_path):
    root = chain_site(httpserver, 3)
    reports = {}
    for choice in ("all", "broken", "none"):
        target = tmp_path / f"{choice}.json"
        call_command("audit", root, "--links", choice, "--json", str(target), "--quiet")
        reports[choice] = json.loads(target.read_text())
    every = reports["all"]["links"]
    assert len(every) == 6 and {link["target"] for link in every} == {
        root + "p1",
        root + "p2",
        root + "p3",
        root + "gone",
    }
    assert reports["broken"]["links"] == [link for link in every if link["broken"]]
    assert {link["target"] for link in reports["broken"]["links"]} == {root + "gone", root + "p3"}
    assert reports["none"]["links"] == []
    # The pages are the same whatever the links, and the report says which links it holds.
    pages = [[page["url"] for page in report["pages"]] for report in reports.values()]
    assert pages[0] == pages[1] == pages[2] and len(pages[0]) == 5
    assert [report["crawl"]["links"] for report in reports.values()] == ["all", "broken", "none"]


@pytest.mark.django_db
def test_an_unknown_links_choice_is_refused():
    with pytest.raises(CommandError, match="invalid choice: 'some'"):
        call_command("audit", "http://example.com/", "--links", "some")
    assert not Crawl.objects.exists()


@pytest.mark.django_db
def test_the_json_download_offers_the_same_choice_of_links(signed_in, owner):
    crawl = make_crawl(site=None, status=Crawl.Status.FINISHED)
    crawl.site.owner = owner
    crawl.site.save()
    home = make_page(crawl, url="https://example.com/", verdict="ok")
    dead = make_page(crawl, url="https://example.com/dead", status_code=404, verdict="dead")
    Link.objects.create(crawl=crawl, source=home, target=dead, target_url=dead.url)
    Link.objects.create(crawl=crawl, source=dead, target=home, target_url=home.url)
    url = f"/sites/crawls/{crawl.pk}/report.json"

    def links(query: str) -> list[str]:
        response = signed_in.get(url + query)
        assert response.status_code == 200
        return [link["target"] for link in json.loads(b"".join(response.streaming_content))["links"]]

    assert links("") == [dead.url, home.url]
    assert links("?links=broken") == [dead.url]
    assert links("?links=none") == []
    refused = signed_in.get(url + "?links=everything")
    assert refused.status_code == 400 and b"links must be one of all, broken, none" in refused.content


@pytest.mark.django_db
def test_crawl_cancel_stops_a_running_crawl_and_says_so(capsys):
    running = make_crawl(status=Crawl.Status.RUNNING)
    call_command("crawl_cancel", str(running.pk))
    running.refresh_from_db()
    assert running.status == Crawl.Status.CANCELLED and running.finished_at is not None
    assert f"Crawl {running.pk} of {running.site.url} cancelled (0 pages done)." in capsys.readouterr().out


@pytest.mark.django_db
def test_crawl_cancel_counts_one_page_in_the_singular(capsys):
    running = make_crawl(status=Crawl.Status.RUNNING)
    make_page(running)
    call_command("crawl_cancel", str(running.pk))
    assert "cancelled (1 page done)." in capsys.readouterr().out


@pytest.mark.django_db
def test_crawl_cancel_reports_crawls_it_cannot_cancel_and_cancels_the_others():
    ended = make_crawl(status=Crawl.Status.FINISHED)
    running = make_crawl(status=Crawl.Status.RUNNING)
    with pytest.raises(
        CommandError, match=rf"No crawl 999999\. Crawl {ended.pk} .* had already ended \(finished\)"
    ):
        call_command("crawl_cancel", "999999", str(ended.pk), str(running.pk))
    assert Crawl.objects.get(pk=running.pk).status == Crawl.Status.CANCELLED
    assert Crawl.objects.get(pk=ended.pk).status == Crawl.Status.FINISHED


@pytest.mark.django_db
def test_crawl_cancel_refuses_what_is_not_a_crawl_number():
    with pytest.raises(CommandError, match="'seven' is not a crawl number") as refused:
        call_command("crawl_cancel", "seven")
    assert refused.value.returncode == 2


@pytest.mark.django_db
def test_the_next_audit_takes_over_a_crawl_left_running_and_fetches_every_page_once(
    httpserver, tmp_path, settings, django_user_model, capsys
):
    root = chain_site(httpserver, 12)
    owner = django_user_model.objects.create(username="auditor")
    site, _ = site_get_or_create(owner=owner, url=root)
    expected = set(
        Page.objects.filter(crawl=crawl_run(crawl=crawl_start(site=site, enqueue=False))).values_list(
            "url", flat=True
        )
    )
    # An audit that was killed: some pages done, a batch claimed and never written, no progress since.
    stalled = crawl_start(site=site, enqueue=False, concurrency=1)
    crawl_step(crawl_id=stalled.pk, budget_seconds=0.000001)  # one batch, then no time left: pages stay
    _, lost_batch = frontier_claim(crawl=stalled, size=2, lease_seconds=settings.WEBAUDIT_CRAWL_LEASE_SECONDS)
    assert lost_batch, "the stalled crawl should have pages left to claim"
    long_ago = timezone.now() - timedelta(seconds=settings.WEBAUDIT_CRAWL_LEASE_SECONDS + 1)
    Crawl.objects.filter(pk=stalled.pk).update(heartbeat_at=long_ago)
    Page.objects.filter(crawl=stalled, state="claimed").update(claimed_at=long_ago)
    requests_before = len(httpserver.log)

    call_command("audit", root, "--user", "auditor", "--json", str(tmp_path / "r.json"))

    said = capsys.readouterr().err
    assert (
        f"Crawl {stalled.pk} of {root} was left running with no progress" in said and "taking it over" in said
    )
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["crawl"]["id"] == stalled.pk and report["crawl"]["status"] == "finished"
    urls = [page["url"] for page in report["pages"]]
    assert sorted(urls) == sorted(expected)  # every page, each once
    fetched = [request.path for request, _ in httpserver.log[requests_before:]]
    assert len(fetched) == len(set(fetched))  # and nothing done before was fetched again
    assert Crawl.objects.filter(site=site).count() == 2


@pytest.mark.django_db
def test_an_audit_does_not_take_over_a_crawl_that_is_making_progress(httpserver, django_user_model):
    root = chain_site(httpserver, 2)
    site, _ = site_get_or_create(owner=django_user_model.objects.create(username="busy"), url=root)
    running = crawl_start(site=site, enqueue=False)
    Crawl.objects.filter(pk=running.pk).update(status=Crawl.Status.RUNNING, heartbeat_at=timezone.now())
    with pytest.raises(CommandError, match=f"Crawl #{running.pk} of this site is still running"):
        call_command("audit", root, "--user", "busy", "--quiet")


def _pages_done(database: Path) -> int:
    try:
        with sqlite3.connect(database, timeout=5) as db:
            return db.execute("SELECT count(*) FROM sites_page WHERE state = 'done'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # not migrated yet


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_cancels_the_audit_like_ctrl_c_and_writes_the_partial_report(
    httpserver, tmp_path, stop
):
    root = chain_site(httpserver, 400)
    database = tmp_path / "db.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webaudit.settings",
        "WEBAUDIT_VAR_DIR": str(tmp_path),
        "WEBAUDIT_ALLOWED_NETWORKS": "127.0.0.0/8",
        "DATABASE_URL": f"sqlite:///{database}",
        "WEBAUDIT_PAGE_READERS": "0",
    }
    env.pop("CELERY_BROKER_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
    report = tmp_path / "report.json"
    audit = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "audit",
            root,
            "--delay",
            "0.05",
            "--max-pages",
            "1000",
            "--json",
            str(report),
        ],
        cwd=REPO,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while _pages_done(database) < 5:
        assert audit.poll() is None and time.monotonic() < deadline, "the audit did not get going"
        time.sleep(0.2)
    audit.send_signal(stop)
    _, stderr = audit.communicate(timeout=60)

    assert audit.returncode == 0, stderr
    assert f"Stopped by {stop.name}: crawl cancelled; writing what was found." in stderr
    written = json.loads(report.read_text())
    assert written["crawl"]["status"] == "cancelled"
    assert 5 <= len([page for page in written["pages"] if page["fetched"]]) < 400
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT status FROM sites_crawl").fetchall() == [("cancelled",)]
