"""Decay of a crawl's pages, exact or by walks, and of one URL live: plain results the job stores and reports."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from checks.decay.external import Expansion, crawl_unreachable_hosts, expand
from checks.decay.graph import CrawlGraph, crawl_graph, with_fetched
from checks.decay.inflight import InFlight
from checks.decay.live import LiveGraph
from checks.decay.solver import (
    DecaySolution,
    Kind,
    decay_solve,
    equation_one_residual,
    fix_first,
    path_from,
    paths_to_death,
)
from checks.decay.walks import DEAD, LIVE, MappingGraph, Node, Walker, WalkEstimate
from sites.crawler.config import CrawlConfig
from sites.crawler.urls import normalize_url
from sites.models import Crawl

# Outlinks listed per decayed page: the links through which its readers end on dead pages.
TOP_LINKS = 5


class DecayInputError(ValueError):
    """The run cannot start as asked (no live page, a URL that cannot be fetched); the message is for the user."""


@dataclass
class PageDecay:
    url: str
    page_id: int | None
    decay: dict[float, float]  # per σ
    error_bound: float
    dead_link_fraction: float | None
    live: bool = True  # False for the crawl's dead pages (D = 1), which no mean includes
    path: list[str] = field(default_factory=list)  # an example path to a dead page
    dead_ends: list[tuple[str, float]] = field(
        default_factory=list
    )  # (dead page or link, share of the decay)


@dataclass
class FixTarget:
    target: str
    page_id: int | None
    gain: float
    exact: bool
    linked_from: list[str]


@dataclass
class DecayResult:
    method: str
    sigmas: list[float]
    pages: list[PageDecay]
    fix_first: list[FixTarget]
    fetches: int = 0
    seconds: float = 0.0
    walks: int = 0
    mean_decay: dict[float, float] = field(default_factory=dict)
    residual: float = 0.0  # equation (1) for the exact method
    paper_means: dict = field(default_factory=dict)  # the paper's summary (paper_means below)
    external: dict = field(default_factory=dict)  # what was fetched beyond the site (external.Expansion)

    def as_json(self) -> dict:
        """The shape `manage.py decay --json` writes: "decay" at the first σ, "decay_by_sigma" every σ."""
        sigma = self.sigmas[0]
        return {
            "method": self.method,
            "sigma": sigma,
            "sigmas": self.sigmas,
            "fetches": self.fetches,
            "seconds": round(self.seconds, 3),
            "mean_decay": {str(s): value for s, value in self.mean_decay.items()},
            "paper_means": self.paper_means,
            "external": self.external,
            "pages": [
                {
                    "url": page.url,
                    "decay": page.decay[sigma],
                    "decay_by_sigma": {str(s): page.decay[s] for s in self.sigmas},
                    "error_bound": page.error_bound,
                    "dead_link_fraction": page.dead_link_fraction,
                }
                for page in self.pages
            ],
            "fix_first": [
                {"target": fix.target, "gain": fix.gain, "linked_from": fix.linked_from}
                for fix in self.fix_first
            ],
        }


def _fraction(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def site_means(rows, sigmas: list[float]) -> tuple[dict[float, float], dict]:
    """Ours and the paper's summary from (live, decay by σ, F) per scored page.

    Ours: the mean decay of the site's live pages (dead pages, D = 1 by definition, are left out, by both
    methods). The paper's (§5, Figure 1): live pages with at least one outlink only, with their mean F.
    """
    live = [(decay, fraction) for is_live, decay, fraction in rows if is_live]
    linked = [(decay, fraction) for decay, fraction in live if fraction is not None]
    ours = {sigma: float(np.mean([d[sigma] for d, _ in live])) if live else 0.0 for sigma in sigmas}
    paper = {
        "label": "the paper's: live pages with at least one outlink",
        "pages": len(linked),
        "mean_decay": {
            str(sigma): float(np.mean([d[sigma] for d, _ in linked])) if linked else None for sigma in sigmas
        },
        "mean_dead_link_fraction": float(np.mean([f for _, f in linked])) if linked else None,
    }
    return ours, paper


def _means_of(pages: list[PageDecay], sigmas: list[float]) -> tuple[dict[float, float], dict]:
    return site_means(((p.live, p.decay, p.dead_link_fraction) for p in pages), sigmas)


def walked_pages(
    graph: CrawlGraph,
    nodes: np.ndarray,
    estimates: list[WalkEstimate],
    *,
    sigmas: list[float],
    walks: int,
    primary: DecaySolution,
) -> list[PageDecay]:
    """Each node's decay from its walks' estimate, beside the dead-link fraction of the exact chain `primary`."""
    return [
        PageDecay(
            url=graph.urls[i],
            page_id=graph.page_ids[i],
            decay={sigma: estimate.decay(sigma) for sigma in sigmas},
            error_bound=estimate.error_bound,
            dead_link_fraction=_fraction(primary.dead_fraction[i]),
            live=bool(graph.kinds[i] == Kind.LIVE),
            path=[str(url) for url in estimate.example_path],
            dead_ends=[(str(url), count / walks) for url, count in estimate.dead_ends.most_common(TOP_LINKS)],
        )
        for i, estimate in zip(nodes, estimates, strict=True)
    ]


def scored_nodes(graph: CrawlGraph) -> np.ndarray:
    """The pages a run reports: the crawl's live pages with known links, and its own dead pages (D = 1); never
    the other sites' pages read beyond it."""
    kinds = graph.kinds
    reported = (kinds == Kind.LIVE) | ((kinds == Kind.DEAD) & graph.internal & graph.settled)
    return np.flatnonzero(reported & graph.internal & graph.has_page())


