"""The steps of the `decay` job (checks/decay/job.py): other sites' pages read to the job's depth, then the
exact solve in phases or the walks in chunks, each saved so that a step redone or a dead worker's job resumes
(docs/analysis-jobs.md, docs/decay.md)."""

from __future__ import annotations

import time
from dataclasses import asdict

from django.conf import settings
from django.db import transaction

from checks.decay.external import crawl_unreachable_hosts, expand
from checks.decay.graph import (
    CrawlGraph,
    crawl_graph,
    crawl_scope,
    graph_compact,
    graph_from_compact,
    with_fetched,
)
from checks.decay.live import LiveGraph
from checks.decay.services import (
    DecayResult,
    FixTarget,
    PageDecay,
    decay_exact,
    fix_targets,
    scored_nodes,
    site_means,
    walk_source,
    walked_pages,
)
from checks.decay.solver import Kind, decay_solve
from checks.decay.walks import Node, Walker, WalksStopped
from checks.jobs import JobContext, JobError, inflight
from checks.jobs.scratch import scratch_delete, scratch_load, scratch_save
from checks.models import AnalysisJob, DecayFix, DecayScore, DecayVisit, JobScratch
from sites.crawler.config import CrawlConfig

# Start pages walked per saved chunk: 25 pages × 300 walks take ~0.3 s over stored links on the test bed, and a
# chunk that fetches beyond the crawl a few seconds, so progress (and a cancel) lands every few seconds.
WALK_CHUNK = 25
# The least time a step walks for, however little its budget has left: every step gets on.
MIN_WALK_SECONDS = 0.5
# Pages whose scores (one row per σ) an exact job writes per saved part: ~0.1 ms a row, four σ, so ~0.1 s a
# part, read back alone by the step that writes it.
EXACT_PART = 250


def _score_rows(job: AnalysisJob, pages: list[PageDecay], sigmas: list[float]) -> list[DecayScore]:
    return [
        DecayScore(
            job=job,
            page_id=page.page_id,
            sigma=sigma,
            decay=page.decay[sigma],
            dead_link_fraction=page.dead_link_fraction,
            error_bound=page.error_bound,
            path=page.path if sigma == sigmas[0] else [],
            dead_ends=[list(pair) for pair in page.dead_ends] if sigma == sigmas[0] else [],
        )
        for page in pages
        for sigma in sigmas
    ]


def _fix_rows(job: AnalysisJob, fixes: list[FixTarget]) -> list[DecayFix]:
    return [
        DecayFix(
            job=job,
            rank=rank,
            target=fix.target,
            page_id=fix.page_id,
            gain=fix.gain,
            exact=fix.exact,
            linked_from=fix.linked_from,
        )
        for rank, fix in enumerate(fixes, start=1)
    ]


def _summary(result: DecayResult, **extra) -> dict:
    return {
        "method": result.method,
        "sigmas": result.sigmas,
        "fetches": result.fetches,
        "seconds": round(result.seconds, 3),
        "mean_decay": {str(sigma): value for sigma, value in result.mean_decay.items()},
        "paper_means": result.paper_means,
        "external": result.external,
        "residual": result.residual,
        **extra,
    }


def _visited(job: AnalysisJob) -> dict[str, Node]:
    return {
        url: Node(state, tuple(outlinks))
        for url, state, outlinks in DecayVisit.objects.filter(job=job).values_list("url", "state", "outlinks")
    }


def _save_visits(job: AnalysisJob, fresh: dict[str, Node], saved: dict[str, Node]) -> None:
    """Keep fetched pages so that no later step fetches them again; a URL already kept is not written twice."""
    DecayVisit.objects.bulk_create(
        [
            DecayVisit(job=job, url=url, state=node.state, outlinks=[str(link) for link in node.outlinks])
            for url, node in fresh.items()
            if url not in saved
        ],
        batch_size=2000,
    )
    saved.update(fresh)


def _split_visits(graph: CrawlGraph, visited: dict[str, Node]) -> tuple[dict[str, Node], dict[str, Node]]:
    """(other sites' pages read before solving or walking, pages of the site live walks fetched)."""
    outside = {url: node for url, node in visited.items() if not graph.scope_contains(url)}
    return outside, {url: node for url, node in visited.items() if url not in outside}


