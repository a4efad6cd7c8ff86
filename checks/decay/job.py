"""The `decay` analysis job: exact or by walks over a finished crawl, stored per page and σ, in cancellable steps."""

from __future__ import annotations

import time

import numpy as np
from django import forms
from django.conf import settings
from django.db import transaction

from checks.decay.dashboard import decay_latest_job, decay_panel_context
from checks.decay.graph import CrawlGraph, crawl_graph
from checks.decay.live import LiveGraph
from checks.decay.services import (
    DecayResult,
    FixTarget,
    PageDecay,
    decay_exact,
    fix_targets,
    scored_nodes,
    walked_pages,
)
from checks.decay.solver import Kind, decay_solve
from checks.decay.walks import MappingGraph, Node, Walker, WalksStopped
from checks.jobs import JobContext, JobError, JobInputError, JobKind
from checks.models import AnalysisJob, DecayFix, DecayScore, DecayVisit
from sites.crawler.config import CrawlConfig
from sites.models import Page, Verdict

METHODS = ("exact", "walk")
# Start pages walked per saved chunk: 25 pages × 300 walks take ~0.3 s over stored links on the test bed, and a
# chunk that fetches beyond the crawl a few seconds, so progress (and a cancel) lands every few seconds.
WALK_CHUNK = 25


def parse_sigmas(raw) -> list[float]:
    """σ values from a number, a list, or text like "0.1, 0.2"; each strictly between 0 and 1."""
    if isinstance(raw, str):
        items = [item for item in raw.replace(" ", "").split(",") if item]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        items = [raw]
    try:
        values = [float(item) for item in items]
    except (TypeError, ValueError):
        raise JobInputError(f"sigma must be a number between 0 and 1, not {raw!r}") from None
    if not values or not all(0.0 < value < 1.0 for value in values):
        raise JobInputError(f"sigma must be strictly between 0 and 1 (got {raw!r})")
    return list(dict.fromkeys(values))


def decay_parameters(crawl, raw: dict) -> dict:
    method = raw.get("method") or "exact"
    if method not in METHODS:
        raise JobInputError(f"method must be exact or walk, not {method!r}")
    walks = raw.get("walks", settings.WEBAUDIT_DECAY_WALKS)
    if isinstance(walks, bool) or not isinstance(walks, int) or walks < 1:
        raise JobInputError(f"walks must be a whole number of at least 1 (got {walks!r})")
    sigmas = parse_sigmas(raw.get("sigmas", settings.WEBAUDIT_DECAY_SIGMAS))
    live = Page.objects.filter(crawl=crawl, is_internal=True, state=Page.State.DONE, verdict=Verdict.OK)
    if not live.exists():
        raise JobInputError(f"Crawl #{crawl.pk} has no live page: every page is dead, so decay is undefined.")
    return {"method": method, "sigmas": sigmas, "walks": walks, "live": bool(raw.get("live", True))}


class DecayForm(forms.Form):
    method = forms.ChoiceField(choices=[("exact", "Exact"), ("walk", "Random walks")], initial="exact")
    sigmas = forms.CharField(
        label="σ",
        initial=lambda: ", ".join(str(s) for s in settings.WEBAUDIT_DECAY_SIGMAS),
        help_text="Success probabilities, comma-separated; the first ranks the pages.",
    )
    walks = forms.IntegerField(min_value=1, max_value=100_000, initial=lambda: settings.WEBAUDIT_DECAY_WALKS)

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
        "residual": result.residual,
        **extra,
    }


def _exact_step(ctx: JobContext) -> bool:
    params = ctx.parameters
    try:
        result = decay_exact(crawl=ctx.job.crawl, sigmas=params["sigmas"])
    except ValueError as exc:
        raise JobError(str(exc)) from None
    rows = _score_rows(ctx.job, result.pages, params["sigmas"])
    with transaction.atomic():
        DecayScore.objects.bulk_create(rows, batch_size=2000)
        DecayFix.objects.bulk_create(_fix_rows(ctx.job, result.fix_first), batch_size=2000)
        ctx.progress(
            done=len(result.pages), total=len(result.pages), note=f"{len(result.pages):,} pages solved"
        )
    ctx.finish(result=_summary(result, pages=len(result.pages)))
    return True


def _visited(job: AnalysisJob) -> dict[str, Node]:
    return {
        url: Node(state, tuple(outlinks))
        for url, state, outlinks in DecayVisit.objects.filter(job=job).values_list("url", "state", "outlinks")
    }


