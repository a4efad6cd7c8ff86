"""The `filter` and `pagetypes` analysis jobs (docs/analysis-jobs.md, docs/structure.md)."""

from __future__ import annotations

from django import forms
from django.db import transaction

from checks.jobs import JobContext, JobInputError, JobKind
from checks.structure import services
from checks.structure.models import PageSimilarity, PageTypeMember
from checks.structure.pagetypes import MIN_TYPE_SIZE, page_types, type_name
from checks.structure.results import filter_result_context, pagetypes_result_context
from checks.structure.similarity import RELATION_LABELS, method_for

# Bodies parsed per saved chunk while backfilling an older crawl: ~2 ms each, so a chunk saves every ~0.5 s.
BACKFILL_CHUNK = 200
# Results written per INSERT.
BATCH = 1000
EXAMPLES = 5


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
    target_pattern = forms.CharField(required=False, label="Targets (URL regex)", help_text="For PR/RR.")


def filter_clean(crawl, raw: dict) -> dict:
    templates = raw.get("templates")
    if isinstance(templates, str):
        raw["templates"] = templates.split()
    return services.filter_parameters(crawl, raw)


def filter_step(ctx: JobContext) -> bool:
    if not _backfilled(ctx):
        return False
    job, parameters = ctx.job, ctx.parameters
    # Scoring runs in one go: ~0.3 ms a page (decode, keys, LCS), so a 50,000-page crawl fits one step.
    doms = services.dom_sequences(crawl=job.crawl)
    urls = services.page_urls(crawl=job.crawl, page_ids=doms)
    scores, summary = services.filter_evaluate(
        crawl=job.crawl, parameters=parameters, doms=doms, page_urls=urls
    )
    threshold = summary["threshold"]
    with transaction.atomic():
        PageSimilarity.objects.filter(job=job).delete()
        rows = [
            PageSimilarity(job=job, page_id=pid, similarity=round(score, 6), match=score >= threshold)
            for pid, score in scores.items()
        ]
        PageSimilarity.objects.bulk_create(rows, batch_size=BATCH)
        ctx.progress(
            done=len(rows), total=len(rows), note=f"{summary['matches']:,} of {len(rows):,} pages match"
        )
    ctx.finish(result=summary)
    return True


def filter_report(job) -> dict:
    rows = (
        PageSimilarity.objects.filter(job=job)
        .order_by("-similarity", "page_id")
        .values_list("page__url", "similarity", "match")
    )
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
    if not _backfilled(ctx):
        return False
    job = ctx.job
    doms = services.dom_sequences(crawl=job.crawl)
    # Page types group by the unweighted blocks: a weight per key depends on the crawl's mix of types, and
    # the grouping threshold (0.5, pagetypes.TYPE_THRESHOLD) was measured on these (docs/structure.md).
    sequences = services.keyed(method_for("blocks"), doms)
    types = page_types(sequences)
    urls = services.page_urls(crawl=job.crawl, page_ids=sequences)
    titles = services.page_titles(crawl=job.crawl)
    summary, rows, other = [], [], []
    for page_type in types:
        if page_type.size < MIN_TYPE_SIZE:
            other.extend(page_type.members)
            continue
        index = len(summary)
        rows += [PageTypeMember(job=job, page_id=pid, type_index=index) for pid in page_type.members]
        summary.append(
            {
                "index": index,
                "name": type_name(
                    [urls[pid] for pid in page_type.members],
                    [titles.get(pid, "") for pid in page_type.members],
                ),
                "size": page_type.size,
                "template": urls[page_type.leader],
                "template_id": page_type.leader,
                "examples": [urls[pid] for pid in page_type.members[:EXAMPLES]],
                **services.type_shares(page_type.members),
            }
        )
    if other:
        index = len(summary)
        rows += [PageTypeMember(job=job, page_id=pid, type_index=index) for pid in other]
        summary.append(
            {
                "index": index,
                "size": len(other),
                "template": None,
                "template_id": None,
                "examples": [urls[pid] for pid in other[:EXAMPLES]],
                "other": True,
                **services.type_shares(other),
            }
        )
    with transaction.atomic():
        PageTypeMember.objects.filter(job=job).delete()
        PageTypeMember.objects.bulk_create(rows, batch_size=BATCH)
        ctx.progress(done=len(rows), total=len(rows), note=f"{len(summary)} page types")
    ctx.finish(result={"types": summary, "pages": len(rows)})
    return True


def pagetypes_report(job) -> dict:
    members: dict[int, list[str]] = {}
    for index, url in PageTypeMember.objects.filter(job=job).values_list("type_index", "page__url"):
        members.setdefault(index, []).append(url)
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
    description="Pages whose structure matches template pages (docs/structure.md).",
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
