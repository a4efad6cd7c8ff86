"""Decay over two real sites: the audited one links to another whose pages rot. Its pages are read to the depth
asked, and the exact method, the walks and the job agree with an absorbing chain solved here independently."""

from __future__ import annotations

import numpy as np
import pytest
from pytest_httpserver import HTTPServer

from checks.decay.services import decay_exact, decay_walk
from checks.jobs import job_run, job_start
from checks.models import AnalysisJob, DecayScore

pytestmark = pytest.mark.django_db
SIGMA = 0.1


def html(*links: str) -> str:
    anchors = "".join(
        f'<p><a href="{link}">link {i}</a> to somewhere worth reading</p>' for i, link in enumerate(links)
    )
    return f"<html><head><title>A page</title></head><body><h1>A page of text</h1>{anchors}</body></html>"


@pytest.fixture
def other_site():
    server = HTTPServer(host="127.0.0.1", port=0)
    server.no_handler_status_code = 404
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


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
