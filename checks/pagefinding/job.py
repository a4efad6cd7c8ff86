"""The `findpage` analysis job: a page search on a site, with live progress, cancel, and its log kept."""

from __future__ import annotations

from django import forms

from checks.jobs import JobKind
from checks.jobs.context import JobContext, JobError
from checks.models import AnalysisJob

from .algorithms import DEFAULT_ALGORITHM
from .environment import Environment
from .live import StartError
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
    algorithm = forms.ChoiceField(
        choices=[(name, name) for name in LIVE_ALGORITHMS], initial=DEFAULT_ALGORITHM
    )
    max_downloads = forms.IntegerField(
        label="Download budget", min_value=1, max_value=MAX_BUDGET, initial=DEFAULT_BUDGET
    )


def _progress_note(env: Environment) -> str:
    best = " · ".join(f"{text or url} ({score})" for url, score, text in env.frontier[:3])
    return f"{env.downloads} downloads" + (f" · next: {best}" if best else "")


def findpage_step(ctx: JobContext) -> bool:
    """A search is one step: its frontier lives in memory, and a search taken over by another worker
    starts again. Every download saves progress (the heartbeat) and the frontier's best candidates."""
    budget = ctx.parameters["max_downloads"]

    def on_download(env: Environment) -> None:
        ctx.state["frontier"] = [
            {"url": str(url), "score": score, "text": text} for url, score, text in env.frontier
        ]
        ctx.progress(done=env.downloads, total=budget, note=_progress_note(env))

    try:
        result = findpage_run(site=ctx.job.site, parameters=ctx.parameters, on_download=on_download)
    except StartError as exc:
        raise JobError(str(exc)) from None
    # The budget was a ceiling, not the work to do: a search that ends is complete, whatever it spent.
    downloads = result["downloads"]
    outcome = "found the page" if result["found"] else "found nothing"
    ctx.progress(done=downloads, total=downloads, note=f"{outcome} in {downloads} of {budget} downloads")
    ctx.finish(result=result)
    return True


def findpage_report(job: AnalysisJob) -> dict:
    """The CLI's JSON: {"found": URL or null, "downloads": N, "path": [URL…], "algorithm"}."""
    result = job.result or {}
    return {
        "found": result.get("found"),
        "downloads": result.get("downloads", 0),
        "path": result.get("path", []),
        "algorithm": result.get("algorithm", job.parameters.get("algorithm")),
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
