"""The exact decay solver on hand-built graphs with closed-form answers, equation (1), and fix-first by brute force."""

import numpy as np
import pytest

from checks.decay.solver import (
    DecayGraph,
    Kind,
    decay_solve,
    equation_one_residual,
    fix_first,
    path_from,
    paths_to_death,
)

SIGMA = 0.1


def random_graph(seed: int, n: int = 40, links: int = 5, dead: float = 0.15, open: float = 0.1) -> DecayGraph:
    rng = np.random.default_rng(seed)
    draw = rng.random(n)
    kinds = np.where(draw < dead, Kind.DEAD, np.where(draw < dead + open, Kind.OPEN, Kind.LIVE)).astype(
        np.int8
    )
    kinds[0] = Kind.LIVE
    live = np.flatnonzero(kinds == Kind.LIVE)
    pairs = [(int(s), int(t)) for s in live for t in rng.integers(0, n, rng.integers(0, links + 1))]
    array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return DecayGraph(kinds, array[:, 0], array[:, 1])


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_a_live_page_whose_k_links_are_all_dead_has_the_formal_decay_with_its_self_loop(k):
    graph = DecayGraph.build(k + 1, [(0, target) for target in range(1, k + 1)], dead=set(range(1, k + 1)))
    solution = decay_solve(graph, sigma=SIGMA)
    assert solution.decay[0] == pytest.approx((1 - SIGMA) * k / (k + SIGMA), abs=1e-9)
    assert solution.decay[0] < 1 - SIGMA  # not the informal example's 1 − σ
    assert solution.dead_fraction[0] == 1.0


def test_links_count_by_multiplicity():
    graph = DecayGraph.build(3, [(0, 1), (0, 1), (0, 2)], dead={1})
    solution = decay_solve(graph, sigma=SIGMA)
    assert solution.decay[0] == pytest.approx((1 - SIGMA) * 2 / (3 + SIGMA), abs=1e-9)
    assert solution.dead_fraction[0] == pytest.approx(2 / 3)


def test_decay_falls_geometrically_along_a_chain_to_a_dead_page():
    n = 6
    graph = DecayGraph.build(n + 1, [(i, i + 1) for i in range(n)], dead={n})
    decay = decay_solve(graph, sigma=SIGMA).decay
    ratio = (1 - SIGMA) / (1 + SIGMA)
    for i in range(n):
        assert decay[i] == pytest.approx(ratio ** (n - i), abs=1e-9)


def test_a_cycle_with_one_dead_link_matches_its_closed_form():
    n = 5
    links = [(i, (i + 1) % n) for i in range(n)] + [(0, n)]
    decay = decay_solve(DecayGraph.build(n + 1, links, dead={n}), sigma=SIGMA).decay
    ratio = (1 - SIGMA) / (1 + SIGMA)
    expected = (1 - SIGMA) / ((2 + SIGMA) - (1 - SIGMA) * ratio ** (n - 1))
    assert decay[0] == pytest.approx(expected, abs=1e-9)
    assert decay[1] == pytest.approx(ratio ** (n - 1) * expected, abs=1e-9)


def test_a_cycle_of_live_pages_and_pages_without_outlinks_do_not_decay():
    graph = DecayGraph.build(4, [(0, 1), (1, 2), (2, 0), (2, 3)])
    solution = decay_solve(graph, sigma=SIGMA)
    assert list(solution.decay) == pytest.approx([0, 0, 0, 0], abs=1e-12)
    assert solution.dead_fraction[0] == 0.0
    assert np.isnan(solution.dead_fraction[3])  # no outlinks: F is undefined


def test_open_pages_take_the_mean_decay_of_the_live_pages():
    # 0 -> open 2, dead 3; 1 has no outlinks. D̄ = (D0 + 0) / 2 and D0 = (1 − σ)(D̄ + 1) / (2 + σ).
    graph = DecayGraph.build(4, [(0, 2), (0, 3)], dead={3}, open={2})
    solution = decay_solve(graph, sigma=SIGMA)
    expected = (1 - SIGMA) / ((2 + SIGMA) - (1 - SIGMA) / 2)
    assert solution.decay[0] == pytest.approx(expected, abs=1e-9)
    assert solution.mean_live == pytest.approx(expected / 2, abs=1e-9)
    assert solution.decay[2] == solution.mean_live
    assert solution.dead_fraction[0] == 0.5


