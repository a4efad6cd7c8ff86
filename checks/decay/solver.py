"""Exact decay scores of every page of a crawl, as absorption probabilities of one Markov chain (Bar-Yossef et al.
2004, §4), solved with scipy.sparse; the equation-(1) check; the fix-first ranking of dead link targets.

The chain is the paper's formal one: M + I (a self loop on every page, links counted by multiplicity), dead pages
absorb into failure (D = 1), a live page succeeds with probability σ at each step. Pages whose outlinks are
unknown ("open": outside the crawl's limits, external, robots-excluded) take D̄, the mean decay of the crawled live
pages, as equation (1) suggests; docs/decay.md says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra
from scipy.sparse.linalg import LinearOperator, bicgstab

# Solved to this absolute error in every page's decay; a crawl of 500 pages needs ~200 matrix products.
DEFAULT_TOLERANCE = 1e-10
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
    Written (I − B) x = g with B = diag(r)(L + c 1ᵀ/m) and g = r ∘ d; ‖B‖∞ ≤ 1 − σ, so ‖(I − B)⁻¹‖∞ ≤ 1/σ and
    the same holds for the transpose in the L1 norm: that turns any residual into a bound on the error.
    """

    live: np.ndarray  # node index of each live page (row order)
    row_of: np.ndarray  # node -> row, -1 for non-live nodes
    L: sp.csr_matrix  # live -> live link counts (a repeated link is a repeated entry: SpMV sums them)
    dead_rows: np.ndarray  # one entry per link to a dead target: its live row…
    dead_targets: np.ndarray  # …and the dead node
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
        is_live, is_dead = target_kind == Kind.LIVE, target_kind == Kind.DEAD
        live_rows = rows[is_live]
        columns = row_of[graph.targets[is_live]]
        if len(live_rows) > 1 and (np.diff(live_rows) < 0).any():
            order = np.argsort(live_rows, kind="stable")
            live_rows, columns = live_rows[order], columns[order]
        # CSR built directly from rows in order: scipy's COO route sorts and merges every row, which cost 2.6 s of
        # a 200,000-page graph's 4 s solve.
        index_type = np.int32 if m < 2**31 and len(columns) < 2**31 else np.int64
        indptr = np.zeros(m + 1, dtype=index_type)
        np.cumsum(np.bincount(live_rows, minlength=m), out=indptr[1:])
        L = sp.csr_matrix(
            (np.ones(len(columns)), columns.astype(index_type), indptr), shape=(m, m), copy=False
        )
        c = np.bincount(rows[target_kind == Kind.OPEN], minlength=m).astype(np.float64)
        dead_rows = rows[is_dead]
        d = np.bincount(dead_rows, minlength=m).astype(np.float64)
        degree = np.bincount(rows, minlength=m).astype(np.float64)
        return cls(live, row_of, L, dead_rows, graph.targets[is_dead], c, d, degree)

    def rate(self, sigma: float) -> np.ndarray:
        return (1.0 - sigma) / (self.degree + sigma)

    def dead_column(self, target: int) -> np.ndarray:
        """Links of each live page to the dead node `target`."""
        rows = self.dead_rows[self.dead_targets == target]
        return np.bincount(rows, minlength=len(self.live)).astype(np.float64)


@dataclass(frozen=True)
class DecaySolution:
    sigma: float
    decay: np.ndarray  # per node: live pages solved, dead 1, open D̄
    dead_fraction: np.ndarray  # per node: dead outlinks / outlinks for live pages with outlinks, else nan
    mean_live: float  # D̄
    iterations: int
    chain: Chain | None = field(default=None, repr=False, compare=False)  # reused by fix-first and paths


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


def _l1_norm(v: np.ndarray) -> float:
    return float(np.abs(v).sum())


def _krylov_then_jacobi(apply_a, step, rhs, start, sigma: float, tol: float, norm) -> tuple[np.ndarray, int]:
    """Solve (I − B) y = rhs: BiCGSTAB first (a handful of products where Jacobi needs ~log(tol)/log(1 − σ)),
    accepted only when its residual proves the error below tol (error ≤ ‖residual‖ / σ in `norm`); otherwise
    Jacobi, whose contraction always converges, goes on from the best point."""
    m = len(rhs)
    operator = LinearOperator((m, m), matvec=apply_a, dtype=np.float64)
    count = [0]

    def counted(_):
        count[0] += 1

    # Stopping at a residual that proves the error bound: ‖r‖₂ ≥ ‖r‖∞, and ‖r‖₁ ≤ √m ‖r‖₂.
    target = sigma * tol / (np.sqrt(m) if norm is _l1_norm else 1.0)
    try:
        y, _ = bicgstab(operator, rhs, x0=start, rtol=0.0, atol=target, maxiter=200, callback=counted)
    except (ArithmeticError, ValueError):  # a breakdown: Jacobi below
        y = start
    if not np.all(np.isfinite(y)):
        y = start
    if norm(apply_a(y) - rhs) / sigma <= tol:
        return y, 2 * count[0] + 1
    y, iterations = _iterate(step, y, sigma, tol, norm)
    return y, 2 * count[0] + 1 + iterations