def _require_live(graph: CrawlGraph, crawl: Crawl) -> None:
    if not (graph.kinds == Kind.LIVE).any():
        raise DecayInputError(
            f"Crawl #{crawl.pk} has no live page whose links are known: decay is undefined."
        )


def fix_targets(graph: CrawlGraph, solution) -> list[FixTarget]:
    """The crawl's dead link targets by the drop in total decay if each were alive (solver.fix_first)."""
    urls = graph.urls
    index_sources = _sources_by_target(graph)
    gains = fix_first(graph.decay_graph, solution)
    return [
        FixTarget(urls[g.target], graph.page_ids[g.target], g.gain, g.exact, sorted(index_sources[g.target]))
        for g in gains
    ]


def _sources_by_target(graph: CrawlGraph) -> dict[int, set[str]]:
    sources: dict[int, set[str]] = {}
    dead = graph.kinds[graph.targets] == Kind.DEAD
    for source, target in zip(graph.sources[dead].tolist(), graph.targets[dead].tolist(), strict=True):
        sources.setdefault(target, set()).add(graph.urls[source])
    return sources


def _link_shares(graph: CrawlGraph, decay: np.ndarray, sigma: float) -> dict[int, list[tuple[str, float]]]:
    """Per live page, its outlinks by their share of its decay: (1 − σ) M_pj D(j) / (deg_p + σ), top few."""
    degree = np.bincount(graph.sources, minlength=len(graph.urls)).astype(float)
    shares: dict[int, dict[int, float]] = {}
    for source, target in zip(graph.sources.tolist(), graph.targets.tolist(), strict=True):
        if source != target and decay[target] > 0:
            row = shares.setdefault(source, {})
            row[target] = row.get(target, 0.0) + (1 - sigma) * decay[target] / (degree[source] + sigma)
    return {
        source: [
            (graph.urls[t], share) for t, share in sorted(row.items(), key=lambda kv: -kv[1])[:TOP_LINKS]
        ]
        for source, row in shares.items()
    }


def decay_graph_of(
    crawl: Crawl,
    *,
    external_depth: int = 0,
    max_fetches: int | None = None,
    known: dict[str, Node] | None = None,
) -> tuple[CrawlGraph, Expansion]:
    """The crawl's graph with other sites' pages read to `external_depth` (0: the crawl alone, as it judged)."""
    graph = crawl_graph(crawl=crawl)
    _require_live(graph, crawl)
    if external_depth <= 0 and not known:
        return graph, Expansion(done=True)
    expansion = expand(
        graph,
        config=CrawlConfig.from_dict(crawl.settings),
        depth=external_depth,
        max_fetches=settings.WEBAUDIT_DECAY_MAX_FETCHES if max_fetches is None else max_fetches,
        known=known,
        unreachable=crawl_unreachable_hosts(crawl),
    )
    return with_fetched(graph, expansion.nodes), expansion


def decay_exact(
    *,
    crawl: Crawl,
    sigmas: list[float],
    graph: CrawlGraph | None = None,
    expansion: Expansion | None = None,
    external_depth: int = 0,
    max_fetches: int | None = None,
) -> DecayResult:
    """Solve the chain of the crawl (plus other sites' pages read to `external_depth`) for every σ; fix-first
    and the paths to death at the first σ."""
    started = time.monotonic()
    if graph is None:
        graph, expansion = decay_graph_of(crawl, external_depth=external_depth, max_fetches=max_fetches)
    _require_live(graph, crawl)
    decay_graph = graph.decay_graph
    solutions = [decay_solve(decay_graph, sigma=sigma) for sigma in sigmas]
    primary = solutions[0]
    following = paths_to_death(decay_graph, primary)
    shares = _link_shares(graph, primary.decay, sigmas[0])
    pages = [
        PageDecay(
            url=graph.urls[i],
            page_id=graph.page_ids[i],
            decay={s.sigma: float(s.decay[i]) for s in solutions},
            error_bound=0.0,
            dead_link_fraction=_fraction(primary.dead_fraction[i]),
            live=bool(graph.kinds[i] == Kind.LIVE),
            path=[graph.urls[j] for j in path_from(int(i), following)] if primary.decay[i] > 0 else [],
            dead_ends=shares.get(int(i), []),
        )
        for i in scored_nodes(graph)
    ]
    ours, paper = _means_of(pages, sigmas)
    return DecayResult(
        method="exact",
        sigmas=sigmas,
        pages=pages,
        fix_first=fix_targets(graph, primary),
        fetches=expansion.requests if expansion else 0,
        seconds=time.monotonic() - started,
        mean_decay=ours,
        residual=max(equation_one_residual(decay_graph, s) for s in solutions),
        paper_means=paper,
        external=expansion.summary() if expansion else {},
    )