def _graph(ctx: JobContext) -> tuple[CrawlGraph | None, CrawlGraph, dict[str, Node]]:
    """Step 1 (and more if it takes longer than a step): read other sites' pages to the job's depth, saving what
    is fetched as it goes. Then the graph both methods use: (None while unfinished, the crawl's graph, visits)."""
    job, params = ctx.job, ctx.parameters
    base = crawl_graph(crawl=job.crawl)
    if not (base.kinds == Kind.LIVE).any():
        raise JobError(f"Crawl #{job.crawl_id} has no live page whose links are known: decay is undefined.")
    visited = _visited(job)
    outside, _ = _split_visits(base, visited)
    depth = params.get("external_depth", 0)
    if depth > 0 and not ctx.state.get("expanded"):
        expansion = expand(
            base,
            config=CrawlConfig.from_dict(job.crawl.settings),
            depth=depth,
            max_fetches=params.get("max_fetches", settings.WEBAUDIT_DECAY_MAX_FETCHES),
            known=outside,
            deadline=ctx.deadline,
            unreachable=crawl_unreachable_hosts(job.crawl),
            in_flight=(carried := inflight.take(job.pk, "external")),
            # What a step in another process left running is asked again, and waited for to its end this time.
            wait_first=carried is None and ctx.state.get("external_running", False),
        )
        if expansion.in_flight is not None:
            inflight.park(job.pk, "external", expansion.in_flight)  # the next step waits for them
        with transaction.atomic():
            _save_visits(job, expansion.nodes, visited)
            ctx.state["external_requests"] = ctx.state.get("external_requests", 0) + expansion.requests
            ctx.state["fetches"] = ctx.state.get("fetches", 0) + expansion.requests
            ctx.state["external_running"] = expansion.in_flight is not None
            if expansion.done:
                ctx.state["expanded"] = True
                ctx.state["external"] = {
                    **expansion.summary(),
                    "external_requests": ctx.state["external_requests"],
                }
            ctx.progress(
                done=0,
                note=f"{len(expansion.nodes):,} pages of other sites fetched ({expansion.read:,} read)",
            )
        if not expansion.done:
            return None, base, visited
        outside = expansion.nodes
    return with_fetched(base, outside), base, visited


def _exact_step(ctx: JobContext) -> bool:
    """Three phases, none sharing a step with the one before: `graph` reads the crawl's graph (after other sites'
    pages, to the job's depth) and keeps it as compact arrays; `solve` solves it for every σ and keeps the
    solution in parts of EXACT_PART pages; `write` writes the rows a part at a time, as the walks do. On 10,000
    pages reading the graph and solving took 2.1 s in one step, its rows 3.5 s more (docs/benchmarks.md)."""
    phase = ctx.state.get("phase", "graph")
    kept = set(
        JobScratch.objects.filter(job=ctx.job, name__startswith="exact:").values_list("name", flat=True)
    )
    solution_kept = any(name.startswith(EXACT_PAGES) for name in kept)
    if phase == "write" and solution_kept:
        return _exact_write(ctx)
    if phase in ("solve", "write") and EXACT_GRAPH in kept:
        if not _exact_solve(ctx) or ctx.time_up():
            return False
        return _exact_write(ctx)
    _exact_read(ctx)
    return False


EXACT_GRAPH = "exact:graph"
EXACT_PAGES = "exact:pages:"


def _exact_read(ctx: JobContext) -> None:
    """The graph the solve needs, kept for the next step: the crawl's pages and links plus other sites' pages."""
    graph, _, _ = _graph(ctx)
    if graph is None:
        return  # other sites' pages still being read: the next step goes on
    compact = graph_compact(graph)
    with transaction.atomic():
        scratch_save(ctx.job, EXACT_GRAPH, compact)
        ctx.state.update(phase="solve")
        ctx.progress(done=0, note=f"graph read: {len(graph.urls):,} nodes, {len(graph.sources):,} links")


