"""Filters and page types keep to their step budget: a run in many tiny steps, or with every step redone as after
a lost lease, ends with exactly the result of a run in one step."""

from __future__ import annotations

import pytest

from checks.jobs import job_run, job_start, job_step
from checks.models import AnalysisJob, JobScratch
from checks.structure import steps
from checks.structure.models import PageSimilarity, PageTypeMember
from tests.checks.structure.test_structure_jobs import docs_crawl  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def one_page_chunks(monkeypatch):
    """Chunks start at one page (what a page costs, guessed high): a tiny step then holds one page."""
    monkeypatch.setattr(steps, "SECONDS_A_PAGE", 1.0)
    monkeypatch.setattr(steps, "SECONDS_A_COMPARISON", 1.0)


TINY = 0.001  # seconds: one chunk a step (the clock is read after each)
WHOLE = 1000.0  # seconds: the whole job in one step

FILTERS = {
    "calibrated": {"templates": ["ref3.html"]},
    "labelled": {"templates": ["ref1.html"], "target_pattern": r"/ref\d"},
    "paper relation": {"templates": ["ref1.html", "chapter2.html"], "relation": "rpsa"},
}


def started(kind: str, crawl, root: str, parameters: dict) -> AnalysisJob:
    given = dict(parameters)
    if "templates" in given:
        given["templates"] = [root + path for path in given["templates"]]
    return job_start(kind=kind, crawl=crawl, parameters=given, enqueue=False)


def outcome(job: AnalysisJob) -> tuple:
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.FINISHED, job.error
    if job.kind == "filter":
        rows = set(PageSimilarity.objects.filter(job=job).values_list("page_id", "similarity", "match"))
    else:
        rows = set(PageTypeMember.objects.filter(job=job).values_list("page_id", "type_index"))
    return job.result, rows


def run_in_steps(job: AnalysisJob, *, redo_each: bool) -> int:
    """Run the job step by step with a tiny budget; with `redo_each`, every step is run a second time from the
    cursor and partial results it started from, over the rows it wrote (what a step that took the job over
    from a stalled one meets). Returns how many steps ran."""
    count = 0
    while True:
        cursor = AnalysisJob.objects.get(pk=job.pk).state
        partial = list(JobScratch.objects.filter(job=job).values_list("name", "data"))
        more = job_step(job_id=job.pk, budget_seconds=TINY)
        count += 1
        if not more:
            return count
        if redo_each:
            AnalysisJob.objects.filter(pk=job.pk).update(state=cursor)
            JobScratch.objects.filter(job=job).delete()
            JobScratch.objects.bulk_create(
                JobScratch(job=job, name=name, data=data) for name, data in partial
            )
            assert job_step(job_id=job.pk, budget_seconds=TINY)
            count += 1


@pytest.mark.parametrize("name", list(FILTERS))
def test_a_filter_in_tiny_steps_ends_with_the_result_of_one_step(docs_crawl, name):  # noqa: F811
    crawl, root = docs_crawl
    whole = job_run(job=started("filter", crawl, root, FILTERS[name]), step_seconds=WHOLE)
    stepped = started("filter", crawl, root, FILTERS[name])
    assert run_in_steps(stepped, redo_each=False) > 15  # a page a step, in every phase
    assert outcome(stepped) == outcome(whole)


def test_page_types_in_tiny_steps_end_with_the_result_of_one_step(docs_crawl):  # noqa: F811
    crawl, root = docs_crawl
    whole = job_run(job=started("pagetypes", crawl, root, {}), step_seconds=WHOLE)
    stepped = started("pagetypes", crawl, root, {})
    assert run_in_steps(stepped, redo_each=False) > 15
    result, rows = outcome(stepped)
    assert (result, rows) == outcome(whole)
    assert len(rows) == 15 and len(result["types"]) >= 2


@pytest.mark.parametrize(
    ("kind", "name"), [("filter", "labelled"), ("filter", "calibrated"), ("pagetypes", None)]
)
def test_every_step_redone_as_after_a_lost_lease_writes_no_row_twice(docs_crawl, kind, name):  # noqa: F811
    crawl, root = docs_crawl
    # "calibrated" scores every page twice (the default's feedback rule): its second pass is redone too.
    parameters = FILTERS[name] if kind == "filter" else {}
    whole = job_run(job=started(kind, crawl, root, parameters), step_seconds=WHOLE)
    redone = started(kind, crawl, root, parameters)
    run_in_steps(redone, redo_each=True)  # no IntegrityError on the unique (job, page) rows
    assert outcome(redone) == outcome(whole)
    # The partial results kept between steps go with the job's end.
    assert not JobScratch.objects.filter(job=redone).exists()
