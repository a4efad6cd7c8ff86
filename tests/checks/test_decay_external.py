"""Decay over two real sites: the audited one links to another whose pages rot. Its pages are read to the depth
asked, and the exact method, the walks and the job agree with an absorbing chain solved here independently."""

from __future__ import annotations

import numpy as np
import pytest
from pytest_httpserver import HTTPServer

from checks.decay.services import decay_exact, decay_walk
from checks.jobs import job_run, job_start
from checks.models import AnalysisJob, DecayScore
from tests.checks.steps import run_in_steps

pytestmark = pytest.mark.django_db
SIGMA = 0.1


def html(*links: str) -> str:
    anchors = "".join(
        f'<p><a href="{link}">link {i}</a> to somewhere worth reading</p>' for i, link in enumerate(links)
    )
    return f"<html><head><title>A page</title></head><body><h1>A page of text</h1>{anchors}</body></html>"


def _another_site(*, threaded: bool = False):
    """A local site on a port of its own that answers 404 for anything it was not told to serve."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=threaded)
    server.no_handler_status_code = 404
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


@pytest.fixture
def other_site():
    yield from _another_site()


@pytest.fixture
def two_sites(httpserver, other_site, crawl_site):
    """Site A (audited): / → a.html, B/x.html; a.html → /, gone.html (404).
    Site B: x.html → y.html, z.html (404), w.html, A/; w.html → v.html (404), A/a.html.
    A's own links are all alive from / (F = 0), yet / decays through B."""
    httpserver.no_handler_status_code = 404
    a, b = httpserver.url_for("/"), other_site.url_for("/")
    httpserver.expect_request("/").respond_with_data(html("a.html", b + "x.html"), content_type="text/html")
    httpserver.expect_request("/a.html").respond_with_data(html("/", "gone.html"), content_type="text/html")
    other_site.expect_request("/x.html").respond_with_data(
        html("y.html", "z.html", "w.html", a), content_type="text/html"
    )
    other_site.expect_request("/w.html").respond_with_data(
        html("v.html", a + "a.html"), content_type="text/html"
    )
    crawl = crawl_site(a, site_settings={"check_external": True}, concurrency=2)
    return crawl, a, b


def independent_decay(live: list[str], links: dict[str, list[str]], dead: set[str], sigma: float) -> dict:
    """Decay of the live pages, solved densely from the definition: D = (1 − σ)(D + Σ M D)/(deg + 1) on M + I,
    dead pages 1, any other target (alive, links unknown) the mean decay of the live pages."""
    n = len(live)
    index = {url: i for i, url in enumerate(live)}
    A, b = np.zeros((n, n)), np.zeros(n)
    for url in live:
        i = index[url]
        A[i, i] += len(links[url]) + 1 - (1 - sigma)
        for target in links[url]:
            if target in index:
                A[i, index[target]] -= 1 - sigma
            elif target in dead:
                b[i] += 1 - sigma
            else:
                A[i, :] -= (1 - sigma) / n
    return dict(zip(live, np.linalg.solve(A, b), strict=True))


def absorbing_chain_decay(live: list[str], links: dict[str, list[str]], dead: set[str], sigma: float) -> dict:
    """The paper's Markov chain: M + I row-normalised, × (1 − σ), σ to success, dead pages to failure; decay is
    the probability of absorption in failure, B = (I − Q)⁻¹ R."""
    n = len(live)
    index = {url: i for i, url in enumerate(live)}
    Q, R = np.zeros((n, n)), np.zeros(n)
    for url in live:
        i = index[url]
        weight = (1 - sigma) / (len(links[url]) + 1)
        Q[i, i] += weight
        for target in links[url]:
            if target in dead:
                R[i] += weight
            else:
                Q[i, index[target]] += weight
    return dict(zip(live, np.linalg.solve(np.eye(n) - Q, R), strict=True))


def chain_of(a: str, b: str):
    links = {
        a: [a + "a.html", b + "x.html"],
        a + "a.html": [a, a + "gone.html"],
        b + "x.html": [b + "y.html", b + "z.html", b + "w.html", a],
        b + "w.html": [b + "v.html", a + "a.html"],
    }
    dead = {a + "gone.html", b + "y.html", b + "z.html", b + "v.html"}
    return links, dead


def scores(result) -> dict[str, float]:
    return {page.url: page.decay[SIGMA] for page in result.pages}