def _exact_solve(ctx: JobContext) -> bool:
    params, job = ctx.parameters, ctx.job
    graph = graph_from_compact(scratch_load(job, EXACT_GRAPH), scope=crawl_scope(job.crawl))
    try:
        result = decay_exact(crawl=job.crawl, sigmas=params["sigmas"], graph=graph)
    except ValueError as exc:
        raise JobError(str(exc)) from None
    result.fetches = ctx.state.get("fetches", 0)
    result.external = ctx.state.get("external", {})
    pages = [
        [
            page.page_id,
            list(page.decay.items()),
            page.error_bound,
            page.dead_link_fraction,
            page.path,
            [list(pair) for pair in page.dead_ends],
        ]
        for page in result.pages
    ]
    with transaction.atomic():
        scratch_delete(job, EXACT_PAGES)
        for part, start in enumerate(range(0, len(pages), EXACT_PART)):
            scratch_save(job, f"{EXACT_PAGES}{part:06d}", pages[start : start + EXACT_PART])
        scratch_save(job, "exact:fixes", [asdict(fix) for fix in result.fix_first])
        scratch_save(job, "exact:summary", _summary(result, pages=len(result.pages)))
        ctx.state.update(phase="write", part=0, written=0, pages=len(pages))
        ctx.progress(done=0, total=len(pages), note=f"{len(pages):,} pages solved")
    return True


def _exact_write(ctx: JobContext) -> bool:
    job, sigmas, total = ctx.job, ctx.parameters["sigmas"], ctx.state["pages"]
    while ctx.state["written"] < total:
        if ctx.time_up():
            return False
        part = scratch_load(job, f"{EXACT_PAGES}{ctx.state['part']:06d}", [])
        pages = [
            PageDecay(
                url="",
                page_id=page_id,
                decay=dict(decay),
                error_bound=bound,
                dead_link_fraction=fraction,
                path=path,
                dead_ends=[tuple(pair) for pair in dead_ends],
            )
            for page_id, decay, bound, fraction, path, dead_ends in part
        ]
        with transaction.atomic():
            # A part redone (a worker died after this commit) writes the same rows again: replace, never collide.
            DecayScore.objects.filter(job=job, page_id__in=[page.page_id for page in pages]).delete()
            DecayScore.objects.bulk_create(_score_rows(job, pages, sigmas), batch_size=2000)
            ctx.state["part"] += 1
            ctx.state["written"] += len(pages)
            ctx.progress(
                done=ctx.state["written"], total=total, note=f"{ctx.state['written']:,} pages written"
            )
    fixes = [FixTarget(**fix) for fix in scratch_load(job, "exact:fixes", [])]
    with transaction.atomic():
        DecayFix.objects.filter(job=job).delete()
        DecayFix.objects.bulk_create(_fix_rows(job, fixes), batch_size=2000)
        ctx.progress(done=total, total=total, note=f"{total:,} pages solved")
    ctx.finish(result=scratch_load(job, "exact:summary"))
    return True