def walk_source(
    crawl: Crawl,
    graph: CrawlGraph,
    *,
    live: bool,
    known: dict[str, Node] | None = None,
    in_flight: InFlight | None = None,
):
    """The walker's graph: the (extended) crawl's nodes; with `live`, pages of the site the crawl did not reach
    are fetched when a walk first gets there. Other sites' pages are never fetched here: what the run read of them
    is in `graph` already, and what it did not read is open, for walks as for the exact solve. `in_flight`: fetches
    the job's last step left running (checks/jobs/inflight.py), waited for instead of asked again."""
    nodes = graph.walk_nodes()
    nodes.update(known or {})
    pool = [graph.urls[i] for i in graph.live_indices()]
    if not live:
        return MappingGraph(nodes, pool=pool)
    config = CrawlConfig.from_dict(crawl.settings)
    return LiveGraph(
        config=config, known=nodes, pool=pool, crawl=crawl, fetch_outside=False, in_flight=in_flight
    )


def decay_walk(
    *,
    crawl: Crawl,
    sigmas: list[float],
    walks: int,
    live: bool = True,
    seed: int = 0,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[int, int, int], None] | None = None,
    chunk: int = 50,
    external_depth: int = 0,
    max_fetches: int | None = None,
) -> DecayResult:
    """W walks from every live page of the crawl over the graph the exact method solves (the crawl plus other
    sites' pages read to `external_depth`); with `live`, pages of the site beyond the crawl are fetched on demand.

    Fix-first comes from the exact chain (it needs every page at once); the walks give each page's dead ends.
    """
    started = time.monotonic()
    graph, expansion = decay_graph_of(crawl, external_depth=external_depth, max_fetches=max_fetches)
    source = walk_source(crawl, graph, live=live)
    walker = Walker(source, seed=seed)
    scored = scored_nodes(graph)
    starts = [graph.urls[i] for i in scored]
    estimates = []
    try:
        for begin in range(0, len(starts), chunk):
            estimates += walker.estimate(
                starts[begin : begin + chunk], sigmas=sigmas, walks=walks, should_stop=should_stop
            )
            if on_progress:
                on_progress(len(estimates), len(starts), getattr(source, "requests", 0))
    finally:
        if live:
            source.close()
    primary = decay_solve(graph.decay_graph, sigma=sigmas[0])
    pages = walked_pages(graph, scored, estimates, sigmas=sigmas, walks=walks, primary=primary)
    ours, paper = _means_of(pages, sigmas)
    return DecayResult(
        method="walk",
        sigmas=sigmas,
        pages=pages,
        fix_first=fix_targets(graph, primary),
        fetches=getattr(source, "requests", 0) + expansion.requests,
        seconds=time.monotonic() - started,
        walks=walks,
        mean_decay=ours,
        paper_means=paper,
        external=expansion.summary(),
    )


def decay_url(*, url: str, sigmas: list[float], walks: int, seed: int = 0) -> DecayResult:
    """Score one page live, with no crawl (the paper's use): walks fetch every page they reach, once each."""
    started = time.monotonic()
    normalized = normalize_url(url)
    if normalized is None:
        raise DecayInputError(f"{url!r} is not an http(s) URL with a host.")
    source = LiveGraph(config=CrawlConfig.from_settings(settings, start_url=normalized))
    try:
        start = source.lookup([normalized]).get(normalized)
        if start is None or start.state != LIVE:
            raise DecayInputError(
                f"{url} cannot be scored: it could not be fetched, or it is dead or excluded."
            )
        walker = Walker(source, seed=seed)
        walker.nodes[normalized] = start
        walker.known(start.outlinks)  # every link of the page is judged once, for F and the first steps
        [estimate] = walker.estimate([normalized], sigmas=sigmas, walks=walks)
    finally:
        source.close()
    links = len(start.outlinks)
    dead_links = sum(1 for link in start.outlinks if walker.nodes[link].state == DEAD)
    page = PageDecay(
        url=normalized,
        page_id=None,
        decay={sigma: estimate.decay(sigma) for sigma in sigmas},
        error_bound=estimate.error_bound,
        dead_link_fraction=None if not links else dead_links / links,
        path=[str(u) for u in estimate.example_path],
        dead_ends=[(str(u), count / walks) for u, count in estimate.dead_ends.most_common(TOP_LINKS)],
    )
    fixes = [
        FixTarget(str(target), None, count / walks, False, [normalized])
        for target, count in estimate.dead_ends.most_common()
        if target in start.outlinks
    ]
    return DecayResult(
        method="walk",
        sigmas=sigmas,
        pages=[page],
        fix_first=fixes,
        fetches=source.requests,
        seconds=time.monotonic() - started,
        walks=walks,
        mean_decay={sigma: page.decay[sigma] for sigma in sigmas},
        paper_means=_means_of([page], sigmas)[1],
    )
