"""The random walker: it agrees with the exact solver within its Chernoff bound, and looks every page up once."""

import numpy as np
import pytest

from checks.decay.solver import DecayGraph, Kind, decay_solve
from checks.decay.walks import DEAD, LIVE, OPEN, MappingGraph, Node, Walker, chernoff_bound, walks_needed

from .test_decay_solver import random_graph


def as_nodes(graph: DecayGraph) -> dict[int, Node]:
    outlinks: dict[int, list[int]] = {}
    for source, target in zip(graph.sources.tolist(), graph.targets.tolist(), strict=True):
        outlinks.setdefault(source, []).append(target)
    states = {Kind.LIVE: LIVE, Kind.DEAD: DEAD, Kind.OPEN: OPEN}
    return {i: Node(states[Kind(kind)], tuple(outlinks.get(i, ()))) for i, kind in enumerate(graph.kinds)}


class CountingGraph(MappingGraph):
    def __init__(self, nodes):
        super().__init__(nodes)
        self.asked: list = []
        self.batches = 0

    def lookup(self, keys):
        self.asked.extend(keys)
        self.batches += 1
        return super().lookup(keys)


def test_the_chernoff_bound_of_300_walks_is_the_papers_0_1_at_confidence_0_8_and_shrinks_with_walks():
    assert chernoff_bound(300, 0.8) <= 0.1
    assert chernoff_bound(1200) == pytest.approx(chernoff_bound(300) / 2)
    assert walks_needed(chernoff_bound(300)) <= 300
    with pytest.raises(ValueError):
        chernoff_bound(0)


def test_walks_estimate_the_self_loop_closed_form_within_the_bound():
    k, sigma = 3, 0.1
    nodes = {0: Node(LIVE, (1, 2, 3)), 1: Node(DEAD), 2: Node(DEAD), 3: Node(DEAD)}
    [estimate] = Walker(MappingGraph(nodes), seed=1).estimate([0], sigmas=[sigma], walks=4000)
    exact = (1 - sigma) * k / (k + sigma)
    assert abs(estimate.decay(sigma) - exact) <= estimate.error_bound
    assert estimate.error_bound == pytest.approx(chernoff_bound(4000))
    assert set(estimate.dead_ends) == {1, 2, 3}
    assert sum(estimate.dead_ends.values()) == estimate.failures[sigma]
    assert estimate.example_path[0] == 0 and estimate.example_path[-1] in (1, 2, 3)


def test_a_dead_start_page_has_decay_1_and_a_page_without_links_0():
    nodes = {"dead": Node(DEAD), "leaf": Node(LIVE)}
    dead, leaf = Walker(MappingGraph(nodes)).estimate(["dead", "leaf"], sigmas=[0.1], walks=50)
    assert dead.decay(0.1) == 1.0 and leaf.decay(0.1) == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_walks_agree_with_the_exact_solver_within_the_bound_on_random_graphs_for_several_sigmas(seed):
    graph = random_graph(seed, n=60)
    sigmas = [0.1, 0.33, 0.5]
    starts = [int(i) for i in np.flatnonzero(graph.kinds == Kind.LIVE)]
    # Every page's estimate within its bound at once: the union bound over pages and σ at 99%.
    confidence = 1 - 0.01 / (len(starts) * len(sigmas))
    estimates = Walker(MappingGraph(as_nodes(graph)), seed=seed).estimate(
        starts, sigmas=sigmas, walks=600, confidence=confidence
    )
    for sigma in sigmas:
        exact = decay_solve(graph, sigma=sigma).decay
        for estimate in estimates:
            assert abs(estimate.decay(sigma) - exact[estimate.start]) <= estimate.error_bound


def test_every_page_is_looked_up_once_per_run_in_batches():
    graph = random_graph(7, n=80)
    counting = CountingGraph(as_nodes(graph))
    walker = Walker(counting, seed=3)
    starts = [int(i) for i in np.flatnonzero(graph.kinds == Kind.LIVE)]
    walker.estimate(starts, sigmas=[0.1], walks=100)
    walker.estimate(starts, sigmas=[0.2], walks=100)
    assert len(counting.asked) == len(set(counting.asked)) == walker.lookups
    assert counting.batches < 100  # batches by rounds, not one lookup per step


def test_the_walker_refuses_bad_parameters():
    walker = Walker(MappingGraph({0: Node(LIVE)}))
    with pytest.raises(ValueError):
        walker.estimate([0], sigmas=[0.1], walks=0)
    with pytest.raises(ValueError):
        walker.estimate([0], sigmas=[1.0], walks=10)


def spread_out_graph(seed: int, n: int = 120) -> DecayGraph:
    """Pages whose decay spans most of [0, 1]: some link only to dead pages, some only to live leaves, the rest to a
    random mix, with open targets among them (so the restart rule counts too)."""
    rng = np.random.default_rng(seed)
    kinds = np.full(n, Kind.LIVE, dtype=np.int8)
    kinds[: n // 6] = Kind.DEAD
    kinds[n // 6 : n // 6 + 6] = Kind.OPEN
    leaves = np.arange(n // 6 + 6, n // 6 + 16)  # live pages without links: D = 0
    pairs = []
    for page in range(n // 6 + 16, n):
        bias = rng.random()  # how much of this page's neighbourhood is dead
        for _ in range(rng.integers(1, 8)):
            if rng.random() < bias:
                pairs.append((page, int(rng.integers(0, n // 6))))
            elif rng.random() < 0.5:
                pairs.append((page, int(rng.choice(leaves))))
            else:
                pairs.append((page, int(rng.integers(n // 6, n))))
    array = np.array(pairs, dtype=np.int64)
    return DecayGraph(kinds, array[:, 0], array[:, 1])


@pytest.mark.parametrize("seed", range(3))
def test_walks_track_spread_out_decay_where_any_constant_answer_would_fail(seed):
    graph = spread_out_graph(seed)
    exact = decay_solve(graph, sigma=0.1).decay
    starts = [int(i) for i in np.flatnonzero(graph.kinds == Kind.LIVE)]
    values = exact[starts]
    estimates = Walker(MappingGraph(as_nodes(graph)), seed=seed).estimate(starts, sigmas=[0.1], walks=300)
    bound = estimates[0].error_bound
    # The test can tell a walker from a constant: no single answer is within the bound of even half the pages.
    assert values.max() - values.min() > 0.6
    for constant in np.linspace(0, 1, 101):
        assert np.mean(np.abs(values - constant) <= bound) < 0.5
    # …and the walker is within its 95% bound on ~95% of them: ≥ 90% over ~100 pages (2.3 standard deviations).
    within = [abs(e.decay(0.1) - exact[e.start]) <= e.error_bound for e in estimates]
    assert np.mean(within) >= 0.90
