"""The dashboard's analysis jobs: started by the site's owner from the crawl page, watched live, cancelled,
downloaded; invisible to anyone the site is not shared with."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from checks.jobs import job_report_json, job_run, job_start
from checks.models import AnalysisJob
from sites.models import Crawl
from tests.sites.factories import body, make_crawl, make_page, make_site, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def crawl(owner):
    crawl = make_crawl(make_site(owner=owner))
    for number in range(3):
        make_page(crawl, url=f"{crawl.site.url}p{number}.html")
    return crawl


def test_the_crawl_page_offers_each_analysis_with_its_form(signed_in, crawl, pagecount_kind):
    page = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    assert "Analyses" in page and "Run page count" in page and 'name="chunk"' in page
    assert reverse("checks:job-start", args=[pagecount_kind, crawl.pk]) in page


def test_starting_from_the_form_creates_the_job_and_shows_its_page(signed_in, crawl, pagecount_kind):
    response = signed_in.post(reverse("checks:job-start", args=[pagecount_kind, crawl.pk]), {"chunk": "2"})
    job = AnalysisJob.objects.get()
    assert response.status_code == 302 and response.url == reverse("checks:job", args=[job.pk])
    assert job.parameters["chunk"] == 2 and job.requested_by.username == "olivia"
    page = body(signed_in.get(response.url))
    assert "Page count #" in page and "Waiting for a worker" in page and "every 2s" in page


def test_an_invalid_form_starts_nothing_and_says_why(signed_in, crawl, pagecount_kind):
    response = signed_in.post(
        reverse("checks:job-start", args=[pagecount_kind, crawl.pk]), {"chunk": "-4"}, follow=True
    )
    assert not AnalysisJob.objects.exists()
    assert "Pages a chunk: Ensure this value is greater than or equal to 1." in body(response)


def test_a_refused_form_comes_back_with_what_was_typed_and_its_error_once(signed_in, crawl, pagecount_kind):
    crawl_page = reverse("sites:crawl", args=[crawl.pk])
    signed_in.post(reverse("checks:job-start", args=[pagecount_kind, crawl.pk]), {"chunk": "-4"})
    page = body(signed_in.get(crawl_page))
    assert 'name="chunk" value="-4"' in page and "greater than or equal to 1" in page
    assert 'name="chunk" value="2"' in body(signed_in.get(crawl_page))  # a fresh form the next time


def test_a_find_a_page_refused_by_its_parameters_keeps_the_query(signed_in, owner):
    site = make_site(owner=owner, url="http://127.0.0.1:9/")
    response = signed_in.post(
        reverse("checks:job-start", args=["findpage", site.pk]),
        {
            "query": "installing packages",
            "start_url": "http://elsewhere.example/",
            "algorithm": "BESTFIRST",
            "max_downloads": "50",
        },
        follow=True,
    )
    page = body(response)
    assert not AnalysisJob.objects.exists() and "is not on the site" in page
    assert 'value="installing packages"' in page and 'value="http://elsewhere.example/"' in page


def test_the_analysis_forms_show_their_help(signed_in, owner):
    site = make_site(owner=owner, url="http://127.0.0.1:9/")
    page = body(signed_in.get(reverse("sites:detail", args=[site.pk])))
    assert "The words of the page you are after." in page
    assert "BESTFIRST: webaudit&#x27;s finder" in page and "LS: the lost sheep</option>" in page


def test_the_crawl_pages_analysis_forms_speak_to_the_user_not_of_the_repository(signed_in, crawl):
    page = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    assert "Template page URLs, one a line." in page and "the URLs you expect to match" in page
    assert "docs/" not in page and "For PR/RR" not in page


def test_an_unfinished_crawl_cannot_be_analysed(signed_in, owner, pagecount_kind):
    running = make_crawl(make_site(owner=owner), status=Crawl.Status.RUNNING)
    response = signed_in.post(
        reverse("checks:job-start", args=[pagecount_kind, running.pk]), {"chunk": "1"}, follow=True
    )
    assert not AnalysisJob.objects.exists()
    assert "needs a finished crawl" in body(response)


def test_an_unknown_kind_is_not_found(signed_in, crawl):
    assert signed_in.post(reverse("checks:job-start", args=["nonsense", crawl.pk])).status_code == 404


def test_strangers_neither_see_nor_start_nor_cancel(client, crawl, pagecount_kind):
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    client.force_login(make_user("mallory"))
    assert client.get(reverse("checks:job", args=[job.pk])).status_code == 404
    assert client.get(reverse("checks:job-progress", args=[job.pk])).status_code == 404
    assert client.post(reverse("checks:job-cancel", args=[job.pk])).status_code == 404
    assert client.post(reverse("checks:job-start", args=[pagecount_kind, crawl.pk])).status_code == 404
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.QUEUED and AnalysisJob.objects.count() == 1


def test_a_user_the_site_is_shared_with_sees_the_job_but_cannot_cancel_it(client, crawl, pagecount_kind):
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    reader = make_user("reader")
    crawl.site.shared_with.add(reader)
    client.force_login(reader)
    page = body(client.get(reverse("checks:job", args=[job.pk])))
    assert "Page count #" in page and "Cancel</button>" not in page
    assert client.post(reverse("checks:job-cancel", args=[job.pk])).status_code == 403
    job.refresh_from_db()
    assert job.is_active


def test_cancel_needs_post_with_csrf(crawl, owner, pagecount_kind):
    from django.test import Client

    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)
    assert strict.get(reverse("checks:job-cancel", args=[job.pk])).status_code == 405
    assert strict.post(reverse("checks:job-cancel", args=[job.pk])).status_code == 403
    job.refresh_from_db()
    assert job.is_active


def test_the_owner_cancels_a_running_job(signed_in, crawl, pagecount_kind):
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    response = signed_in.post(reverse("checks:job-cancel", args=[job.pk]), follow=True)
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.CANCELLED and "cancelled" in body(response)


def test_the_progress_component_polls_while_active_and_reloads_the_page_once_ended(
    signed_in, crawl, pagecount_kind
):
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    url = reverse("checks:job-progress", args=[job.pk]) + "?was_active=1"
    active = signed_in.get(url, HTTP_HX_REQUEST="true")
    assert 'hx-trigger="every 2s"' in body(active) and "HX-Refresh" not in active
    job_run(job=job)
    ended = signed_in.get(url, HTTP_HX_REQUEST="true")
    assert ended["HX-Refresh"] == "true" and "every 2s" not in body(ended)
    assert "3" in body(ended) and "Ended" in body(ended)


def test_the_result_downloads_as_json_once_finished(signed_in, crawl, pagecount_kind):
    job = job_start(kind=pagecount_kind, crawl=crawl, enqueue=False)
    assert signed_in.get(reverse("checks:job-report", args=[job.pk])).status_code == 404
    job_run(job=job)
    response = signed_in.get(reverse("checks:job-report", args=[job.pk]))
    assert response["Content-Type"].startswith("application/json")
    assert json.loads(response.content) == {"crawl": crawl.pk, "pages": 3, "chunks": 2}
    # The same bytes as the command line's --json (tests/checks/test_job_command.py).
    assert response.content.decode() == job_report_json(job=job)


def test_the_crawl_page_lists_its_jobs(signed_in, crawl, pagecount_kind):
    job = job_run(job=job_start(kind=pagecount_kind, crawl=crawl, enqueue=False))
    page = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    assert f"Page count #{job.pk}" in page and "Finished" in page
