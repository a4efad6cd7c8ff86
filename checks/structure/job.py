"""The `filter` and `pagetypes` analysis jobs (docs/analysis-jobs.md, docs/structure.md)."""

from __future__ import annotations

from django import forms
from django.db import transaction

from checks.jobs import JobContext, JobInputError, JobKind
from checks.structure import selectors, services, steps
from checks.structure.results import filter_result_context, pagetypes_result_context
from checks.structure.similarity import RELATION_LABELS

# Bodies parsed per saved chunk while backfilling an older crawl: ~2 ms each, so a chunk saves every ~0.5 s.
BACKFILL_CHUNK = 200


def _backfilled(ctx: JobContext) -> bool:
    """Extract the stored bodies that lack a `dom` extract, a chunk at a time; True once none is left."""
    crawl = ctx.job.crawl
    ctx.state.setdefault("phase", "backfill")
    while ctx.state["phase"] == "backfill":
        with transaction.atomic():
            read = services.dom_backfill(crawl=crawl, limit=BACKFILL_CHUNK)
            done = ctx.state["backfilled"] = ctx.state.get("backfilled", 0) + read
            if read == 0:
                ctx.state["phase"] = "analyse"
            ctx.progress(done=done, note=f"{done:,} older pages read for their structure" if done else "")
        if ctx.state["phase"] != "analyse" and ctx.time_up():
            return False
    return True


class FilterForm(forms.Form):
    templates = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Template page URLs, one a line."
    )
    relation = forms.ChoiceField(
        choices=list(RELATION_LABELS.items()), initial="default", label="Compare nodes by"
    )
    threshold = forms.FloatField(required=False, min_value=0, max_value=1, help_text="Empty: calibrated.")
    target_pattern = forms.CharField(
        required=False,
        label="Targets (URL regex)",
        help_text="Optional: the URLs you expect to match; the result then scores its precision (PR) and recall (RR).",
    )


def filter_clean(crawl, raw: dict) -> dict:
    templates = raw.get("templates")
    if isinstance(templates, str):
        raw["templates"] = templates.split()
    return services.filter_parameters(crawl, raw)


def filter_step(ctx: JobContext) -> bool:
    return _backfilled(ctx) and steps.filter_steps(ctx)


def filter_report(job) -> dict:
    rows = selectors.filter_similarities(job=job).values_list("page__url", "similarity", "match")
    return {
        "relation": job.parameters["relation"],
        "threshold": job.result.get("threshold", job.parameters.get("threshold")),
        "templates": job.parameters["templates"],
        "pages": [{"url": url, "similarity": round(score, 4), "match": match} for url, score, match in rows],
    }


def pagetypes_clean(crawl, raw: dict) -> dict:
    if not services.html_pages(crawl).exists():
        raise JobInputError(f"crawl #{crawl.pk} has no HTML pages")
    return {}


def pagetypes_step(ctx: JobContext) -> bool:
    return _backfilled(ctx) and steps.pagetypes_steps(ctx)


def pagetypes_report(job) -> dict:
    members = selectors.pagetype_member_urls(job=job)
    types = [{**entry, "pages": members.get(entry["index"], [])} for entry in job.result.get("types", [])]
    for entry in types:
        entry.pop("template_id", None)
    return {"crawl": job.crawl_id, "types": types}


FILTER = JobKind(
    name="filter",
    label="Structural filter",
    scope="crawl",
    clean=filter_clean,
    step=filter_step,
    report=filter_report,
    form=FilterForm,
    result_template="checks/structure/filter_result.html",
    result_context=filter_result_context,
    description="The pages built like the example pages you give: the same template, the same kind of page.",
)

PAGETYPES = JobKind(
    name="pagetypes",
    label="Page types",
    scope="crawl",
    clean=pagetypes_clean,
    step=pagetypes_step,
    report=pagetypes_report,
    result_template="checks/structure/pagetypes_result.html",
    result_context=pagetypes_result_context,
    description="Groups of structurally alike pages, with their share of broken and soft-404 pages.",
)
