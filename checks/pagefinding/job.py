"""The `findpage` analysis job: a page search on a site, with live progress, cancel, and its log kept."""

from __future__ import annotations

from django import forms
from django.db import transaction

from checks.jobs import JobKind, inflight
from checks.jobs.context import JobContext, JobError
from checks.jobs.scratch import scratch_delete, scratch_load_all, scratch_save
from checks.models import AnalysisJob

from .algorithms import ALGORITHMS, DEFAULT_ALGORITHM
from .environment import Environment
from .live import StartError
from .records import SearchPaused
from .selectors import findpage_history
from .services import DEFAULT_BUDGET, LIVE_ALGORITHMS, MAX_BUDGET, findpage_parameters, findpage_run

HISTORY = 20  # earlier searches on the site listed under a result


class FindPageForm(forms.Form):
    query = forms.CharField(max_length=300, help_text="The words of the page you are after.")
    start_url = forms.CharField(
        label="Start URL",
        required=False,
        max_length=2000,
        widget=forms.TextInput(attrs={"placeholder": "the site's start page"}),
    )
    # The names alone (LS2F, SIMDEG) say nothing to a site owner; the registry says what each one is.
    algorithm = forms.ChoiceField(
        choices=[(name, f"{name}: {ALGORITHMS[name].description}") for name in LIVE_ALGORITHMS],
        initial=DEFAULT_ALGORITHM,
        help_text=f"{DEFAULT_ALGORITHM} is webaudit's own; the others are the published methods it is compared with.",
    )
    max_downloads = forms.IntegerField(
        label="Download budget", min_value=1, max_value=MAX_BUDGET, initial=DEFAULT_BUDGET
    )


def _progress_note(env: Environment) -> str:
    best = " · ".join(f"{text or url} ({score})" for url, score, text in env.frontier[:3])
    return f"{env.downloads} downloads" + (f" · next: {best}" if best else "")


RECORD = "request:"  # scratch names: one record per request, by its number
IN_FLIGHT = "findpage"  # the request a step left running, parked under this purpose (checks/jobs/inflight.py)


def findpage_step(ctx: JobContext) -> bool:
    """Search until the step's time is up, then stop before the next request; the next step replays the
    requests recorded so far (no request, the same choices) and goes on live (checks/pagefinding/records.py).
    Each request's record is saved with the job's progress as its outcome arrives, so a dead worker loses none.

    A request is waited for only until the step's deadline: one still running then is parked for the job's
    next step in this process, which waits for it instead of asking again; a next step in another process
    asks again and waits for it to its end (else a host slower than the budget would be asked every step)."""
    job = ctx.job
    budget = ctx.parameters["max_downloads"]
    carried = inflight.take(job.pk, IN_FLIGHT)

    def on_record(env: Environment, number: int, record: dict) -> None:
        with transaction.atomic():
            scratch_save(job, f"{RECORD}{number:06d}", record)
            ctx.state["request_running"] = False
            ctx.state["frontier"] = [
                {"url": str(url), "score": score, "text": text} for url, score, text in env.frontier
            ]
            ctx.progress(done=env.downloads + 1, total=budget, note=_progress_note(env))

    def on_diverge(number: int) -> None:
        scratch_delete(job, RECORD, from_name=f"{RECORD}{number:06d}")

    try:
        result = findpage_run(
            site=job.site,
            parameters=ctx.parameters,
            records=list(scratch_load_all(job, RECORD).values()),
            on_record=on_record,
            pause=ctx.time_up,
            on_diverge=on_diverge,
            deadline=ctx.deadline,
            in_flight=carried,
            wait_first=carried is None and ctx.state.get("request_running", False),
        )
    except SearchPaused as paused:
        running = paused.in_flight is not None
        if running != ctx.state.get("request_running", False):
            ctx.state["request_running"] = running
            try:
                ctx.progress(done=ctx.job.progress_done, total=budget)
            except BaseException:
                if running:
                    paused.in_flight.close()
                raise
        if running:
            inflight.park(job.pk, IN_FLIGHT, paused.in_flight)  # the next step waits for it
        return False
    except StartError as exc:
        raise JobError(str(exc)) from None
    # The budget was a ceiling, not the work to do: a search that ends is complete, whatever it spent.
    downloads = result["downloads"]
    outcome = "found the page" if result["found"] else "found nothing"
    ctx.progress(done=downloads, total=downloads, note=f"{outcome} in {downloads} of {budget} downloads")
    ctx.finish(result=result)
    return True


def findpage_report(job: AnalysisJob) -> dict:
    """The CLI's JSON: {"found": URL or null, "downloads": N (every request made), "path": [URL…],
    "algorithm", "candidates": [{"url", "score"}…] (best first; the first is `found` when there is one)}."""
    result = job.result or {}
    return {
        "found": result.get("found"),
        "downloads": result.get("downloads", 0),
        "path": result.get("path", []),
        "algorithm": result.get("algorithm", job.parameters.get("algorithm")),
        "candidates": result.get("candidates", []),
    }


def findpage_result_context(job: AnalysisJob, request) -> dict:
    result = job.result or {}
    path = result.get("path", [])
    texts = result.get("link_texts", [])
    steps = [{"url": url, "text": texts[i - 1] if i else ""} for i, url in enumerate(path)]
    earlier = findpage_history(job=job, limit=HISTORY)
    history = [
        {
            "job": other,
            "query": other.parameters.get("query", ""),
            "found": (other.result or {}).get("found"),
            "downloads": (other.result or {}).get("downloads"),
        }
        for other in earlier
    ]
    return {"result": result, "steps": steps, "query": job.parameters.get("query", ""), "history": history}


KIND = JobKind(
    name="findpage",
    label="Find a page",
    scope="site",
    clean=findpage_parameters,
    step=findpage_step,
    report=findpage_report,
    form=FindPageForm,
    result_template="checks/pagefinding/result.html",
    result_context=findpage_result_context,
    description="Find the page that answers a query, downloading as few pages as possible.",
)
