"""The findpage job: from the command line and the dashboard, with its log, result and history kept."""

from __future__ import annotations

import io
import json
import socket

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from checks.jobs import JobInputError, job_cancel, job_run, job_start
from checks.models import AnalysisJob
from checks.pagefinding.services import findpage_parameters
from tests.sites.factories import body, make_site, make_user

from .sites import serve_town_hall

pytestmark = pytest.mark.django_db


def findpage(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("findpage", *args, "--quiet", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_prints_the_found_url_the_downloads_and_the_path(httpserver):
    start = serve_town_hall(httpserver)
    out, _ = findpage(start, "--query", "income tax form")
    assert f"found: {httpserver.url_for('/tax-form.html')}" in out
    assert "downloads: 5" in out
    assert f'2. {httpserver.url_for("/tax-form.html")}  (via "income tax form")' in out


def test_the_json_has_exactly_the_issues_shape(httpserver, tmp_path):
    start = serve_town_hall(httpserver)
    target = tmp_path / "found.json"
    findpage(start, "--query", "income tax form", "--algorithm", "ls2f", "--json", str(target))
    report = json.loads(target.read_text())
    assert set(report) == {"found", "downloads", "path", "algorithm", "candidates"}
    assert report["algorithm"] == "LS2F"
    assert report["path"][0] == start
    assert report["downloads"] >= 2
    assert report["candidates"][0]["url"] == report["found"]
    assert all(set(candidate) == {"url", "score"} for candidate in report["candidates"])
    scores = [candidate["score"] for candidate in report["candidates"]]
    assert scores == sorted(scores, reverse=True)


def test_an_exhausted_budget_gives_found_null_not_an_error(httpserver):
    start = serve_town_hall(httpserver)
    out, _ = findpage(start, "--query", "income tax form", "--max-downloads", "3", "--json", "-")
    report = json.loads(out)
    assert {key: report[key] for key in ("found", "downloads", "path", "algorithm")} == {
        "found": None,
        "downloads": 3,
        "path": [],
        "algorithm": "BESTFIRST",
    }
    # What it read is still shown, with its scores, as candidates (none of them the answer).
    assert all(set(candidate) == {"url", "score"} for candidate in report["candidates"])


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--query", ""], "query is empty"),
        (["--query", "the and of"], "only stop words"),
        (["--query", "tax", "--max-downloads", "0"], "at least 1"),
        (["--query", "tax", "--algorithm", "dijkstra"], "unknown algorithm"),
        (["--query", "tax", "--algorithm", "optimal"], "generated sites only"),
    ],
)
def test_bad_arguments_exit_with_status_2(httpserver, arguments, message):
    start = serve_town_hall(httpserver)
    with pytest.raises(CommandError, match=message) as caught:
        findpage(start, *arguments)
    assert caught.value.returncode == 2
    assert not AnalysisJob.objects.exists()


def test_an_unreachable_start_exits_with_status_2():
    with pytest.raises(CommandError, match="could not be reached") as caught:
        findpage(f"http://127.0.0.1:{_closed_port()}/", "--query", "tax")
    assert caught.value.returncode == 2


def test_a_start_redirecting_off_the_site_exits_with_status_2(httpserver):
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/").respond_with_data(
        "", status=301, headers={"Location": "http://127.0.0.2:9/x"}
    )
    with pytest.raises(CommandError, match="redirects off the site") as caught:
        findpage(httpserver.url_for("/"), "--query", "tax")
    assert caught.value.returncode == 2


def test_a_start_on_another_site_is_refused():
    site = make_site(url="https://town.example/")
    with pytest.raises(JobInputError, match="not on the site"):
        findpage_parameters(site, {"query": "tax", "start_url": "https://elsewhere.example/"})


def test_the_start_defaults_to_the_sites_root():
    site = make_site(url="https://town.example/")
    assert findpage_parameters(site, {"query": "tax"})["start_url"] == "https://town.example/"