def _solve_live(chain: Chain, sigma: float, c: np.ndarray, d: np.ndarray, tol: float, start=None):
    r = chain.rate(sigma)
    g = r * d
    L = chain.L
    m = len(r)

    def step(x: np.ndarray) -> np.ndarray:
        return r * (L @ x + c * (x.sum() / m)) + g

    def apply_a(x: np.ndarray) -> np.ndarray:
        return x - r * (L @ x + c * (x.sum() / m))

    return _krylov_then_jacobi(apply_a, step, g, g.copy() if start is None else start, sigma, tol, _max_norm)


def decay_solve(
    graph: DecayGraph, *, sigma: float, tol: float = DEFAULT_TOLERANCE, chain=None
) -> DecaySolution:
    """Decay of every node for success probability σ in (0, 1), to `tol` in every page."""
    if not 0.0 < sigma < 1.0:
        raise ValueError("sigma must be in (0, 1)")
    chain = Chain.of(graph) if chain is None else chain
    return _solution(graph, chain, sigma, tol)


def _solution(graph: DecayGraph, chain: Chain, sigma: float, tol: float) -> DecaySolution:
    x, iterations = _solve_live(chain, sigma, chain.c, chain.d, tol)
    x = np.clip(x, 0.0, 1.0)  # a probability; the solve's last digits may step outside by ~tol
    mean = float(x.mean())
    decay = np.where(graph.kinds == Kind.DEAD, 1.0, mean)
    decay[chain.live] = x
    fraction = np.full(graph.n, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction[chain.live] = np.where(chain.degree > 0, chain.d / chain.degree, np.nan)
    return DecaySolution(sigma, decay, fraction, mean, iterations, chain)


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
    exact: bool  # the exact drop (Sherman–Morrison); kept for stored rankings, always True now


def adjoint_solve(chain: Chain, sigma: float, tol: float = DEFAULT_TOLERANCE) -> np.ndarray:
    """λ with (I − B)ᵀ λ = 1, B = diag(r)(L + c 1ᵀ/m): λ_p is how much Σ D over live pages moves per unit of
    failure injected at p. Solved to a mean error of `tol` a page (the L1 norm, in which Bᵀ contracts)."""
    r = chain.rate(sigma)
    m = len(r)
    L_t = chain.L.T  # a CSC view: no copy of the largest array
    c = chain.c
    ones = np.ones(m)

    def step(lam: np.ndarray) -> np.ndarray:
        weighted = r * lam
        return 1.0 + L_t @ weighted + (c @ weighted) / m

    def apply_a(lam: np.ndarray) -> np.ndarray:
        weighted = r * lam
        return lam - L_t @ weighted - (c @ weighted) / m

    lam, _ = _krylov_then_jacobi(apply_a, step, ones, ones.copy(), sigma, tol * m, _l1_norm)
    return lam


def fix_first(graph: DecayGraph, solution: DecaySolution, *, tol: float = DEFAULT_TOLERANCE) -> list[FixGain]:
    """Every dead target of a live page by how much Σ D over live pages drops if it came alive, exactly, from
    one adjoint solve.

    Bringing target t alive (it then takes D̄, like any page whose outlinks are unknown) moves its links from d
    to c: the system (I − B) x = g becomes (I − B − u vᵀ) x' = g − u with u = r ∘ M_·t and v = 1/m, a rank-one
    change. With λ = (I − B)⁻ᵀ 1, S = Σ x and a = λᵀu, Sherman–Morrison gives Σ x' = m (S − a) / (m − a), so
    the gain is a (m − S) / (m − a) = (1 − D̄) a / (1 − a/m) for every t at once (docs/decay.md).
    """
    chain = solution.chain or Chain.of(graph)
    sigma = solution.sigma
    r = chain.rate(sigma)
    m = len(r)
    lam = adjoint_solve(chain, sigma, tol)
    weighted = lam * r
    # a_t = Σ_p λ_p r_p M_pt over the links to dead targets; zero for every other node.
    a = np.bincount(chain.dead_targets, weights=weighted[chain.dead_rows], minlength=graph.n)
    total = float(solution.decay[chain.live].sum())
    targets = np.flatnonzero(a > 0)
    gains = a[targets] * (m - total) / (m - a[targets])
    order = np.argsort(-gains, kind="stable")
    return [FixGain(int(targets[i]), float(gains[i]), True) for i in order]


def paths_to_death(graph: DecayGraph, solution: DecaySolution) -> np.ndarray:
    """For every node, the next node on its most probable path to a dead page (-1: none, or the node is dead).

    A link i → j is taken with probability (1 − σ) M_ij / (deg_i + 1); the most probable path minimises the sum of
    −log of these, found for all pages at once by one Dijkstra run from the dead pages over the reversed links.
    """
    kinds, n = graph.kinds, graph.n
    chain = solution.chain or Chain.of(graph)
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