def _walk_step(ctx: JobContext) -> bool:
    job, params = ctx.job, ctx.parameters
    sigmas, walks = params["sigmas"], params["walks"]
    graph, _, visited = _graph(ctx)
    if graph is None:
        return False
    scored = scored_nodes(graph)
    primary = decay_solve(graph.decay_graph, sigma=sigmas[0])
    _, inside = _split_visits(graph, visited)
    carried = inflight.take(job.pk, "live")
    if not params["live"] and carried is not None:
        carried.session.close()
    source = walk_source(job.crawl, graph, live=params["live"], known=inside, in_flight=carried)
    if isinstance(source, LiveGraph):
        # What a step in another process left running is asked again, and waited for to its end this time.
        source.wait_first = carried is None and ctx.state.get("live_running", False)
    # Walks stop at the step's deadline, or half a budget from now if reading the graph took the step's time (so
    # that a step always gets on): a step returns within about twice its budget.
    deadline = max(ctx.deadline, time.monotonic() + max(ctx.budget_seconds / 2, MIN_WALK_SECONDS))
    if isinstance(source, LiveGraph):
        source.deadline = deadline
    cursor = ctx.state.get("next", 0)
    chunk_size = ctx.state.get("chunk", WALK_CHUNK)
    saved_any = False
    try:
        while cursor < len(scored) and (not saved_any or time.monotonic() < ctx.deadline):
            # Each chunk has a seed of its own, so a chunk redone after a dead worker walks the same walks.
            walker = Walker(source, seed=job.pk * 1_000_003 + cursor)
            chunk = scored[cursor : cursor + chunk_size]
            try:
                estimates = walker.estimate(
                    [graph.urls[i] for i in chunk],
                    sigmas=sigmas,
                    walks=walks,
                    should_stop=_stop_check(job, deadline),
                )
            except WalksStopped:
                # Cancelled, or the step's time is up: keep what was fetched, not the unfinished chunk, and walk
                # smaller chunks if not even one fitted in a step.
                with transaction.atomic():
                    _save_visits(job, getattr(source, "fetched", {}), visited)
                    if not saved_any:
                        ctx.state["chunk"] = max(1, chunk_size // 2)
                    ctx.state["live_running"] = getattr(source, "fetches_running", False)
                    ctx.progress(done=cursor, total=len(scored), note=f"{cursor * walks:,} walks")
                return False
            pages = walked_pages(graph, chunk, estimates, sigmas=sigmas, walks=walks, primary=primary)
            fresh = getattr(source, "fetched", {})
            page_ids = [page.page_id for page in pages]
            with transaction.atomic():
                DecayScore.objects.filter(job=job, page_id__in=page_ids).delete()  # a chunk redone
                DecayScore.objects.bulk_create(_score_rows(job, pages, sigmas), batch_size=2000)
                _save_visits(job, fresh, visited)
                cursor += len(chunk)
                ctx.state["next"] = cursor
                ctx.state["live_running"] = False
                ctx.state["fetches"] = ctx.state.get("fetches", 0) + getattr(source, "requests", 0)
                ctx.progress(
                    done=cursor,
                    total=len(scored),
                    note=f"{cursor * walks:,} walks · {ctx.state['fetches']:,} fetches",
                )
            saved_any = True
            if isinstance(source, LiveGraph):
                source.requests = 0
                source.known.update(fresh)
                source.fetched = {}
    finally:
        if isinstance(source, LiveGraph):
            if source.fetches_running:
                inflight.park(job.pk, "live", source.in_flight)  # the next step waits for them
            else:
                source.close()
    if cursor < len(scored):
        return False
    return _walk_finish(ctx, graph, primary)


def _stop_check(job: AnalysisJob, deadline: float):
    """True once the job is cancelled or the step has used its time (a chunk that does not fit is stopped, not
    finished)."""
    cancelled = _cancelled(job)
    return lambda: time.monotonic() >= deadline or cancelled()


def _cancelled(job: AnalysisJob):
    last = [time.monotonic()]

    def check() -> bool:
        # A query every second at most: walks advance in rounds of a few milliseconds.
        if time.monotonic() - last[0] < 1.0:
            return False
        last[0] = time.monotonic()
        return not AnalysisJob.objects.filter(pk=job.pk, status__in=AnalysisJob.ACTIVE).exists()

    return check


def _walk_finish(ctx: JobContext, graph: CrawlGraph, primary) -> bool:
    job, params = ctx.job, ctx.parameters
    fixes = fix_targets(graph, primary)
    sigmas = params["sigmas"]
    live_ids = {graph.page_ids[i] for i in scored_nodes(graph) if graph.kinds[i] == Kind.LIVE}
    by_page: dict[int, dict] = {}
    rows = DecayScore.objects.filter(job=job).values_list("page_id", "sigma", "decay", "dead_link_fraction")
    for page_id, sigma, decay, fraction in rows.iterator(chunk_size=5000):
        entry = by_page.setdefault(page_id, {"decay": {}, "fraction": fraction})
        entry["decay"][sigma] = decay
    means, paper = site_means(
        ((page_id in live_ids, entry["decay"], entry["fraction"]) for page_id, entry in by_page.items()),
        sigmas,
    )
    with transaction.atomic():
        DecayFix.objects.filter(job=job).delete()  # a finish redone
        DecayFix.objects.bulk_create(_fix_rows(job, fixes), batch_size=2000)
        ctx.progress(
            done=ctx.state["next"], note=f"{ctx.state.get('fetches', 0):,} fetches; fix-first ranked"
        )
    started = job.started_at.timestamp() if job.started_at else time.time()
    result = DecayResult(
        method="walk",
        sigmas=sigmas,
        pages=[],
        fix_first=fixes,
        fetches=ctx.state.get("fetches", 0),
        seconds=time.time() - started,
        walks=params["walks"],
        mean_decay=means,
        paper_means=paper,
        external=ctx.state.get("external", {}),
    )
    ctx.finish(result=_summary(result, pages=ctx.state["next"], walks=params["walks"]))
    return True


def decay_step(ctx: JobContext) -> bool:
    if ctx.parameters["method"] == "exact":
        return _exact_step(ctx)
    return _walk_step(ctx)