def test_the_job_keeps_its_log_and_reports_the_frontier_as_progress(httpserver):
    start = serve_town_hall(httpserver)
    site = make_site(url=start)
    seen_notes = []
    job = job_start(kind="findpage", site=site, parameters={"query": "income tax form"}, enqueue=False)
    job = job_run(job=job, on_progress=lambda j: seen_notes.append(j.progress_note))
    assert job.status == AnalysisJob.Status.FINISHED
    assert job.result["found"] == httpserver.url_for("/tax-form.html")
    assert [entry["note"] for entry in job.result["log"]][:2] == ["robots.txt", "HTTP 200"]
    assert job.progress_done == 5 and job.progress_total == 5  # complete: the budget was only a ceiling
    assert job.progress_note == "found the page in 5 of 100 downloads"
    assert job.state["frontier"]  # the best candidates when it ended


def test_a_cancelled_search_stops(httpserver):
    start = serve_town_hall(httpserver)
    site = make_site(url=start)
    job = job_start(kind="findpage", site=site, parameters={"query": "income tax form"}, enqueue=False)
    job_cancel(job=job)
    job = job_run(job=job)
    assert job.status == AnalysisJob.Status.CANCELLED
    assert not job.result


def test_the_site_page_offers_the_form_and_the_result_page_shows_path_log_and_history(client, httpserver):
    start = serve_town_hall(httpserver)
    owner = make_user("olivia")
    site = make_site(owner=owner, url=start)
    client.force_login(owner)
    page = body(client.get(reverse("sites:detail", args=[site.pk])))
    assert "Run find a page" in page and 'name="query"' in page and 'name="max_downloads"' in page
    first = job_start(kind="findpage", site=site, parameters={"query": "parking permit"}, enqueue=False)
    job_run(job=first)
    response = client.post(
        reverse("checks:job-start", args=["findpage", site.pk]),
        {"query": "income tax form", "algorithm": "BESTFIRST", "max_downloads": "20"},
    )
    job = AnalysisJob.objects.exclude(pk=first.pk).get()
    assert response.status_code == 302 and job.parameters["max_downloads"] == 20
    job_run(job=job)
    page = body(client.get(reverse("checks:job", args=[job.pk])))
    assert "Found" in page and httpserver.url_for("/tax-form.html") in page
    assert "via “Services”" in page and "via “income tax form”" in page
    assert "robots.txt" in page  # the download log
    assert "Earlier searches on this site" in page and "parking permit" in page
    report = json.loads(body(client.get(reverse("checks:job-report", args=[job.pk]))))
    assert report["found"] == httpserver.url_for("/tax-form.html")
    # How sure: the answer first among the candidates, each with its score.
    assert report["candidates"][0]["url"] == report["found"]
    shown = page[page.index('id="findpage-candidates"') :]
    assert "How sure" in shown and report["found"] in shown
    assert f"{report['candidates'][0]['score']:.3f}" in shown


@pytest.mark.parametrize(
    ("parameters", "next_step"),
    [
        ({"query": "income tax form", "max_downloads": 2}, "run it again with a larger download budget"),
        ({"query": "lighthouse keeper"}, "Try other words, or start nearer the page."),
    ],
)
def test_a_search_that_finds_nothing_says_what_to_try_next(client, httpserver, parameters, next_step):
    site = make_site(url=serve_town_hall(httpserver))
    job = job_run(job=job_start(kind="findpage", site=site, parameters=parameters, enqueue=False))
    client.force_login(site.owner)
    page = body(client.get(reverse("checks:job", args=[job.pk])))
    assert "Not found" in page and next_step in page


def test_a_stranger_cannot_start_a_search_on_a_site(client, httpserver):
    site = make_site(url=serve_town_hall(httpserver))
    client.force_login(make_user("mallory"))
    response = client.post(reverse("checks:job-start", args=["findpage", site.pk]), {"query": "tax"})
    assert response.status_code == 404
    assert not AnalysisJob.objects.exists()