def _walk_step(ctx: JobContext) -> bool:
    job, params = ctx.job, ctx.parameters
    sigmas, walks = params["sigmas"], params["walks"]
    graph = crawl_graph(crawl=job.crawl)
    if not (graph.kinds == Kind.LIVE).any():
        raise JobError(f"Crawl #{job.crawl_id} has no live page whose links are known: decay is undefined.")
    scored = scored_nodes(graph)
    primary = decay_solve(graph.decay_graph, sigma=sigmas[0])
    known = graph.walk_nodes()
    visited = _visited(job)
    known.update(visited)
    pool = [graph.urls[i] for i in graph.live_indices()]
    source: LiveGraph | MappingGraph
    if params["live"]:
        source = LiveGraph(
            config=CrawlConfig.from_dict(job.crawl.settings), known=known, pool=pool, crawl=job.crawl
        )
    else:
        source = MappingGraph(known)
    cursor = ctx.state.get("next", 0)
    try:
        while cursor < len(scored) and not ctx.time_up():
            # Each chunk has a seed of its own, so a chunk redone after a dead worker walks the same walks.
            walker = Walker(source, seed=job.pk * 1_000_003 + cursor)
            chunk = scored[cursor : cursor + WALK_CHUNK]
            try:
                estimates = walker.estimate(
                    [graph.urls[i] for i in chunk], sigmas=sigmas, walks=walks, should_stop=_cancelled(job)
                )
            except WalksStopped:
                return False  # the job was cancelled: progress() below would raise JobStopped anyway
            pages = walked_pages(graph, chunk, estimates, sigmas=sigmas, walks=walks, primary=primary)
            fresh = getattr(source, "fetched", {})
            with transaction.atomic():
                DecayScore.objects.bulk_create(_score_rows(job, pages, sigmas), batch_size=2000)
                DecayVisit.objects.bulk_create(
                    [
                        DecayVisit(job=job, url=url, state=node.state, outlinks=list(node.outlinks))
                        for url, node in fresh.items()
                        if url not in visited
                    ]
                )
                cursor += len(chunk)
                ctx.state["next"] = cursor
                ctx.state["fetches"] = ctx.state.get("fetches", 0) + getattr(source, "requests", 0)
                ctx.progress(
                    done=cursor,
                    total=len(scored),
                    note=f"{cursor * walks:,} walks · {ctx.state['fetches']:,} fetches",
                )
            visited.update(fresh)
            if isinstance(source, LiveGraph):
                source.requests = 0
                source.known.update(fresh)
                source.fetched = {}
    finally:
        if isinstance(source, LiveGraph):
            source.close()
    if cursor < len(scored):
        return False
    return _walk_finish(ctx, graph, primary)


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
    means = {}
    for sigma in params["sigmas"]:
        values = DecayScore.objects.filter(job=job, sigma=sigma).values_list("decay", flat=True)
        means[sigma] = float(np.mean(list(values))) if values else 0.0
    with transaction.atomic():
        DecayFix.objects.bulk_create(_fix_rows(job, fixes), batch_size=2000)
        ctx.progress(
            done=ctx.state["next"], note=f"{ctx.state.get('fetches', 0):,} fetches; fix-first ranked"
        )
    started = job.started_at.timestamp() if job.started_at else time.time()
    result = DecayResult(
        method="walk",
        sigmas=params["sigmas"],
        pages=[],
        fix_first=fixes,
        fetches=ctx.state.get("fetches", 0),
        seconds=time.time() - started,
        walks=params["walks"],
        mean_decay=means,
    )
    ctx.finish(result=_summary(result, pages=ctx.state["next"], walks=params["walks"]))
    return True


def decay_step(ctx: JobContext) -> bool:
    if ctx.parameters["method"] == "exact":
        return _exact_step(ctx)
    return _walk_step(ctx)


def decay_report(job: AnalysisJob) -> dict:
    """`{"method", "sigma", "fetches", "seconds", "pages": [...], "fix_first": [...]}` at the job's first σ."""
    result = job.result or {}
    sigma = job.parameters["sigmas"][0]
    scores = (
        DecayScore.objects.filter(job=job, sigma=sigma)
        .order_by("-decay", "page_id")
        .values_list("page__url", "decay", "error_bound", "dead_link_fraction")
    )
    return {
        "method": job.parameters["method"],
        "sigma": sigma,
        "fetches": result.get("fetches", 0),
        "seconds": result.get("seconds", 0.0),
        "pages": [
            {"url": url, "decay": decay, "error_bound": bound, "dead_link_fraction": fraction}
            for url, decay, bound, fraction in scores.iterator(chunk_size=5000)
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
    description="How close every page is to dead ends (Bar-Yossef et al.), and which broken links to fix first.",
)
