"""The registry of page finders by name, and `search`, which runs one over an environment."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from . import automata, baselines, finder
from .baselines import Settings
from .environment import BudgetExhausted, Environment, Node, SearchResult


@dataclass(frozen=True)
class Algorithm:
    name: str
    run: Callable[[Environment, tuple[str, ...], Settings], Node | None]
    description: str
    uses_threshold: bool = True
    uses_states: bool = False
    needs_graph: bool = False  # OPTIMAL reads the whole graph: generated sites only


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm(
            "BESTFIRST",
            finder.best_first,
            "webaudit's finder: BM25F link scores, Shark-Search, stop rule",
            uses_threshold=False,
        ),
        Algorithm(
            "LS2F", automata.lost_sheep_twofold, "the lost sheep with twofold automata", uses_states=True
        ),
        Algorithm("LS", automata.lost_sheep, "the lost sheep", uses_states=True),
        Algorithm("HMM2F", automata.hmm2f, "twofold automaton classifier over every page", uses_states=True),
        Algorithm("HMM", automata.hmm, "automaton classifier over every page", uses_states=True),
        Algorithm("SIM", baselines.similarity_search, "greedy walk to the most similar child"),
        Algorithm("DEG", baselines.degree_search, "greedy walk to the child with most links"),
        Algorithm("SIMDEG", baselines.simdeg_search, "greedy walk by similarity times degree"),
        Algorithm("A*", baselines.astar, "A* with 1 - similarity as the heuristic"),
        Algorithm(
            "FOCUSED", baselines.focused, "Aggarwal's intelligent focused crawler", uses_threshold=False
        ),
        Algorithm("RW", baselines.random_walk, "random walk over 20% of the site", uses_threshold=False),
        Algorithm(
            "OPTIMAL",
            baselines.optimal,
            "the shortest path, knowing the target",
            uses_threshold=False,
            needs_graph=True,
        ),
    )
}
DEFAULT_ALGORITHM = "BESTFIRST"
CANDIDATES = 5  # the answer and its runners-up a result shows


def algorithm_named(name: str) -> Algorithm:
    """The algorithm called `name` (any case); raises KeyError naming the choices."""
    key = name.strip().upper()
    if key == "ASTAR":
        key = "A*"
    if key not in ALGORITHMS:
        raise KeyError(f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)}")
    return ALGORITHMS[key]


def search(
    env: Environment,
    query: tuple[str, ...],
    algorithm: str = DEFAULT_ALGORITHM,
    *,
    threshold: float = 0.75,
    states: int = 100,
    rng: random.Random | None = None,
    target: Node | None = None,
    size_hint: int | None = None,
    query_text: str = "",
    eager_stop: bool = False,
    reading: dict[str, str] | None = None,
) -> SearchResult:
    """Run `algorithm` over `env`; a search that uses up its download budget finds nothing."""
    chosen = algorithm_named(algorithm)
    settings = Settings(
        threshold=threshold,
        states=states,
        rng=rng or random.Random(),
        target=target,
        size_hint=size_hint,
        query_text=query_text or " ".join(query),
        eager_stop=eager_stop,
        **(reading or {}),
    )
    exhausted = False
    try:
        found = chosen.run(env, query, settings)
    except BudgetExhausted:
        found, exhausted = None, True
    path = env.path_to(found) if found is not None else []
    texts = [env.link_text_to(node) for node in path[1:]]
    ranked = env.ranked or sorted(env.scores.items(), key=lambda item: -item[1])
    candidates = [(node, score) for node, score in ranked[: CANDIDATES + 1] if node != found]
    if found is not None:
        score = next((score for node, score in ranked if node == found), None)
        candidates.insert(0, (found, score if score is not None else 1.0))
    candidates = candidates[:CANDIDATES]
    return SearchResult(
        found=found,
        downloads=env.downloads,
        path=path,
        log=list(env.log),
        algorithm=chosen.name,
        exhausted=exhausted,
        link_texts=texts,
        candidates=candidates,
    )