def test_depth_two_reads_both_pages_of_the_other_site_and_matches_the_papers_absorbing_chain(two_sites):
    crawl, a, b = two_sites
    links, dead = chain_of(a, b)
    truth = absorbing_chain_decay([a, a + "a.html", b + "x.html", b + "w.html"], links, dead, SIGMA)
    result = decay_exact(crawl=crawl, sigmas=[SIGMA], external_depth=2)
    found = scores(result)
    assert found[a] == pytest.approx(truth[a], abs=1e-3)
    assert found[a + "a.html"] == pytest.approx(truth[a + "a.html"], abs=1e-3)
    assert found[a + "gone.html"] == 1.0
    assert set(found) == {a, a + "a.html", a + "gone.html"}  # the other site's pages are read, not scored
    assert result.external["external_pages_read"] == 2 and result.external["beyond_depth"] == 0
    # The paper's central case: every link of / is alive (F = 0), yet it decays through the other site.
    home = next(page for page in result.pages if page.url == a)
    assert home.dead_link_fraction == 0.0 and home.decay[SIGMA] > 0.2


def test_depth_one_reads_the_linked_page_checks_its_links_and_counts_what_lies_beyond(two_sites):
    crawl, a, b = two_sites
    links, dead = chain_of(a, b)
    del links[b + "w.html"]  # alive, beyond the depth: open, the mean decay of the live pages
    truth = independent_decay([a, a + "a.html", b + "x.html"], links, dead, SIGMA)
    result = decay_exact(crawl=crawl, sigmas=[SIGMA], external_depth=1)
    found = scores(result)
    assert found[a] == pytest.approx(truth[a], abs=1e-3)
    assert found[a + "a.html"] == pytest.approx(truth[a + "a.html"], abs=1e-3)
    assert result.external["beyond_depth"] == 1 and result.external["external_pages_read"] == 1
    # Depth 0 is the crawl's judgement alone: x.html is alive with unknown links, so / decays less.
    shallow = scores(decay_exact(crawl=crawl, sigmas=[SIGMA], external_depth=0))
    assert shallow[a] < found[a] - 0.05


def test_walks_over_the_other_site_agree_with_the_exact_solve_and_fetch_nothing_the_run_read(two_sites):
    crawl, a, _ = two_sites
    exact = scores(decay_exact(crawl=crawl, sigmas=[SIGMA], external_depth=2))
    walked = decay_walk(crawl=crawl, sigmas=[SIGMA], walks=4000, seed=3, external_depth=2)
    for page in walked.pages:
        # 2× the 95% bound: by Hoeffding a miss has probability under 1e-4.
        assert abs(page.decay[SIGMA] - exact[page.url]) <= 2 * page.error_bound, page.url
    # Reading the other site costs its two pages, their links' checks and robots.txt: the walks fetch nothing.
    assert walked.fetches <= 10


def test_the_fetch_cap_leaves_the_other_site_as_the_crawl_judged_it_and_says_so(two_sites):
    crawl, a, _ = two_sites
    capped = decay_exact(crawl=crawl, sigmas=[SIGMA], external_depth=1, max_fetches=0)
    assert capped.external["over_cap"] >= 1 and capped.external["external_pages_read"] == 0
    assert scores(capped)[a] == pytest.approx(scores(decay_exact(crawl=crawl, sigmas=[SIGMA]))[a], abs=1e-12)


def test_the_job_reads_the_other_site_by_default_and_reports_it(two_sites):
    crawl, a, b = two_sites
    links, dead = chain_of(a, b)
    del links[b + "w.html"]
    truth = independent_decay([a, a + "a.html", b + "x.html"], links, dead, SIGMA)
    job = job_run(job=job_start(kind="decay", crawl=crawl, parameters={"sigmas": [SIGMA]}, enqueue=False))
    assert job.status == AnalysisJob.Status.FINISHED, job.error
    assert job.parameters["external_depth"] == 1
    assert job.result["external"]["beyond_depth"] == 1
    assert DecayScore.objects.get(job=job, page__url=a).decay == pytest.approx(truth[a], abs=1e-3)


@pytest.fixture
def slow_server():
    """Another site whose pages answer slowly, several at once (a thread a request)."""
    yield from _another_site(threaded=True)


