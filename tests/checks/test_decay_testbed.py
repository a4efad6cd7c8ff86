"""Exact decay against random walks on real test-bed crawls: they agree within the walks' bound."""

from __future__ import annotations

import numpy as np
import pytest

from checks.decay.graph import crawl_graph, crawl_scope, graph_compact, graph_from_compact
from checks.decay.services import DecayInputError, decay_exact, decay_url, decay_walk
from checks.decay.solver import Kind, decay_solve, equation_one_residual
from sites.models import Page

pytestmark = [pytest.mark.django_db, pytest.mark.testbed]

SIGMAS = [0.1, 0.5]


@pytest.fixture
def python_docs(testbed, crawl_site):
    """A 120-page crawl of the honest python docs: its edge (pages over the limit) is open."""
    return crawl_site(testbed["honest"], max_pages=120, concurrency=8)


def _within_bound(walked, exact, sigma):
    exact_by_url = {page.url: page.decay[sigma] for page in exact.pages}
    return [
        (page.url, page.decay[sigma], exact_by_url[page.url])
        for page in walked.pages
        if abs(page.decay[sigma] - exact_by_url[page.url]) > page.error_bound
    ]


def test_a_crawl_reads_as_a_chain_whose_exact_solution_satisfies_equation_1(python_docs):
    graph = crawl_graph(crawl=python_docs)
    kinds = list(graph.kinds)
    assert kinds.count(Kind.LIVE) >= 100 and kinds.count(Kind.DEAD) > 0 and kinds.count(Kind.OPEN) > 0
    solution = decay_solve(graph.decay_graph, sigma=0.1)
    assert equation_one_residual(graph.decay_graph, solution) < 1e-9
    result = decay_exact(crawl=python_docs, sigmas=SIGMAS)
    assert result.residual < 1e-9
    decayed = max(result.pages, key=lambda page: page.decay[0.1] if page.decay[0.1] < 1 else -1)
    assert 0 < decayed.decay[0.1] < 1
    assert decayed.path[0] == decayed.url and len(decayed.path) >= 2  # ends on a dead page
    assert decayed.dead_ends and all(share > 0 for _, share in decayed.dead_ends)
    assert result.fix_first and result.fix_first[0].gain >= result.fix_first[-1].gain
    assert all(fix.linked_from for fix in result.fix_first)


def test_a_graph_kept_between_steps_comes_back_column_for_column_and_solves_the_same(python_docs):
    import json

    graph = crawl_graph(crawl=python_docs)
    assert None in graph.page_ids  # link targets the crawl has no page for
    kept = graph_from_compact(json.loads(json.dumps(graph_compact(graph))), scope=crawl_scope(python_docs))
    assert kept.urls == graph.urls and kept.page_ids == graph.page_ids
    for column in ("kinds", "settled", "internal", "sources", "targets"):
        assert getattr(kept, column).dtype == getattr(graph, column).dtype
        assert np.array_equal(getattr(kept, column), getattr(graph, column)), column
    assert kept.scope_contains(graph.urls[0]) == graph.scope_contains(graph.urls[0])
    assert decay_exact(crawl=python_docs, sigmas=SIGMAS, graph=kept).as_json() | {
        "seconds": 0
    } == decay_exact(crawl=python_docs, sigmas=SIGMAS, graph=graph).as_json() | {"seconds": 0}


def test_walks_over_the_stored_links_agree_with_the_exact_decay_within_the_bound(python_docs):
    exact = decay_exact(crawl=python_docs, sigmas=SIGMAS)
    walked = decay_walk(crawl=python_docs, sigmas=SIGMAS, walks=300, live=False, seed=4)
    assert walked.fetches == 0
    assert len(walked.pages) == len(exact.pages)
    for sigma in SIGMAS:
        outside = _within_bound(walked, exact, sigma)
        # Each page is within its 95% bound with probability ≥ 0.95: at most a few in a hundred may fall outside.
        assert len(outside) <= 0.05 * len(walked.pages) + 2, outside[:5]


def test_live_walks_beyond_a_partial_crawl_agree_with_the_exact_decay_of_the_whole_site(testbed, crawl_site):
    # External links are left unchecked: the sandbox has no internet, and checking a thousand unreachable hosts
    # only slows the crawl; unchecked externals are open in both methods.
    unchecked = {"check_external": False}
    whole = crawl_site(testbed["honest"], site_settings=unchecked, max_pages=100_000, concurrency=8)
    partial = crawl_site(testbed["honest"], site_settings=unchecked, max_pages=60, concurrency=8)
    exact = decay_exact(crawl=whole, sigmas=SIGMAS)
    walked = decay_walk(crawl=partial, sigmas=SIGMAS, walks=300, live=True, seed=2)
    # Each page beyond the crawl is fetched at most once for all 18,000 walks (plus robots.txt and a probe a
    # directory), so never more than the site has pages.
    assert 0 < walked.fetches < Page.objects.filter(crawl=whole).count() + 50
    exact_by_url = {page.url: page.decay for page in exact.pages}
    outside = [
        page.url
        for page in walked.pages
        if abs(page.decay[0.1] - exact_by_url[page.url][0.1]) > page.error_bound
    ]
    assert len(outside) <= 0.05 * len(walked.pages) + 2, outside[:5]


def test_one_url_is_scored_live_with_no_crawl(testbed):
    result = decay_url(url=testbed["honest"] + "whatsnew/index.html", sigmas=[0.1], walks=100)
    [page] = result.pages
    assert 0 <= page.decay[0.1] <= 1 and page.error_bound > 0
    assert page.dead_link_fraction is not None
    assert 0 < result.fetches < 2000


def test_a_url_that_cannot_be_fetched_or_is_dead_is_refused(testbed, closed_port):
    with pytest.raises(DecayInputError):
        decay_url(url=f"http://127.0.0.1:{closed_port}/", sigmas=[0.1], walks=10)
    with pytest.raises(DecayInputError):
        decay_url(url=testbed["honest"] + "no-such-page.html", sigmas=[0.1], walks=10)
    with pytest.raises(DecayInputError):
        decay_url(url="ftp://example.com/", sigmas=[0.1], walks=10)


def test_the_command_scores_one_url_live_and_refuses_one_it_cannot_fetch(testbed, closed_port, tmp_path):
    import io
    import json

    from django.core.management import call_command
    from django.core.management.base import CommandError

    target = tmp_path / "one.json"
    err = io.StringIO()
    call_command(
        "decay",
        "--url",
        testbed["honest"] + "tutorial/index.html",
        "--walks",
        "50",
        "--json",
        str(target),
        stderr=err,
    )
    report = json.loads(target.read_text())
    assert set(report) == {
        "method",
        "sigma",
        "sigmas",
        "fetches",
        "seconds",
        "mean_decay",
        "paper_means",
        "external",
        "pages",
        "fix_first",
    }
    [page] = report["pages"]
    assert set(page["decay_by_sigma"]) == {"0.1"} and report["paper_means"]["pages"] == 1
    assert report["method"] == "walk" and page["url"] == testbed["honest"] + "tutorial/index.html"
    assert page["error_bound"] > 0 and report["fetches"] > 0
    assert "walks" in err.getvalue()
    missing = tmp_path / "missing.json"
    with pytest.raises(CommandError, match="cannot be scored") as raised:
        call_command("decay", "--url", f"http://127.0.0.1:{closed_port}/", "--json", str(missing))
    assert raised.value.returncode == 2 and not missing.exists()
