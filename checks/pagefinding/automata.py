"""The paper's learning-automaton classifiers and the lost sheep built on them: HMM and HMM2F download the
whole graph and classify every node; LS and LS2F release one automaton (a sheep) per link, read the link
text first and download the page only if the sheep survives it (Goodwin, "the lost sheep")."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from .baselines import Settings, _best
from .environment import Environment, Link, Node, label_promise


class Sheep:
    """A two-action Tsetlin automaton with `states` states: state 0 is the beginning state B, `states - 1`
    the quit state Q. A word of the query moves it towards B, any other word towards Q; it returns (quits)
    on reaching Q. Its duration f is the number of words it compared, t. The twofold variant moves S/2
    states on its first comparison, S/4 on its second and so on down to one (Granmo and Oommen)."""

    __slots__ = ("state", "t", "quit", "twofold", "query", "clock")

    def __init__(
        self, states: int, query: frozenset[str], twofold: bool, *, start: str = "begin", clock=None
    ) -> None:
        self.quit = max(1, states - 1)
        # Readings of what the paper leaves open (docs/pagefinding.md): the state a sheep starts in (the
        # beginning state B, or halfway to Q), and whether t is the sheep's own count of comparisons or a
        # count shared by the herd ("let t := 0 before LS starts"), which then also sets the twofold step.
        self.state = self.quit // 2 if start == "middle" else 0
        self.t = 0
        self.twofold = twofold
        self.query = query
        self.clock = clock  # a one-item list shared by the herd, or None

    @property
    def returned(self) -> bool:
        return self.state >= self.quit

    def read(self, words: Iterable[str]) -> bool:
        """Compare words until the sheep returns; True while it is still out."""
        quit, query, clock = self.quit, self.query, self.clock
        for word in words:
            count = self.t if clock is None else clock[0]
            step = max(1, (self.quit + 1) >> min(count + 1, 62)) if self.twofold else 1
            if clock is None:
                self.t += 1
            else:
                clock[0] += 1
                self.t = clock[0]  # f(x_j) = t: the herd's count when the sheep last compared
            if word in query:
                self.state = max(0, self.state - step)
            else:
                self.state += step
                if self.state >= quit:
                    self.state = quit
                    return False
        return True


def _classify_all(env: Environment, query: tuple[str, ...], s: Settings, twofold: bool) -> Node | None:
    """Download every node reachable from the start (breadth first) and answer the one whose automaton,
    fed the link text it was reached by and then its text, stays out longest."""
    wanted = frozenset(query)
    queue: deque[tuple[Node, Link | None, Node | None]] = deque([(env.start, None, None)])
    seen = {env.start}
    scored: list[tuple[float, Node]] = []
    while queue:
        node, link, parent = queue.popleft()
        via = (parent, link) if link is not None else None
        page = env.download(node, via=via, score=None if link is None else label_promise(query, link))
        if page is None:
            continue
        sheep = Sheep(s.states, wanted, twofold)
        if link is None or sheep.read(link.label):
            sheep.read(page.terms)
        scored.append((sheep.t, node))
        env.rate(node, float(sheep.t))
        for child in page.links:
            if child.target not in seen:
                seen.add(child.target)
                queue.append((child.target, child, node))
    best = _best(scored, s.rng)
    return None if best is None else best[1]


def hmm(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    return _classify_all(env, query, s, twofold=False)


def hmm2f(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    return _classify_all(env, query, s, twofold=True)


def _lost_sheep(env: Environment, query: tuple[str, ...], s: Settings, twofold: bool) -> Node | None:
    """The herder at a node releases one sheep per link. A sheep reads the link text; if it is still out it
    downloads the page and reads its text. The sheep out longest is the lost sheep: when its share of all
    the sheep's durations reaches the threshold the search ends, otherwise the herder moves there and
    releases a new herd, at most `max_depth` times. The answer is the longest-out sheep of all the herds."""
    wanted = frozenset(query)
    clock = [0] if s.sheep_clock == "herd" else None
    herder, page = env.start, env.download(env.start)
    answer: Node | None = None
    longest = -1.0  # the herder knows every sheep's find: the answer is the longest-out sheep of any herd
    been = {herder}
    for _ in range(s.max_depth):
        herd: list[tuple[float, Node]] = []
        # Every sheep reads its link text first (no download); those still out then read their pages, the
        # ones whose link text holds most of the query first, then those nearest the beginning state (on a
        # live site the budget may not cover every page of the herd; the herd's outcome is the same when it
        # does).
        released = []
        for link in page.links if page else []:
            if link.target in been:
                continue
            sheep = Sheep(s.states, wanted, twofold, start=s.sheep_start, clock=clock)
            released.append((sheep.read(link.label), sheep, link))
        released.sort(key=lambda item: (not item[0], -label_promise(query, item[2]), item[1].state))
        for out, sheep, link in released:
            if out:
                child = env.download(link.target, via=(herder, link), score=label_promise(query, link))
                if child is not None:
                    sheep.read(child.terms)
                    env.rate(link.target, float(sheep.t))
            herd.append((sheep.t, link.target))
        lost = _best(herd, s.rng)
        if lost is None:
            break
        if lost[0] > longest:
            longest, answer = lost[0], lost[1]
        total = sum(duration for duration, _ in herd)
        if s.stop_sum == "survivors":  # the share among the sheep that read their page
            total = sum(sheep.t for out, sheep, _ in released if out)
        if total and lost[0] / total >= s.threshold:
            return answer
        next_page = env.download(lost[1], via=(herder, _link_to(page, lost[1])))
        if next_page is None:
            break
        herder, page = lost[1], next_page
        been.add(herder)
    return answer


def _link_to(page, node: Node) -> Link:
    for link in page.links:
        if link.target == node:
            return link
    return Link(target=node, label=())


def lost_sheep(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    return _lost_sheep(env, query, s, twofold=False)


def lost_sheep_twofold(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    return _lost_sheep(env, query, s, twofold=True)
