"""The `decay` analysis job: exact or by walks over a finished crawl, stored per page and σ, in cancellable steps."""

from __future__ import annotations

import time
from dataclasses import asdict

from django import forms
from django.conf import settings
from django.db import transaction

from checks.decay.dashboard import decay_latest_job, decay_panel_context
from checks.decay.external import MAX_EXTERNAL_DEPTH, MAX_FETCHES_LIMIT, crawl_unreachable_hosts, expand
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
from checks.jobs import JobContext, JobError, JobInputError, JobKind, inflight
from checks.jobs.scratch import scratch_delete, scratch_load, scratch_save
from checks.models import AnalysisJob, DecayFix, DecayScore, DecayVisit, JobScratch
from sites.crawler.config import CrawlConfig
from sites.models import Page, Verdict

METHODS = ("exact", "walk")
# Start pages walked per saved chunk: 25 pages × 300 walks take ~0.3 s over stored links on the test bed, and a
# chunk that fetches beyond the crawl a few seconds, so progress (and a cancel) lands every few seconds.
WALK_CHUNK = 25
# The least time a step walks for, however little its budget has left: every step gets on.
MIN_WALK_SECONDS = 0.5
# Pages whose scores (one row per σ) an exact job writes per saved part: ~0.1 ms a row, four σ, so ~0.1 s a
# part, read back alone by the step that writes it.
EXACT_PART = 250


# Documented bounds of every number a user can give a decay run (docs/decay.md): a run is at most
# MAX_WALKS × pages × ~1/σ steps, and σ values, each a full solve or a share of every walk, are few.
MAX_WALKS = 100_000
MAX_SIGMAS = 8
MIN_SIGMA, MAX_SIGMA = 0.001, 0.999


def parse_sigmas(raw) -> list[float]:
    """σ values from a number, a list, or text like "0.1, 0.2"; each in [0.001, 0.999], at most 8."""
    if isinstance(raw, str):
        if len(raw) > 200:
            raise JobInputError("sigma: at most 8 values, like 0.1, 0.2")
        items = [item for item in raw.replace(" ", "").split(",") if item]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        items = [raw]
    try:
        values = [float(item) for item in items if not isinstance(item, bool)]
    except (TypeError, ValueError, OverflowError):
        raise JobInputError(f"sigma must be a number between 0 and 1, not {raw!r}") from None
    if not values or len(values) != len(items):
        raise JobInputError(f"sigma must be a number between 0 and 1, not {raw!r}")
    if not all(MIN_SIGMA <= value <= MAX_SIGMA for value in values):
        raise JobInputError(f"sigma must be between {MIN_SIGMA} and {MAX_SIGMA} (got {raw!r})")
    values = list(dict.fromkeys(values))
    if len(values) > MAX_SIGMAS:
        raise JobInputError(f"at most {MAX_SIGMAS} sigma values a run (got {len(values)})")
    return values


