"""A page search keeps to its step budget: stopped between two requests, it goes on in the next step from its
recorded requests, and ends with the result, downloads and requests of a search run in one step."""

from __future__ import annotations

import time

import pytest
from werkzeug.wrappers import Response

from checks.jobs import inflight, job_run, job_start, job_step
from checks.models import AnalysisJob, JobScratch
from checks.pagefinding.services import LIVE_ALGORITHMS
from tests.checks.pagefinding.books import LIGHTHOUSE, robots_and_no_sitemap, serve_book
from tests.checks.pagefinding.sites import HTML, page
from tests.checks.steps import run_in_steps
from tests.sites.factories import make_site

pytestmark = pytest.mark.django_db(transaction=True)

TINY = 0.001  # seconds: one new request a step (the clock is read before each)
WHOLE = 1000.0  # seconds: the whole search in one step
WORDS = "harbour library permit school market garden museum bridge council river tram festival".split()
BRANCHES, DEPTH = 3, 4  # 121 pages


def serve_tree(server, delay: float = 0.0) -> str:
    """A site of nested topic pages, each linking to its three subtopics by name, with a sitemap; the permit
    for repairing the river bridge sits four clicks deep. Every answer takes `delay` seconds."""

    def respond(path: str, body: str, content_type: str) -> None:
        def handler(request):
            time.sleep(delay)
            return Response(body, content_type=content_type)

        server.expect_request(path).respond_with_handler(handler)

    count = sum(BRANCHES**level for level in range(DEPTH + 1))
    names = {0: "Home"}
    for number in range(1, count):
        names[number] = f"{WORDS[number % len(WORDS)]} {WORDS[(number * 5 + 1) % len(WORDS)]} {number}"
    target = count - 1
    names[target] = "River bridge repair permit"
    for number in range(count):
        children = [BRANCHES * number + k for k in range(1, BRANCHES + 1) if BRANCHES * number + k < count]
        links = "".join(f"<li><a href='/p{child}.html'>{names[child]}</a></li>" for child in children)
        body = f"<h1>{names[number]}</h1><p>About {names[number].lower()} in town.</p><ul>{links}</ul>"
        path = "/" if number == 0 else f"/p{number}.html"
        respond(path, page(names[number], body), HTML)
    listed = "".join(f"<url><loc>{server.url_for(f'/p{n}.html')}</loc></url>" for n in range(1, count, 7))
    sitemap = (
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{listed}</urlset>'
    )
    respond("/sitemap.xml", sitemap, "application/xml")
    respond("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    server.no_handler_status_code = 404
    return server.url_for("/")


def search_job(site, algorithm: str, query: str) -> AnalysisJob:
    parameters = {"query": query, "algorithm": algorithm, "max_downloads": 40}
    return job_start(kind="findpage", site=site, parameters=parameters, enqueue=False)


def steps_to_end(job: AnalysisJob) -> int:
    steps = 1
    while job_step(job_id=job.pk, budget_seconds=TINY):
        steps += 1
    job.refresh_from_db()
    return steps


def assert_tiny_steps_end_as_one_step(httpserver, site, query: str, found_path: str) -> list[str]:
    """BESTFIRST run whole finds `found_path`; run again in tiny steps (a request or so each), it ends with the
    same result (answer, downloads, path, candidates and the whole log) and asks for nothing twice. Returns the
    paths the whole run asked for."""
    whole = job_run(job=search_job(site, "BESTFIRST", query), step_seconds=WHOLE)
    assert whole.result["found"] == httpserver.url_for(found_path)
    asked_whole = [request.path for request, _ in httpserver.log]
    httpserver.clear_log()

    stepped = search_job(site, "BESTFIRST", query)
    steps = steps_to_end(stepped)
    assert stepped.status == AnalysisJob.Status.FINISHED, stepped.error
    assert stepped.result == whole.result
    assert steps >= 5 and len(httpserver.log) == len(asked_whole)
    return asked_whole


@pytest.mark.parametrize("algorithm", LIVE_ALGORITHMS)
@pytest.mark.parametrize("query", ["bridge repair permit", "quokka xylophone"])
def test_a_search_in_tiny_steps_ends_with_the_result_and_the_requests_of_one_step(
    httpserver, algorithm, query
):
    site = make_site(url=serve_tree(httpserver))
    whole = job_run(job=search_job(site, algorithm, query), step_seconds=WHOLE)
    requests_whole = len(httpserver.log)
    httpserver.clear_log()

    stepped = search_job(site, algorithm, query)
    steps = steps_to_end(stepped)
    assert stepped.status == whole.status == AnalysisJob.Status.FINISHED, stepped.error
    assert stepped.result == whole.result  # answer, downloads, path, candidates and the whole log
    assert steps >= min(whole.result["downloads"], 5)  # a request a step: it did stop and go on
    assert len(httpserver.log) == requests_whole  # no page fetched twice across the steps
    assert not JobScratch.objects.filter(job=stepped).exists()  # the records go with the job's end


def test_a_search_step_redone_after_a_lost_lease_ends_with_the_same_result(httpserver):
    site = make_site(url=serve_tree(httpserver))
    whole = job_run(job=search_job(site, "BESTFIRST", "bridge repair permit"), step_seconds=WHOLE)
    redone = search_job(site, "BESTFIRST", "bridge repair permit")
    while True:
        cursor = AnalysisJob.objects.get(pk=redone.pk).state
        records = list(JobScratch.objects.filter(job=redone).values_list("name", "data"))
        if not job_step(job_id=redone.pk, budget_seconds=TINY):
            break
        # The step's work is lost and done again from what was saved before it: its record is written anew. Its
        # process is gone with what it left running (checks/jobs/inflight.py): the step redone asks again.
        lost = inflight.take(redone.pk, "findpage")
        if lost is not None:
            lost.close()
        AnalysisJob.objects.filter(pk=redone.pk).update(state=cursor)
        JobScratch.objects.filter(job=redone).delete()
        JobScratch.objects.bulk_create(JobScratch(job=redone, name=name, data=data) for name, data in records)
        if not job_step(job_id=redone.pk, budget_seconds=TINY):
            # The lost step had left the last request running; the step redone asked again and waited for it
            # to its end (it had no outcome to collect), so it ended the search.
            break
    redone.refresh_from_db()
    assert redone.result == whole.result


@pytest.mark.parametrize("same_process", [True, False], ids=["next-step-here", "next-step-elsewhere"])
def test_a_step_stops_waiting_for_a_slow_site_at_its_deadline_and_the_search_ends_as_in_one_step(
    httpserver, same_process
):
    """Every answer takes 0.45 s, the steps 0.2 s: a step that waited for its request would last 0.45 s and
    more. A step waits for its request only until its deadline; the request goes on, and the job's next step in
    this process waits for it (no request twice), so every step ends within twice its budget. A next step in
    another process asks again and waits for it to its end. Either way the search ends with the answer,
    candidates, downloads and log of a search run in one step."""
    budget, slow = 0.2, 0.45
    site = make_site(url=serve_tree(httpserver, delay=slow))
    query = "garden permit"  # found two clicks deep, in about 20 downloads
    whole = job_run(job=search_job(site, "BESTFIRST", query), step_seconds=WHOLE)
    requests_whole = len(httpserver.log)
    httpserver.clear_log()

    stepped = search_job(site, "BESTFIRST", query)

    def as_another_process() -> None:  # the next step runs in another worker process: nothing is carried over
        left = inflight.take(stepped.pk, "findpage")
        if left is not None:
            left.close()

    run = run_in_steps(
        stepped.pk, budget, max_steps=500, between_steps=None if same_process else as_another_process
    )
    steps, longest = run.steps, run.longest
    stepped.refresh_from_db()
    assert stepped.status == whole.status == AnalysisJob.Status.FINISHED, stepped.error
    assert whole.result["found"] and whole.result["downloads"] >= 3
    assert stepped.result == whole.result  # answer, downloads, path, candidates and the whole log
    assert steps > whole.result["downloads"]  # requests outlived their steps
    if same_process:
        assert longest < 2 * budget, longest
        assert len(httpserver.log) == requests_whole  # each request made once: the next step waited for it
    else:
        # Asked again by the next step, which waits for it to its end: such a step lasts up to its budget plus
        # the request's time. The downloads counted are the search's own, each once.
        assert len(httpserver.log) > requests_whole
    assert inflight.take(stepped.pk, "findpage") is None  # nothing left running once the search ended


def test_a_search_that_reads_books_indexes_in_tiny_steps_ends_as_in_one_step(httpserver):
    """The indexes a page names (mdBook's) are requests like any other: recorded, replayed, never asked twice."""
    httpserver.expect_request("/").respond_with_data(
        page("Docs", "<a href='/first/'>The First Book</a><a href='/second/'>The Second Book</a>"),
        content_type=HTML,
    )
    serve_book(httpserver, "/first/", {})
    serve_book(httpserver, "/second/", {7: LIGHTHOUSE})
    robots_and_no_sitemap(httpserver)
    site = make_site(url=httpserver.url_for("/"))
    assert_tiny_steps_end_as_one_step(httpserver, site, "lighthouse keeper lantern", "/second/chapter7.html")


def test_a_search_that_reads_a_symbol_index_in_tiny_steps_ends_as_in_one_step(httpserver, monkeypatch):
    """The symbol index the start page names (Javadoc's script.js, then its index files) is one recorded
    request: the start page's record says where it is, and a replayed search reads it again from the records."""
    from dataclasses import replace

    from checks.pagefinding import services
    from tests.checks.pagefinding.test_symbol_index import serve_javadoc

    settings_of = services.findpage_live_settings
    monkeypatch.setattr(
        services, "findpage_live_settings", lambda site: replace(settings_of(site), use_symbol_index=True)
    )
    serve_javadoc(httpserver)
    site = make_site(url=httpserver.url_for("/api/index.html"))
    query = "lightbeacon trimwick"
    asked = assert_tiny_steps_end_as_one_step(httpserver, site, query, "/api/org/sea/Lantern7.html")
    assert "/api/member-search-index.js" in asked


def test_a_search_that_reads_twins_before_answering_in_tiny_steps_ends_as_in_one_step(httpserver):
    """The twins read after the search stopped are requests like any other: replayed in the next step as twin
    reads (the search stops where it stopped), not as the next links of a search that goes on."""
    from tests.checks.pagefinding.test_twins import QUERY, serve_widget_site

    serve_widget_site(httpserver)
    site = make_site(url=httpserver.url_for("/"))
    assert_tiny_steps_end_as_one_step(httpserver, site, QUERY, "/_modules/widget.html")


def test_a_search_sure_of_a_page_that_is_no_answer_reads_its_twins_in_tiny_steps_as_in_one_step(httpserver):
    """Twins read while the search goes on (its best page no answer) are loop choices: replayed as recorded."""
    from tests.checks.pagefinding.test_stopping import QUERY, serve_spindle_site_with_a_twin

    serve_spindle_site_with_a_twin(httpserver)
    site = make_site(url=httpserver.url_for("/"))
    assert_tiny_steps_end_as_one_step(httpserver, site, QUERY, "/item7-parts.html")
