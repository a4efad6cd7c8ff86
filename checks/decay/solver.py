"""Exact decay scores of every page of a crawl, as absorption probabilities of one Markov chain (Bar-Yossef et al.
2004, §4), solved with scipy.sparse; the equation-(1) check; the fix-first ranking of dead link targets.

The chain is the paper's formal one: M + I (a self loop on every page, links counted by multiplicity), dead pages
absorb into failure (D = 1), a live page succeeds with probability σ at each step. Pages whose outlinks are
unknown ("open": outside the crawl's limits, external, robots-excluded) take D̄, the mean decay of the crawled live
pages, as equation (1) suggests; docs/decay.md says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

# Solved to this absolute error in every page's decay; a crawl of 500 pages needs ~200 matrix products.
DEFAULT_TOLERANCE = 1e-10
# The fix-first candidates recomputed exactly after the first-order ranking (the number).
EXACT_TOP = 20
MAX_ITERATIONS = 100_000


class Kind(IntEnum):
    LIVE = 0  # alive, with known outlinks (possibly none)
    DEAD = 1  # dead, soft-404 or failing: D = 1
    OPEN = 2  # alive or not judged, outlinks unknown: D = D̄


@dataclass(frozen=True)
class DecayGraph:
    """Nodes 0..n-1 with their kind, and links (source, target) from LIVE nodes, repeated by multiplicity."""

    kinds: np.ndarray  # int8, Kind per node
    sources: np.ndarray  # int, one entry per link
    targets: np.ndarray

    @classmethod
    def build(
        cls,
        n: int,
        links: list[tuple[int, int]],
        *,
        dead: set[int] = frozenset(),
        open: set[int] = frozenset(),
    ) -> DecayGraph:
        kinds = np.zeros(n, dtype=np.int8)
        kinds[list(dead)] = Kind.DEAD
        kinds[list(open)] = Kind.OPEN
        array = np.array(links, dtype=np.int64).reshape(-1, 2)
        return cls(kinds, array[:, 0], array[:, 1])

    @property
    def n(self) -> int:
        return len(self.kinds)


@dataclass
class Chain:
    """The linear system over the live pages: x = r ∘ (L x + c·mean(x) + d), with r = (1 − σ) / (deg + σ).

    The self loop is eliminated algebraically: D = (1 − σ)(D + Σ M D) / (deg + 1) solves to the row above.
    """

    live: np.ndarray  # node index of each live page (row order)
    row_of: np.ndarray  # node -> row, -1 for non-live nodes
    L: sp.csr_matrix  # live -> live link counts
    to_dead: sp.csr_matrix  # live rows x all nodes: link counts to dead targets
    c: np.ndarray  # links to open targets, per live page
    d: np.ndarray  # links to dead targets, per live page
    degree: np.ndarray  # all outlinks (without the self loop)

    @classmethod
    def of(cls, graph: DecayGraph) -> Chain:
        kinds = graph.kinds
        live = np.flatnonzero(kinds == Kind.LIVE)
        if len(live) == 0:
            raise ValueError("no live page with known outlinks: decay is undefined")
        row_of = np.full(graph.n, -1, dtype=np.int64)
        row_of[live] = np.arange(len(live))
        rows = row_of[graph.sources]
        if (rows < 0).any():
            raise ValueError("links must start at LIVE nodes")
        target_kind = kinds[graph.targets]
        m = len(live)
        ones = np.ones(len(rows))
        is_live, is_dead = target_kind == Kind.LIVE, target_kind == Kind.DEAD
        L = sp.csr_matrix(
            (ones[is_live], (rows[is_live], row_of[graph.targets[is_live]])), shape=(m, m), dtype=np.float64
        )
        to_dead = sp.csr_matrix(
            (ones[is_dead], (rows[is_dead], graph.targets[is_dead])), shape=(m, graph.n), dtype=np.float64
        )
        c = np.bincount(rows[target_kind == Kind.OPEN], minlength=m).astype(np.float64)
        d = np.bincount(rows[is_dead], minlength=m).astype(np.float64)
        degree = np.bincount(rows, minlength=m).astype(np.float64)
        return cls(live, row_of, L, to_dead, c, d, degree)

    def rate(self, sigma: float) -> np.ndarray:
        return (1.0 - sigma) / (self.degree + sigma)


@dataclass(frozen=True)
class DecaySolution:
    sigma: float
    decay: np.ndarray  # per node: live pages solved, dead 1, open D̄
    dead_fraction: np.ndarray  # per node: dead outlinks / outlinks for live pages with outlinks, else nan
    mean_live: float  # D̄
    iterations: int


def _iterate(step, start: np.ndarray, sigma: float, tol: float, norm) -> tuple[np.ndarray, int]:
    """y ← step(y) for a map contracting by (1 − σ) in `norm`, until the remaining error is below tol."""
    y = start
    for iteration in range(1, MAX_ITERATIONS + 1):
        following = step(y)
        change = norm(following - y)
        y = following
        if change * (1.0 - sigma) / sigma <= tol:
            return y, iteration
    raise RuntimeError(f"decay did not converge in {MAX_ITERATIONS} iterations")


def _max_norm(v: np.ndarray) -> float:
    return float(np.abs(v).max()) if len(v) else 0.0


def _solve_live(chain: Chain, sigma: float, c: np.ndarray, d: np.ndarray, tol: float, start=None):
    r = chain.rate(sigma)
    g = r * d
    L = chain.L
    m = len(r)

    def step(x: np.ndarray) -> np.ndarray:
        return r * (L @ x + c * (x.sum() / m)) + g

    return _iterate(step, g.copy() if start is None else start, sigma, tol, _max_norm)


def decay_solve(graph: DecayGraph, *, sigma: float, tol: float = DEFAULT_TOLERANCE) -> DecaySolution:
    """Decay of every node for success probability σ in (0, 1), to `tol` in every page."""
    if not 0.0 < sigma < 1.0:
        raise ValueError("sigma must be in (0, 1)")
    chain = Chain.of(graph)
    return _solution(graph, chain, sigma, tol)


def _solution(graph: DecayGraph, chain: Chain, sigma: float, tol: float) -> DecaySolution:
    x, iterations = _solve_live(chain, sigma, chain.c, chain.d, tol)
    mean = float(x.mean())
    decay = np.where(graph.kinds == Kind.DEAD, 1.0, mean)
    decay[chain.live] = x
    fraction = np.full(graph.n, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction[chain.live] = np.where(chain.degree > 0, chain.d / chain.degree, np.nan)
    return DecaySolution(sigma, decay, fraction, mean, iterations)


def equation_one_residual(graph: DecayGraph, solution: DecaySolution) -> float:
    """Largest |D(i) − (1 − σ)(F(i) + (1 − F(i)) D̄(i))| over live pages: the paper's equation (1).

    F and D̄(i) (the mean decay of the non-dead neighbours) are taken over M + I, self loop included, as the
    formal definition counts them.
    """
    kinds, decay, sigma = graph.kinds, solution.decay, solution.sigma
    live = np.flatnonzero(kinds == Kind.LIVE)
    n = graph.n
    total = np.bincount(graph.sources, minlength=n)[live] + 1.0
    dead = np.bincount(graph.sources, weights=(kinds[graph.targets] == Kind.DEAD), minlength=n)[live]
    alive_weight = np.where(kinds[graph.targets] == Kind.DEAD, 0.0, decay[graph.targets])
    alive_sum = np.bincount(graph.sources, weights=alive_weight, minlength=n)[live] + decay[live]
    f = dead / total
    mean_alive = alive_sum / (total - dead)
    expected = (1.0 - sigma) * (f + (1.0 - f) * mean_alive)
    return float(np.abs(decay[live] - expected).max())


@dataclass(frozen=True)
class FixGain:
    target: int  # node index of the dead target
    gain: float  # drop of Σ D over the live pages if the target were alive
    exact: bool  # recomputed by a full solve (the top ones), else the first-order estimate


def fix_first(
    graph: DecayGraph,
    solution: DecaySolution,
    *,
    exact_top: int = EXACT_TOP,
    tol: float = DEFAULT_TOLERANCE,
) -> list[FixGain]:
    """Rank the dead targets of live pages by how much Σ D over live pages drops if each came alive.

    A target brought alive takes D̄ like any page whose outlinks are unknown. One adjoint (transposed) solve gives
    every target's first-order gain, (1 − D̄) Σ_i λ_i r_i M_it with (I − B)ᵀ λ = 1; the `exact_top` best are then
    recomputed by solving the chain again with the target alive.
    """
    chain = Chain.of(graph)
    sigma = solution.sigma
    r = chain.rate(sigma)
    m = len(r)
    L_t = chain.L.T.tocsr()
    c = chain.c

    def adjoint_step(lam: np.ndarray) -> np.ndarray:
        weighted = r * lam
        return 1.0 + L_t @ weighted + (c @ weighted) / m

    lam, _ = _iterate(adjoint_step, np.ones(m), sigma, tol, lambda v: float(np.abs(v).sum()))
    first_order = (1.0 - solution.mean_live) * (chain.to_dead.T @ (lam * r))
    targets = np.flatnonzero(first_order > 0)
    ranked = targets[np.argsort(-first_order[targets], kind="stable")]
    total = float(solution.decay[chain.live].sum())
    x_now = solution.decay[chain.live]
    gains = []
    for position, target in enumerate(ranked):
        if position < exact_top:
            column = np.asarray(chain.to_dead[:, target].todense()).ravel()
            x, _ = _solve_live(chain, sigma, chain.c + column, chain.d - column, tol, start=x_now)
            gains.append(FixGain(int(target), total - float(x.sum()), True))
        else:
            gains.append(FixGain(int(target), float(first_order[target]), False))
    gains.sort(key=lambda gain: -gain.gain)
    return gains


def paths_to_death(graph: DecayGraph, solution: DecaySolution) -> np.ndarray:
    """For every node, the next node on its most probable path to a dead page (-1: none, or the node is dead).

    A link i → j is taken with probability (1 − σ) M_ij / (deg_i + 1); the most probable path minimises the sum of
    −log of these, found for all pages at once by one Dijkstra run from the dead pages over the reversed links.
    """
    kinds, n = graph.kinds, graph.n
    chain = Chain.of(graph)
    sigma = solution.sigma
    keep = kinds[graph.targets] != Kind.OPEN
    sources, targets = graph.sources[keep], graph.targets[keep]
    counts = sp.coo_matrix((np.ones(len(sources)), (sources, targets)), shape=(n + 1, n + 1)).tocsr()
    counts.sum_duplicates()
    coo = counts.tocoo()
    keep = coo.row != coo.col
    rows, cols, multiplicity = coo.row[keep], coo.col[keep], coo.data[keep]
    degree = np.zeros(n + 1)
    degree[chain.live] = chain.degree
    weight = -np.log((1.0 - sigma) * multiplicity / (degree[rows] + 1.0))
    dead = np.flatnonzero(kinds == Kind.DEAD)
    sink = n
    # Reversed: edge target -> source, plus sink -> every dead page, so distances run from death back to pages.
    all_rows = np.concatenate([cols, np.full(len(dead), sink)])
    all_cols = np.concatenate([rows, dead])
    all_weights = np.concatenate([weight, np.full(len(dead), 1e-12)])
    reversed_graph = sp.csr_matrix((all_weights, (all_rows, all_cols)), shape=(n + 1, n + 1))
    _, predecessors = dijkstra(reversed_graph, directed=True, indices=sink, return_predecessors=True)
    following = predecessors[:n].astype(np.int64)
    following[(following == sink) | (following < 0)] = -1
    return following


def path_from(start: int, following: np.ndarray, limit: int = 20) -> list[int]:
    """The most probable path from `start` to a dead page as node indices (just [start] if none)."""
    path = [start]
    node = following[start]
    while node >= 0 and len(path) < limit:
        path.append(int(node))
        node = following[node]
    return path