def bounded_int(name: str, value, low: int, high: int) -> int:
    """A whole number in [low, high], or a JobInputError that says the range."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) <= 20:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise JobInputError(f"{name} must be a whole number from {low:,} to {high:,} (got {shown})")
    return value


def decay_parameters(crawl, raw: dict) -> dict:
    method = raw.get("method") or "exact"
    if method not in METHODS:
        raise JobInputError(f"method must be exact or walk, not {method!r}")

    def given(name: str, default):
        value = raw.get(name)
        return default if value is None or value == "" else value

    walks = bounded_int("walks", given("walks", settings.WEBAUDIT_DECAY_WALKS), 1, MAX_WALKS)
    sigmas = parse_sigmas(given("sigmas", settings.WEBAUDIT_DECAY_SIGMAS))
    depth = bounded_int(
        "external depth",
        given("external_depth", settings.WEBAUDIT_DECAY_EXTERNAL_DEPTH),
        0,
        MAX_EXTERNAL_DEPTH,
    )
    max_fetches = bounded_int(
        "max fetches", given("max_fetches", settings.WEBAUDIT_DECAY_MAX_FETCHES), 0, MAX_FETCHES_LIMIT
    )
    live = Page.objects.filter(crawl=crawl, is_internal=True, state=Page.State.DONE, verdict=Verdict.OK)
    if not live.exists():
        raise JobInputError(f"Crawl #{crawl.pk} has no live page: every page is dead, so decay is undefined.")
    return {
        "method": method,
        "sigmas": sigmas,
        "walks": walks,
        "live": bool(raw.get("live", True)),
        "external_depth": depth,
        "max_fetches": max_fetches,
    }


class DecayForm(forms.Form):
    method = forms.ChoiceField(choices=[("exact", "Exact"), ("walk", "Random walks")], initial="exact")
    sigmas = forms.CharField(
        label="σ",
        max_length=200,
        initial=lambda: ", ".join(str(s) for s in settings.WEBAUDIT_DECAY_SIGMAS),
        help_text="Success probabilities, comma-separated; the first ranks the pages.",
    )
    walks = forms.IntegerField(
        min_value=1, max_value=MAX_WALKS, initial=lambda: settings.WEBAUDIT_DECAY_WALKS
    )
    external_depth = forms.IntegerField(
        label="Depth on other sites",
        required=False,
        min_value=0,
        max_value=MAX_EXTERNAL_DEPTH,
        initial=lambda: settings.WEBAUDIT_DECAY_EXTERNAL_DEPTH,
        help_text="0: other sites' pages count as the crawl judged them; 1: the pages this site links to are read "
        "and their links checked.",
    )
    max_fetches = forms.IntegerField(
        label="Most pages fetched",
        required=False,
        min_value=0,
        max_value=MAX_FETCHES_LIMIT,
        initial=lambda: settings.WEBAUDIT_DECAY_MAX_FETCHES,
        help_text="Pages this run may fetch beyond the crawl; past it they count as open.",
    )

    def clean_sigmas(self):
        try:
            return parse_sigmas(self.cleaned_data["sigmas"])
        except JobInputError as exc:
            raise forms.ValidationError(str(exc)) from None


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


def decay_report(job: AnalysisJob) -> dict:
    """`{"method", "sigma", "sigmas", "fetches", "seconds", "mean_decay", "paper_means", "external", "pages": [...],
    "fix_first": [...]}`: each page's "decay" at the first σ and "decay_by_sigma" for every σ the job computed."""
    result = job.result or {}
    sigmas = job.parameters["sigmas"]
    sigma = sigmas[0]
    by_page: dict[int, dict[str, float]] = {}
    for page_id, other, decay in DecayScore.objects.filter(job=job).values_list("page_id", "sigma", "decay"):
        by_page.setdefault(page_id, {})[str(other)] = decay
    scores = (
        DecayScore.objects.filter(job=job, sigma=sigma)
        .order_by("-decay", "page_id")
        .values_list("page_id", "page__url", "decay", "error_bound", "dead_link_fraction")
    )
    return {
        "method": job.parameters["method"],
        "sigma": sigma,
        "sigmas": sigmas,
        "external_depth": job.parameters.get("external_depth", 0),
        "fetches": result.get("fetches", 0),
        "seconds": result.get("seconds", 0.0),
        "mean_decay": result.get("mean_decay", {}),
        "paper_means": result.get("paper_means", {}),
        "external": result.get("external", {}),
        "pages": [
            {
                "url": url,
                "decay": decay,
                "decay_by_sigma": by_page.get(page_id, {}),
                "error_bound": bound,
                "dead_link_fraction": fraction,
            }
            for page_id, url, decay, bound, fraction in scores.iterator(chunk_size=5000)
        ],
        "fix_first": [
            {"target": target, "gain": gain, "linked_from": linked_from}
            for target, gain, linked_from in DecayFix.objects.filter(job=job).values_list(
                "target", "gain", "linked_from"
            )
        ],
    }


def decay_result_context(job: AnalysisJob, request) -> dict:
    return decay_panel_context(job=job, request=request)


def decay_crawl_panel(crawl, request) -> dict | None:
    """The crawl page's decay section: the latest finished decay job's charts, tables and fix-first list."""
    job = decay_latest_job(crawl=crawl)
    return None if job is None else decay_panel_context(job=job, request=request)


# Fixes listed beside the broken pages; the decay section below has them all, paged.
FIXES_BESIDE_TARGETS = 8


def decay_targets_panel(crawl, request) -> dict | None:
    """Beside the crawl page's broken pages: the broken links whose repair lowers the site's decay the most."""
    job = decay_latest_job(crawl=crawl)
    if job is None:
        return None
    fixes = DecayFix.objects.filter(job=job)
    return {
        "decay_job": job,
        "sigma": job.parameters["sigmas"][0],
        "fixes": list(fixes[:FIXES_BESIDE_TARGETS]),
        "fix_count": fixes.count(),
    }


KIND = JobKind(
    name="decay",
    label="Decay",
    scope="crawl",
    clean=decay_parameters,
    step=decay_step,
    report=decay_report,
    form=DecayForm,
    result_template="checks/decay/result.html",
    result_context=decay_result_context,
    crawl_panel=decay_crawl_panel,
    crawl_panel_template="checks/decay/panel.html",
    targets_panel=decay_targets_panel,
    targets_panel_template="checks/decay/targets_panel.html",
    description="How close every page is to dead ends (Bar-Yossef et al.), and which broken links to fix first.",
)
