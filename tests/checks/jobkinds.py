"""A small analysis kind for testing the job machinery itself: count a crawl's pages, a chunk at a time."""

from __future__ import annotations

import time
from dataclasses import replace

from django import forms
from django.db import transaction

from checks.jobs import JobContext, JobError, JobInputError, JobKind
from sites.models import Page


class PageCountForm(forms.Form):
    chunk = forms.IntegerField(min_value=1, initial=2, label="Pages a chunk")


def clean(crawl, raw: dict) -> dict:
    chunk = raw.get("chunk", 2)
    if not isinstance(chunk, int) or chunk < 1:
        raise JobInputError("chunk must be a whole number of at least 1")
    return {"chunk": chunk, "fail": raw.get("fail", ""), "pause": float(raw.get("pause", 0))}


def step(ctx: JobContext) -> bool:
    crawl = ctx.job.crawl
    pages = Page.objects.filter(crawl=crawl).order_by("pk")
    total = pages.count()
    while not ctx.time_up():
        if ctx.parameters["fail"] == "user":
            raise JobError("the crawl has nothing to count")
        if ctx.parameters["fail"] == "bug":
            raise ZeroDivisionError("division by zero")
        chunk = list(pages.filter(pk__gt=ctx.state.get("after", 0)).values_list("pk", flat=True))
        chunk = chunk[: ctx.parameters["chunk"]]
        time.sleep(ctx.parameters["pause"])
        with transaction.atomic():
            ctx.state["after"] = chunk[-1] if chunk else ctx.state.get("after", 0)
            ctx.state["counted"] = ctx.state.get("counted", 0) + len(chunk)
            ctx.state["chunks"] = ctx.state.get("chunks", 0) + 1
            ctx.progress(done=ctx.state["counted"], total=total, note=f"{ctx.state['counted']} pages counted")
        if ctx.state["counted"] >= total:
            ctx.finish(result={"pages": ctx.state["counted"], "chunks": ctx.state["chunks"]})
            return True
    return False


def report(job) -> dict:
    return {"crawl": job.crawl_id, **job.result}


KIND = JobKind(
    name="pagecount",
    label="Page count",
    scope="crawl",
    clean=clean,
    step=step,
    report=report,
    form=PageCountForm,
    description="Counts the crawl's pages (a test kind).",
)


def panel(crawl, request) -> dict | None:
    """A section on the crawl page once the crawl has pages (reusing the ce job's result template)."""
    pages = crawl.pages.count()
    if not pages:
        return None
    result = {"pages": pages, "changed": 0, "unchanged": 0, "kept_previous": 0, "unlisted": 0}
    return {"result": result, "site_id": crawl.site_id}


PANEL_KIND = replace(
    KIND,
    name="pagepanel",
    label="Page panel",
    crawl_panel=panel,
    crawl_panel_template="checks/mwim/job_result.html",
)
