"""Transductive scores from one template (benchmarks/structure_transductive.py): the pages' graph and what runs on it."""

import random

import numpy as np
import pytest
import scipy.sparse as sp

from benchmarks import structure_transductive as T
from checks.structure.lcs import WeightedLCS

# Two page layouts on one site: keys 0-1 are the chrome (weight 0), 2-4 the first layout's blocks, 5-7 the
# second's. Pages 0-3 are of the first layout, 4-7 of the second, each missing one block or none.
WEIGHTS = [0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
PAGES = [
    [0, 1, 2, 3, 4],
    [0, 1, 2, 3],
    [0, 1, 3, 4],
    [0, 1, 2, 4],
    [0, 1, 5, 6, 7],
    [0, 1, 5, 6],
    [0, 1, 6, 7],
    [0, 1, 5, 7],
]


def test_overlap_similarity_is_formula_1_with_weights_and_without_order():
    # shared keys 1 and 2 weigh 2 + 3; the totals 1+2+3 and 2+3+4: 5 / 7.5
    similarities = T.overlap_similarities([[0, 1, 2], [2, 1, 3]], [1.0, 2.0, 3.0, 4.0])
    assert similarities[0, 1] == pytest.approx(5 / 7.5)
    assert similarities[1, 0] == pytest.approx(5 / 7.5)
    assert similarities[0, 0] == pytest.approx(1.0)


def test_pages_made_only_of_the_chrome_are_alike_in_nothing():
    similarities = T.overlap_similarities([[0, 1], [0, 1]], [0.0, 0.0])
    assert similarities[0, 1] == 0.0


def test_overlap_similarity_bounds_the_weighted_lcs_from_above():
    rng = random.Random(3)
    weights = [rng.choice([0.0, 0.5, 1.0, 2.0]) for _ in range(30)]
    sequences = [rng.sample(range(30), rng.randint(1, 20)) for _ in range(40)]
    similarities = T.overlap_similarities(sequences, weights)
    for i in range(0, 40, 3):
        lcs = WeightedLCS(sequences[i], weights)
        for j in range(40):
            if sum(weights[key] for key in sequences[i] + sequences[j]) > 0:
                assert lcs.similarity(sequences[j]) <= similarities[i, j] + 1e-9


def test_each_page_links_to_its_nearest_pages_of_its_own_layout():
    graph = T.knn_graph(PAGES, WEIGHTS, 2).toarray()
    assert (graph == graph.T).all()
    assert graph[:4, 4:].sum() == 0 and graph[4:, :4].sum() == 0
    assert (graph.sum(axis=1) > 0).all()
    assert np.diag(graph).sum() == 0


def test_a_mutual_graph_keeps_only_the_edges_both_pages_chose():
    either = T.knn_graph(PAGES, WEIGHTS, 1).toarray()
    mutual = T.knn_graph(PAGES, WEIGHTS, 1, mutual=True).toarray()
    assert ((mutual > 0) <= (either > 0)).all()
    assert (mutual > 0).sum() < (either > 0).sum()


def test_the_graph_is_the_same_computed_in_blocks_of_rows(monkeypatch):
    rng = random.Random(5)
    weights = [rng.random() for _ in range(40)]
    sequences = [rng.sample(range(40), rng.randint(3, 15)) for _ in range(57)]
    whole = T.knn_graph(sequences, weights, 4).toarray()
    monkeypatch.setattr(T, "BLOCK_ROWS", 10)
    assert np.allclose(T.knn_graph(sequences, weights, 4).toarray(), whole)


def test_diffusion_raises_a_page_whose_neighbours_resemble_the_template_and_keeps_a_flat_score_flat():
    graph = T.knn_graph(PAGES, WEIGHTS, 2)
    scores = np.array([1.0, 0.9, 0.2, 0.8, 0.1, 0.1, 0.1, 0.1])
    mixed = T.diffused(graph, scores, 0.5)
    assert mixed[2] > scores[2]  # a page of the template's layout that scored low on its own
    assert mixed[4:].max() < mixed[:4].min()
    assert np.allclose(T.diffused(graph, np.full(8, 0.3), 0.7), 0.3)


def test_with_self_loops_a_page_without_neighbours_keeps_its_similarity():
    graph = T.knn_graph([[2], [3, 4], [3, 4]], [0.0, 0.0, 1.0, 1.0, 1.0], 1, mutual=True)
    mixed = T.diffused(graph, np.array([0.6, 0.2, 0.4]), 0.9, self_loops=True)
    assert mixed[0] == pytest.approx(0.6)


def test_the_harmonic_function_is_the_chance_of_meeting_a_positive_first():
    # a chain 0 - 1 - 2 - 3 - 4 with equal weights: the values fall evenly from 1 to 0
    chain = np.zeros((5, 5))
    for i in range(4):
        chain[i, i + 1] = chain[i + 1, i] = 1.0
    positives = np.array([True, False, False, False, False])
    negatives = np.array([False, False, False, False, True])
    values = T.harmonic(sp.csr_matrix(chain), positives, negatives)
    assert values == pytest.approx([1.0, 0.75, 0.5, 0.25, 0.0], abs=1e-3)


def test_manifold_ranking_puts_the_seeds_layout_first():
    graph = T.knn_graph(PAGES, WEIGHTS, 2)
    ranking = T.manifold_ranking(graph, seed=1)
    assert ranking[1] == 1.0
    assert ranking[[0, 2, 3]].max() == pytest.approx(1.0)
    assert ranking[4:].max() < ranking[[0, 2, 3]].min()


def test_a_big_crawl_is_graphed_over_the_pages_most_similar_to_the_template():
    scores = np.array([0.1, 0.9, 0.5, 0.3, 0.8])
    assert T.graphed_pages(scores, limit=3).tolist() == [1, 2, 4]
    assert T.graphed_pages(scores, limit=10).tolist() == [0, 1, 2, 3, 4]


def test_the_benchmark_scores_a_candidate_as_a_filter_would_and_cuts_it_without_labels():
    from benchmarks import structure as B

    urls = [f"http://site.invalid/{i}.html" for i in range(len(PAGES))]
    graphs = {
        (k, mutual): T.knn_graph(PAGES, WEIGHTS, k, mutual=mutual)
        for k in (5, 10)
        for mutual in (False, True)
    }
    similarity = {url: 1.0 if i == 0 else (0.7 if i < 4 else 0.1) for i, url in enumerate(urls)}
    for name, spec in B.TRANSDUCTIVE.items():
        scores, threshold = B.transductive_scores(spec, graphs, urls, similarity, urls[0], chance=0.05)
        assert set(scores) == set(urls), name
        assert 0.0 <= threshold <= 1.0, name
        if spec[0] == "diffused":
            assert all(0.0 <= value <= 1.0 for value in scores.values()), name
            assert min(scores[url] for url in urls[1:4]) > max(scores[url] for url in urls[4:]), name


def test_the_benchmark_labels_javadoc_gtk_doc_and_doxygen_pages_by_their_generators_url_layout():
    from benchmarks import structure as B

    base = "http://site.invalid/"
    javadoc = {
        base + "org/apache/commons/lang3/StringUtils.html": "class pages",
        base + "org/apache/commons/lang3/tuple/Pair.html": "class pages",
        base + "org/apache/commons/lang3/class-use/StringUtils.html": "class-use pages",
        base + "org/apache/commons/lang3/package-summary.html": "package summaries",
        base + "src-html/org/apache/commons/lang3/StringUtils.html": "source listings",
        base + "org/apache/commons/lang3/package-tree.html": None,
        base + "index-all.html": None,
    }
    gtk_doc = {
        base + "GFile.html": "class pages",
        base + "gio-Unix-Mounts.html": "function-group pages",
        base + "gio-hierarchy.html": None,
        base + "gio-querymodules.html": "tool man pages",
        base + "gsettings-tool.html": "tool man pages",
        base + "ch33s02.html": "migration guide sections",
        base + "ch03.html": None,
    }
    doxygen = {
        base + "classlog4cplus_1_1Appender.html": "class pages",
        base + "structlog4cplus_1_1helpers_1_1LockFile_1_1Impl.html": "class pages",
        base + "classlog4cplus_1_1Appender-members.html": "member lists",
        base + "appender_8h.html": "header file pages",
        base + "appender_8h_source.html": "source listings",
        base + "dir_15e0ad6291f54c01f72f2b7a09f5a39a.html": "directory pages",
        base + "dir_000002_000007.html": "directory dependency pages",
        base + "functions_func_a.html": "member index pages",
        base + "classes.html": None,
        base + "files.html": None,
    }
    for site, expected in (("commons-lang3", javadoc), ("gio", gtk_doc), ("log4cplus", doxygen)):
        types = B.site_type_targets(site, dict.fromkeys(expected, b""))
        for url, name in expected.items():
            assert [n for n, urls in types.items() if url in urls] == ([name] if name else []), url
