"""Decay scores by absorbing random walks (Bar-Yossef et al. 2004, §4.2), over any graph that can be looked up.

A walk starts at a page; on a dead page it fails; on a live page it succeeds with probability σ, else follows one
of the page's links or its self loop uniformly (links counted by multiplicity). A page whose outlinks cannot be
known ("open") takes D̄, the mean decay of the known live pages: the walk goes on from one of them drawn uniformly,
which is exactly what the exact solver assumes. One walk serves several σ at once: the path does not depend on σ,
only where it succeeds, so each σ's estimate is the paper's, and the walks (and fetches) are shared.

Lookups are memoized for the whole run and asked in batches, so a graph that fetches pages can fetch each URL at
most once, many at a time.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

DEAD, LIVE, OPEN = "dead", "live", "open"
# The paper's number of walks per page.
DEFAULT_WALKS = 300
# Confidence of the reported error bound: the true decay lies within it with at least this probability.
DEFAULT_CONFIDENCE = 0.95
# A walk ends with probability σ per live step, so it is ~1/σ steps long; this only guards against a graph
# whose restart pool the walk cannot leave (it cannot happen with σ > 0, but a bug must not hang a worker).
MAX_STEPS = 100_000


@dataclass(frozen=True)
class Node:
    state: str  # DEAD, LIVE or OPEN
    outlinks: tuple[Hashable, ...] = ()  # with multiplicity, without the self loop


class Graph(Protocol):
    def lookup(self, keys: list[Hashable]) -> dict[Hashable, Node]:
        """The nodes of `keys` (never asked twice for one key in a run)."""

    def restart_pool(self) -> list[Hashable]:
        """The known live pages an open page's walk goes on from, uniformly (empty: open pages count as success)."""


def chernoff_bound(walks: int, confidence: float = DEFAULT_CONFIDENCE) -> float:
    """Additive error ε of a mean of `walks` 0/1 trials with P(|estimate − D| ≥ ε) ≤ 1 − confidence (Hoeffding)."""
    if walks < 1:
        raise ValueError("walks must be at least 1")
    return math.sqrt(math.log(2.0 / (1.0 - confidence)) / (2.0 * walks))


def walks_needed(error: float, confidence: float = DEFAULT_CONFIDENCE) -> int:
    """Walks for an additive error `error` with the given confidence: O(1/ε² log 1/δ), as the paper says."""
    return math.ceil(math.log(2.0 / (1.0 - confidence)) / (2.0 * error * error))


@dataclass
class WalkEstimate:
    start: Hashable
    walks: int
    failures: dict[float, int]  # per σ
    error_bound: float
    dead_ends: Counter = field(default_factory=Counter)  # dead page -> failed walks ending there (first σ)
    example_path: list[Hashable] = field(
        default_factory=list
    )  # one failed walk (first σ), self loops dropped

    def decay(self, sigma: float) -> float:
        return self.failures[sigma] / self.walks


class Walker:
    """Run walks over `graph`, remembering every node it looked up (shared by all walks and start pages)."""

    def __init__(self, graph: Graph, *, seed: int = 0) -> None:
        self.graph = graph
        self.rng = random.Random(seed)
        self.nodes: dict[Hashable, Node] = {}
        self.lookups = 0
        self._pool: list[Hashable] | None = None

    def known(self, keys: Iterable[Hashable]) -> None:
        """Look up the keys not yet known, in one batch."""
        missing = list(dict.fromkeys(key for key in keys if key not in self.nodes))
        if missing:
            found = self.graph.lookup(missing)
            self.lookups += len(missing)
            for key in missing:
                self.nodes[key] = found.get(key, Node(OPEN))
            self._pool = None

    def pool(self) -> list[Hashable]:
        if self._pool is None:
            self._pool = list(self.graph.restart_pool())
        return self._pool

    def estimate(
        self,
        starts: list[Hashable],
        *,
        sigmas: list[float],
        walks: int = DEFAULT_WALKS,
        confidence: float = DEFAULT_CONFIDENCE,
        should_stop: Callable[[], bool] | None = None,
    ) -> list[WalkEstimate]:
        """`walks` walks from each start, advanced together in rounds so that unknown pages are looked up in
        batches; each σ's estimate of each start page, with the Hoeffding bound at `confidence`."""
        if walks < 1:
            raise ValueError("walks must be at least 1")
        if not sigmas or not all(0.0 < sigma < 1.0 for sigma in sigmas):
            raise ValueError("every sigma must be in (0, 1)")
        order = sorted(set(sigmas), reverse=True)  # a walk succeeds for the largest σ first
        bound = chernoff_bound(walks, confidence)
        estimates = [WalkEstimate(start, walks, dict.fromkeys(sigmas, 0), bound) for start in starts]
        # Each active walk: [estimate index, position, path, index in `order` of the next σ still walking].
        active = [[index, start, [start], 0] for index, start in enumerate(starts) for _ in range(walks)]
        steps = 0
        while active:
            if should_stop is not None and should_stop():
                raise WalksStopped()
            self.known(walk[1] for walk in active)
            active = [walk for walk in active if self._advance(walk, estimates, order, sigmas[0])]
            steps += 1
            if steps > MAX_STEPS:
                raise RuntimeError("random walks did not end")
        return estimates

    def _advance(self, walk: list, estimates: list[WalkEstimate], order: list[float], first: float) -> bool:
        """One step of one walk; False once it has ended for every σ."""
        index, position, path, next_sigma = walk
        node = self.nodes[position]
        if node.state == DEAD:
            estimate = estimates[index]
            for sigma in order[next_sigma:]:
                estimate.failures[sigma] += 1
            if first in order[next_sigma:]:
                estimate.dead_ends[position] += 1
                if not estimate.example_path:
                    estimate.example_path = path
            return False
        if node.state == OPEN:
            pool = self.pool()
            if not pool:
                return False  # nothing known to go on from: counted as a success
            walk[1] = self.rng.choice(pool)
            walk[2] = path + [walk[1]]
            return True
        draw = self.rng.random()
        while next_sigma < len(order) and draw < order[next_sigma]:
            next_sigma += 1  # succeeded for this σ (and for any smaller draw of a larger σ)
        walk[3] = next_sigma
        if next_sigma == len(order):
            return False
        choice = self.rng.randrange(len(node.outlinks) + 1)
        if choice < len(node.outlinks):
            walk[1] = node.outlinks[choice]
            walk[2] = path + [walk[1]]
        return True


class WalksStopped(Exception):
    """The caller asked the walks to stop (a cancelled job, or a step whose time is up)."""


class MappingGraph:
    """A graph held in memory: {key: Node}; keys missing from it are open."""

    def __init__(self, nodes: dict[Hashable, Node], *, pool: list[Hashable] | None = None) -> None:
        self.nodes = nodes
        self._pool = pool

    def lookup(self, keys: list[Hashable]) -> dict[Hashable, Node]:
        return {key: self.nodes[key] for key in keys if key in self.nodes}

    def restart_pool(self) -> list[Hashable]:
        if self._pool is not None:
            return self._pool
        return [key for key, node in self.nodes.items() if node.state == LIVE]