def test_a_site_with_no_live_page_is_refused_and_sigma_must_be_inside_0_1():
    with pytest.raises(ValueError, match="no live page"):
        decay_solve(DecayGraph.build(2, [], dead={0, 1}), sigma=SIGMA)
    graph = DecayGraph.build(2, [(0, 1)])
    for sigma in (0.0, 1.0, -0.5, 2):
        with pytest.raises(ValueError, match="sigma"):
            decay_solve(graph, sigma=sigma)


def test_every_live_page_with_only_dead_links_gives_the_same_decay_on_an_all_dead_site():
    # The start page is the only live page; everything it links to is dead.
    graph = DecayGraph.build(4, [(0, 1), (0, 2), (0, 3)], dead={1, 2, 3})
    decay = decay_solve(graph, sigma=0.5).decay
    assert decay[0] == pytest.approx(0.5 * 3 / 3.5)
    assert list(decay[1:]) == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("seed", range(5))
def test_the_solution_satisfies_equation_1_of_the_paper(seed):
    graph = random_graph(seed, n=200)
    for sigma in (0.1, 0.5):
        solution = decay_solve(graph, sigma=sigma)
        assert equation_one_residual(graph, solution) < 1e-9
        # and is not trivially satisfied: a perturbed solution breaks it
        solution.decay[np.flatnonzero(graph.kinds == Kind.LIVE)[0]] += 0.1
        assert equation_one_residual(graph, solution) > 5e-3


def test_decay_never_rises_with_sigma():
    graph = random_graph(3, n=200)
    previous = None
    for sigma in (0.1, 0.2, 0.33, 0.5):
        decay = decay_solve(graph, sigma=sigma).decay
        if previous is not None:
            assert (decay <= previous + 1e-12).all()
        previous = decay


def _brute_force_gains(graph: DecayGraph, sigma: float) -> dict[int, float]:
    base = decay_solve(graph, sigma=sigma)
    live = graph.kinds == Kind.LIVE
    total = base.decay[live].sum()
    linked = {int(t) for t in graph.targets if graph.kinds[t] == Kind.DEAD}
    gains = {}
    for target in linked:
        kinds = graph.kinds.copy()
        kinds[target] = Kind.OPEN
        fixed = decay_solve(DecayGraph(kinds, graph.sources, graph.targets), sigma=sigma)
        gains[target] = total - fixed.decay[live].sum()
    return gains


@pytest.mark.parametrize("seed", range(8))
def test_fix_first_gives_every_targets_exact_gain_from_one_adjoint_solve_as_brute_force_does(seed):
    graph = random_graph(seed, n=60, dead=0.25)
    solution = decay_solve(graph, sigma=SIGMA)
    brute = _brute_force_gains(graph, SIGMA)
    ranking = fix_first(graph, solution)
    assert {gain.target for gain in ranking} == set(brute)
    for gain in ranking:
        assert gain.exact
        assert gain.gain == pytest.approx(brute[gain.target], abs=1e-8)
    gains = [gain.gain for gain in ranking]
    assert gains == sorted(gains, reverse=True)
    assert brute[ranking[0].target] == pytest.approx(max(brute.values()), abs=1e-12)


def test_fix_first_is_exact_where_the_first_order_estimate_is_not():
    # One page, its only link dead: fixing it takes the page from (1 − σ)/(1 + σ) to (1 − σ)D̄/(1 + σ) with D̄ its
    # own decay, i.e. 0. The first-order gain (1 − D̄)·λ·r undershoots; the rank-one correction is exact.
    graph = DecayGraph.build(3, [(0, 1), (0, 2)], dead={1}, open=set())
    solution = decay_solve(graph, sigma=SIGMA)
    [gain] = fix_first(graph, solution)
    assert gain.target == 1
    assert gain.gain == pytest.approx(solution.decay[0], abs=1e-9)


def test_the_most_probable_path_to_death_follows_the_chain():
    # 0 -> 1 -> 2 -> dead 3, and 0 -> 4 (a leaf)
    graph = DecayGraph.build(5, [(0, 1), (1, 2), (2, 3), (0, 4)], dead={3})
    solution = decay_solve(graph, sigma=SIGMA)
    following = paths_to_death(graph, solution)
    assert path_from(0, following) == [0, 1, 2, 3]
    assert path_from(4, following) == [4]
    assert path_from(3, following) == [3]