@pytest.mark.parametrize("same_process", [True, False], ids=["next-step-here", "next-step-elsewhere"])
def test_a_step_stops_waiting_for_slow_hosts_at_its_deadline_and_the_verdicts_are_those_of_one_step(
    httpserver, other_site, slow_server, crawl_site, same_process
):
    """Other sites answer in 1.2 s, one not before the 2-s fetch timeout; steps of 0.5 s. Each step returns at its
    deadline, the fetches it left running are waited for by the next step in this process (asked again only when
    the next step runs elsewhere), and the job ends with the scores, visits and result of a run in one step:
    the timeout is a timeout (dead), never a verdict made at a deadline."""
    import time as clock

    from werkzeug.wrappers import Response

    from checks.jobs import inflight, job_step
    from checks.models import DecayVisit

    budget, slow = 0.5, 1.2
    seen: dict[str, int] = {}

    def answer(body: str, status: int = 200, delay: float = slow):
        def handler(request):
            seen[request.path] = seen.get(request.path, 0) + 1
            clock.sleep(delay)
            return Response(body, status=status, content_type="text/html")

        return handler

    a, b, c = httpserver.url_for("/"), other_site.url_for("/"), slow_server.url_for("/")
    httpserver.no_handler_status_code = 404
    httpserver.expect_request("/").respond_with_data(
        html(*[c + f"x{i}.html" for i in range(4)], b + "fast.html"), content_type="text/html"
    )
    other_site.expect_request("/fast.html").respond_with_data(html(c + "gone.html"), content_type="text/html")
    for i in range(4):
        slow_server.expect_request(f"/x{i}.html").respond_with_handler(
            answer(html(c + "gone.html", c + "late.html", c + "never.html", b + "fast.html"))
        )
    slow_server.expect_request("/gone.html").respond_with_handler(answer("<html>gone</html>", status=404))
    slow_server.expect_request("/late.html").respond_with_handler(answer(html(a)))
    slow_server.expect_request("/never.html").respond_with_handler(answer(html(a), delay=3.0))
    crawl = crawl_site(a, site_settings={"check_external": True}, concurrency=4, timeout=2.0)
    parameters = {"method": "exact", "sigmas": [SIGMA], "external_depth": 1}

    def outcome(job):
        job.refresh_from_db()
        assert job.status == AnalysisJob.Status.FINISHED, job.error
        return (
            sorted(DecayScore.objects.filter(job=job).values_list("page__url", "decay")),
            sorted(DecayVisit.objects.filter(job=job).values_list("url", "state", "outlinks")),
            {key: value for key, value in job.result.items() if key != "seconds"},
        )

    seen.clear()
    whole = job_start(kind="decay", crawl=crawl, parameters=parameters, enqueue=False)
    while job_step(job_id=whole.pk, budget_seconds=1000):
        pass
    asked_once = dict(seen)
    assert asked_once["/x0.html"] == 1 and asked_once["/never.html"] == 1

    seen.clear()
    stepped = job_start(kind="decay", crawl=crawl, parameters=parameters, enqueue=False)

    def as_another_process() -> None:  # the next step runs in another worker process: nothing is carried over
        carried = inflight.take(stepped.pk, "external")
        if carried is not None:
            carried.session.close()

    run = run_in_steps(
        stepped.pk, budget, max_steps=100, between_steps=None if same_process else as_another_process
    )
    steps, longest = run.steps, run.longest
    if same_process:
        assert outcome(stepped) == outcome(whole)
    else:  # the same verdicts and scores; the requests asked again are counted as made
        (scores, visits, result), (whole_scores, whole_visits, whole_result) = (
            outcome(stepped),
            outcome(whole),
        )
        assert (scores, visits) == (whole_scores, whole_visits)
        assert result["fetches"] > whole_result["fetches"]
        counts = ("fetches", "external")
        assert {k: v for k, v in result.items() if k not in counts} == {
            k: v for k, v in whole_result.items() if k not in counts
        }
    by_url = {url: state for _, (url, state, _) in enumerate(outcome(stepped)[1])}
    assert by_url[c + "never.html"] == "dead" and by_url[c + "late.html"] == "open"
    assert steps >= 3, steps  # stopped mid-fetch at least once
    if same_process:
        assert longest < 2 * budget, longest
        assert seen == asked_once  # every request made once: the next step waited for it
    else:
        # Asked again by the next step, which waits for that batch to its end (else a host slower than the
        # budget would be asked again every step): such a step lasts up to its budget plus the fetch timeout.
        assert seen["/x0.html"] == 2
