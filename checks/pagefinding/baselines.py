"""The paper's reference algorithms: RW, OPTIMAL, SIM, DEG, SIMDEG, A* and FOCUSED (Goodwin, "the lost
sheep", Related work and Implementation details). Each takes an Environment, the query's terms and
`Settings`, and returns the node it answers (None when it has none)."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .environment import Environment, Link, Node, Page, by_promise, label_promise, page_similarity, similarity


@dataclass
class Settings:
    threshold: float = 0.75
    states: int = 100
    max_depth: int = 10  # the lost sheep's maxdepth; also the greedy walks' longest walk
    rng: random.Random = field(default_factory=random.Random)
    target: Node | None = None  # known to OPTIMAL only
    walk_share: float = 0.2  # RW walks 20% of the graph's size, as the paper (after Ke and Mostafa) does
    size_hint: int | None = None  # the graph's size where known (generated graphs)
    budget: int = 200  # BESTFIRST's own limit when the environment sets none
    query_text: str = ""  # the query as typed, for a site's own search form
    # Live sites: a greedy walk stops at the first child that reaches the threshold rather than reading the
    # rest of its level (the paper's walk reads the level, then stops: the same answer unless a later child
    # scores higher). A live home page often has more links than the download budget.
    eager_stop: bool = False
    # The lost sheep's open steps (docs/pagefinding.md): the sheep's start state ("begin": B; "middle"), what
    # t counts ("sheep": its own comparisons; "herd": one count for the herd), and the sum the step-6 share is
    # taken over ("herd": every sheep; "survivors": the sheep that read their page).
    sheep_start: str = "begin"
    sheep_clock: str = "sheep"
    stop_sum: str = "herd"


def _sim(query: tuple[str, ...], page: Page | None) -> float:
    return page_similarity(query, page)


def _answer(best: tuple[float, Node]) -> Node | None:
    """The best page read, or None when it holds none of the query: an honest "not found"."""
    return best[1] if best[0] > 0 else None


def _rated(env: Environment, query: tuple[str, ...], node: Node, page: Page | None) -> float:
    """The page's similarity to the query, recorded on the environment (the result's candidates)."""
    score = _sim(query, page)
    if page is not None:
        env.rate(node, score)
    return score


def _best(scored: list[tuple[float, Node]], rng: random.Random) -> tuple[float, Node] | None:
    """The highest score, ties broken at random (the paper's runs are averages over random graphs)."""
    if not scored:
        return None
    top = max(score for score, _ in scored)
    return rng.choice([item for item in scored if item[0] == top])


def random_walk(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    """Follow random links for 20% of the graph's size (restarting at the start at a dead end); answer the
    visited page most similar to the query."""
    steps = max(1, int(s.walk_share * (s.size_hint or 1000)))
    current, page = env.start, env.download(env.start)
    best = (_rated(env, query, current, page), current)
    for _ in range(steps):
        links = page.links if page else []
        if not links:
            current, page = env.start, env.download(env.start)
            if not links and page is not None and not page.links:
                break
            continue
        link = s.rng.choice(links)
        page = env.download(link.target, via=(current, link), score=label_promise(query, link))
        current = link.target
        score = _rated(env, query, current, page)
        if score > best[0]:
            best = (score, current)
    return _answer(best)


def optimal(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    """Download exactly the shortest path to the target, which it knows (the upper bound)."""
    path = env.shortest_path(s.target)  # type: ignore[attr-defined]
    for parent, node in zip([None, *path], path, strict=False):
        link = Link(target=node, label=())
        env.download(node, via=(parent, link) if parent is not None else None)
    return path[-1] if path else None


def _greedy(score: Callable[[tuple[str, ...], Page, list[Page]], float]):
    def walk(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
        current, page = env.start, env.download(env.start)
        best = (_rated(env, query, current, page), current)
        if best[0] >= s.threshold:
            return current
        visited = {current}
        for _ in range(s.max_depth):
            children: list[tuple[Node, Page]] = []
            # Every child is read to be scored, the likeliest by its link text first: on a live page with
            # more links than the budget, the walk does not spend it in page order.
            for link in by_promise(query, page.links if page else []):
                child = env.download(link.target, via=(current, link), score=label_promise(query, link))
                if child is not None and link.target not in visited:
                    children.append((link.target, child))
                    sim = _rated(env, query, link.target, child)
                    if sim > best[0]:
                        best = (sim, link.target)
                    if s.eager_stop and best[0] >= s.threshold:
                        return _answer(best)
            if best[0] >= s.threshold:
                return _answer(best)
            if not children:
                break
            pages = [child for _, child in children]
            chosen = _best([(score(query, child, pages), node) for node, child in children], s.rng)
            current = chosen[1]  # type: ignore[index]
            page = dict(children)[current]
            visited.add(current)
        return _answer(best)

    return walk


def _degree_share(page: Page, pages: list[Page]) -> float:
    total = sum(len(p.links) for p in pages)
    return len(page.links) / total if total else 0.0


# SIM follows the most similar child, DEG the child with most links, SIMDEG their product. The similarity is
# lifted by one query term's worth so that, far from the target where no child matches, SIMDEG follows the
# degree, as the paper describes it doing.
similarity_search = _greedy(lambda q, page, pages: similarity(q, page.term_set))
degree_search = _greedy(lambda q, page, pages: float(len(page.links)))
simdeg_search = _greedy(
    lambda q, page, pages: (similarity(q, page.term_set) + 1 / (len(q) + 1)) * _degree_share(page, pages)
)


def astar(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    """A* with the path length as cost and 1 - similarity of a node as its heuristic distance to the target;
    expanding a node downloads its children (their similarity needs their text). Stops at the first node
    popped whose similarity reaches the threshold, or after 20% of the graph."""
    limit = max(1, int(s.walk_share * (s.size_hint or 1000)))
    page = env.download(env.start)
    best = (_rated(env, query, env.start, page), env.start)
    heap: list[tuple[float, float, Node, int]] = [(1 - best[0], s.rng.random(), env.start, 0)]
    expanded: set[Node] = set()
    while heap and env.downloads < limit:
        _, _, node, depth = heapq.heappop(heap)
        if node in expanded:
            continue
        expanded.add(node)
        page = env.download(node)
        score = _sim(query, page)
        if score > best[0]:
            best = (score, node)
        if score >= s.threshold:
            return node
        for link in by_promise(query, page.links if page else []):
            if link.target in expanded:
                continue
            child = env.download(link.target, via=(node, link), score=label_promise(query, link))
            sim = _rated(env, query, link.target, child)
            heapq.heappush(heap, (depth + 1 + 1 - sim, s.rng.random(), link.target, depth + 1))
    return _answer(best)


def focused(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    """Aggarwal et al.'s intelligent crawler with query keywords: download the node with the most relevant
    downloaded parents (relevant: shares a term with the query), starting from every child of the start.
    Stops at a node holding the whole query, when no frontier node has a relevant parent, or after 20% of
    the graph (the satisfactory number P(C) = 1/N ends no crawl before that)."""
    limit = max(1, int(s.walk_share * (s.size_hint or 1000)))
    start = env.download(env.start)
    best = (_rated(env, query, env.start, start), env.start)
    votes: dict[Node, int] = {}
    links_of: dict[Node, tuple[Node, Link]] = {}

    def read(node: Node, page: Page | None) -> bool:
        nonlocal best
        score = _rated(env, query, node, page)
        if score > best[0]:
            best = (score, node)
        # A page is relevant to the crawl when any of its text, its links' included, shares a query term: a
        # contents page naming the query leads to the page (the answer is judged on the page's own text).
        relevant = page is not None and similarity(query, page.term_set) > 0
        for link in page.links if page else []:
            if not env.downloaded(link.target):
                votes[link.target] = votes.get(link.target, 0) + (1 if relevant else 0)
                links_of.setdefault(link.target, (node, link))
        return score >= 1.0

    if read(env.start, start):
        return env.start
    for link in by_promise(query, list(start.links if start else [])):
        if env.downloaded(link.target):
            continue
        page = env.download(link.target, via=(env.start, link), score=label_promise(query, link))
        if read(link.target, page):
            return link.target
    # Largest vote first, ties at random; an entry whose vote has since grown is skipped when popped.
    heap = [(-count, s.rng.random(), node) for node, count in votes.items()]
    heapq.heapify(heap)
    while env.downloads < limit and heap:
        negative, _, node = heapq.heappop(heap)
        if env.downloaded(node) or votes.get(node) != -negative:
            continue
        if negative == 0:
            break
        del votes[node]
        page = env.download(node, via=links_of[node], score=float(-negative))
        if read(node, page):
            return node
        for link in page.links if page else []:
            if link.target in votes:
                heapq.heappush(heap, (-votes[link.target], s.rng.random(), link.target))
    return _answer(best)
