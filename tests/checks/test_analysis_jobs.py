"""Analysis jobs: started with checked parameters, worked in steps that save their cursor, cancellable at any
point, resumed after a dead worker, never worked twice at once (docs/analysis-jobs.md)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from checks.jobs import JobInputError, job_cancel, job_run, job_start, job_step, jobs_resume_stalled
from checks.jobs.context import JobContext, JobStopped
from checks.jobs.scratch import scratch_delete, scratch_load_all, scratch_save
from checks.models import AnalysisJob
from sites.models import Crawl
from tests.sites.factories import make_crawl, make_page

pytestmark = pytest.mark.django_db


def crawl_with_pages(count: int = 5, **fields) -> Crawl:
    crawl = make_crawl(**fields)
    for number in range(count):
        make_page(crawl, url=f"{crawl.site.url}p{number}.html")
    return crawl


def test_a_job_runs_to_its_end_in_steps_and_keeps_its_result(pagecount_kind):
    crawl = crawl_with_pages(5)
    job = job_start(kind=pagecount_kind, crawl=crawl, parameters={"chunk": 2}, enqueue=False)
    assert job.status == AnalysisJob.Status.QUEUED and job.site == crawl.site

    seen = []
    job = job_run(job=job, on_progress=lambda j: seen.append((j.status, j.progress_done)))

    assert job.status == AnalysisJob.Status.FINISHED
    assert job.result == {"pages": 5, "chunks": 3}
    assert (job.progress_done, job.progress_total) == (5, 5)
    assert job.started_at and job.finished_at and job.step_token is None
    assert seen[-1] == ("finished", 5)


def test_a_step_hands_over_when_its_time_is_up_and_the_next_goes_on_from_the_cursor(pagecount_kind):
    crawl = crawl_with_pages(4)
    job = job_start(kind=pagecount_kind, crawl=crawl, parameters={"chunk": 1}, enqueue=False)

    assert job_step(job_id=job.pk, budget_seconds=0.000001) is True  # one chunk, then time is up
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.RUNNING and job.state["counted"] == 1 and job.step_token is None

    while job_step(job_id=job.pk, budget_seconds=0.000001):
        pass
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.FINISHED and job.result["pages"] == 4


@pytest.mark.parametrize(
    ("parameters", "message"),
    [({"chunk": 0}, "chunk must be"), ({"chunk": "two"}, "chunk must be")],
)
def test_bad_parameters_are_refused_before_a_job_exists(pagecount_kind, parameters, message):
    crawl = crawl_with_pages(1)
    with pytest.raises(JobInputError, match=message):
        job_start(kind=pagecount_kind, crawl=crawl, parameters=parameters, enqueue=False)
    assert not AnalysisJob.objects.exists()


def test_an_unfinished_crawl_or_an_unknown_kind_is_refused(pagecount_kind):
    running = crawl_with_pages(1, status=Crawl.Status.RUNNING)
    with pytest.raises(JobInputError, match="is running"):
        job_start(kind=pagecount_kind, crawl=running, enqueue=False)
    with pytest.raises(JobInputError, match="no analysis called 'nonsense'"):
        job_start(kind="nonsense", crawl=crawl_with_pages(1), enqueue=False)
    with pytest.raises(JobInputError, match="none was given"):
        job_start(kind=pagecount_kind, site=running.site, enqueue=False)


def test_a_failure_the_user_should_read_and_a_bug_both_end_the_job_with_a_message(pagecount_kind):
    crawl = crawl_with_pages(2)
    told = job_run(
        job=job_start(kind=pagecount_kind, crawl=crawl, parameters={"fail": "user"}, enqueue=False)
    )
    assert told.status == AnalysisJob.Status.FAILED and told.error == "the crawl has nothing to count"
    bug = job_run(job=job_start(kind=pagecount_kind, crawl=crawl, parameters={"fail": "bug"}, enqueue=False))
    assert bug.status == AnalysisJob.Status.FAILED
    assert bug.error == "Internal error: ZeroDivisionError: division by zero"


def test_cancelling_stops_the_next_step_and_keeps_what_was_saved(pagecount_kind):
    crawl = crawl_with_pages(6)
    job = job_start(kind=pagecount_kind, crawl=crawl, parameters={"chunk": 2}, enqueue=False)
    job_step(job_id=job.pk, budget_seconds=0.000001)
    assert job_cancel(job=job) is True
    assert job_step(job_id=job.pk) is False
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.CANCELLED and job.state["counted"] == 2
    assert job_cancel(job=job) is False  # already ended


def test_a_chunk_cancelled_while_in_progress_is_rolled_back(pagecount_kind):
    crawl = crawl_with_pages(3)
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    token = uuid.uuid4()
    AnalysisJob.objects.filter(pk=job.pk).update(step_token=token, status="running")
    context = JobContext(AnalysisJob.objects.get(pk=job.pk), token=token, budget_seconds=10)
    job_cancel(job=job)
    with pytest.raises(JobStopped), transaction.atomic():
        make_page(crawl, url="https://written.in.the.chunk/")
        context.state["counted"] = 99
        context.progress(done=99)
    job.refresh_from_db()
    assert job.state == {} and job.progress_done == 0
    assert not crawl.pages.filter(url="https://written.in.the.chunk/").exists()


def test_a_second_message_for_a_job_a_live_step_holds_does_nothing(pagecount_kind):
    crawl = crawl_with_pages(3)
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    AnalysisJob.objects.filter(pk=job.pk).update(
        step_token=uuid.uuid4(), status="running", heartbeat_at=timezone.now()
    )
    assert job_step(job_id=job.pk) is False
    job.refresh_from_db()
    assert job.state == {} and job.status == AnalysisJob.Status.RUNNING


def test_a_step_retried_with_its_own_token_takes_its_job_back(pagecount_kind):
    crawl = crawl_with_pages(2)
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    token = uuid.uuid4()
    AnalysisJob.objects.filter(pk=job.pk).update(
        step_token=token, status="running", heartbeat_at=timezone.now()
    )
    assert job_step(job_id=job.pk, token=str(token)) is False  # finished in one step
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.FINISHED


def test_a_stalled_job_is_resumed_once_and_its_old_step_finds_it_taken(
    pagecount_kind, django_capture_on_commit_callbacks
):
    crawl = crawl_with_pages(3)
    stalled = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    old_token = uuid.uuid4()
    long_ago = timezone.now() - timedelta(minutes=10)
    AnalysisJob.objects.filter(pk=stalled.pk).update(
        step_token=old_token, status="running", heartbeat_at=long_ago
    )
    fresh = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    AnalysisJob.objects.filter(pk=fresh.pk).update(status="running", heartbeat_at=timezone.now())

    with django_capture_on_commit_callbacks() as enqueued:
        assert jobs_resume_stalled() == [stalled.pk]
        assert jobs_resume_stalled() == []  # its heartbeat was touched
    assert len(enqueued) == 1

    old_step = JobContext(AnalysisJob.objects.get(pk=stalled.pk), token=old_token, budget_seconds=10)
    with pytest.raises(JobStopped):
        old_step.progress(done=1)
    assert job_run(job=stalled).status == AnalysisJob.Status.FINISHED


def test_a_queued_job_whose_message_was_lost_is_resumed(pagecount_kind, django_capture_on_commit_callbacks):
    job = job_start(kind=pagecount_kind, crawl=crawl_with_pages(1), enqueue=False)
    AnalysisJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    with django_capture_on_commit_callbacks():
        assert jobs_resume_stalled() == [job.pk]


def test_jobs_are_visible_to_the_users_who_may_see_their_site(pagecount_kind):
    crawl = crawl_with_pages(1)
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    stranger = make_crawl().site.owner
    assert list(AnalysisJob.objects.visible_to(crawl.site.owner)) == [job]
    assert list(AnalysisJob.objects.visible_to(stranger)) == []


def test_deleting_the_crawl_deletes_its_jobs(pagecount_kind):
    crawl = crawl_with_pages(1)
    job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    crawl.delete()
    assert not AnalysisJob.objects.exists()


def test_a_numbered_scratch_series_is_cut_from_a_name_on_and_the_rest_kept(pagecount_kind):
    job = job_start(kind=pagecount_kind, crawl=crawl_with_pages(1), parameters={}, enqueue=False)
    for number in range(4):
        scratch_save(job, f"record:{number:06d}", {"n": number})
    scratch_save(job, "other", {"kept": True})
    scratch_delete(job, "record:", from_name="record:000002")
    assert list(scratch_load_all(job, "record:").values()) == [{"n": 0}, {"n": 1}]
    assert scratch_load_all(job, "other") == {"other": {"kept": True}}
