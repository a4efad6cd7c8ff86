"""The dashboard of structural filters and page types: pages like this, results, plot, labels, types."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from checks.jobs import job_run, job_start
from checks.structure.models import StructureFilter
from tests.checks.structure.test_structure_jobs import chapter, reference
from tests.sites.factories import make_user
from tests.sites.sitebuilder import serve_site

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def owned_crawl(httpserver, owner):
    from sites.services.crawls import crawl_run, crawl_start
    from sites.services.sites import site_create

    pages = {f"/ref{n}.html": reference(n) for n in range(6)}
    pages.update({f"/chapter{n}.html": chapter(n) for n in range(4)})
    pages["/broken.html"] = chapter(9).replace("</body>", '<a href="/gone.html">gone</a></body>')
    pages["/"] = "<html><body>" + "".join(f'<a href="{p}">{p}</a>' for p in pages) + "</body></html>"
    root = serve_site(httpserver, pages)
    site = site_create(owner=owner, url=root)
    return crawl_run(crawl=crawl_start(site=site, requested_by=owner, enqueue=False)), root


def test_page_rows_offer_pages_like_this(signed_in, owned_crawl):
    crawl, root = owned_crawl
    page = crawl.pages.get(url=root + "ref1.html")
    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))
    assert f"{reverse('checks:structure-new', args=[crawl.pk])}?page={page.pk}" in response.content.decode()


def test_pages_like_this_saves_the_filter_runs_it_and_shows_scores_and_the_plot(signed_in, owned_crawl):
    crawl, root = owned_crawl
    page = crawl.pages.get(url=root + "ref1.html")
    form = signed_in.get(reverse("checks:structure-new", args=[crawl.pk]), {"page": page.pk})
    assert page.url in form.content.decode()
    response = signed_in.post(
        reverse("checks:structure-new", args=[crawl.pk]),
        {"templates": page.url, "relation": "default", "combine": "mean", "target_pattern": r"/ref\d"},
    )
    assert response.status_code == 302
    saved = StructureFilter.objects.get(site=crawl.site)
    assert saved.templates == [page.url] and saved.target_pattern == r"/ref\d"
    from checks.models import AnalysisJob

    job = job_run(job=AnalysisJob.objects.get(kind="filter", crawl=crawl))
    html = signed_in.get(reverse("checks:job", args=[job.pk])).content.decode()
    assert "<svg" in html and 'class="threshold"' in html and 'class="chance"' in html
    assert "relation-comparison" in html and "Precision <strong>1.000</strong>" in html
    assert html.count('class="row-match"') == 6


def test_marking_a_page_keeps_the_label_and_runs_the_filter_again(signed_in, owned_crawl):
    crawl, root = owned_crawl
    saved = StructureFilter.objects.create(site=crawl.site, templates=[root + "ref2.html"])
    job = job_start(
        kind="filter",
        crawl=crawl,
        parameters={"templates": saved.templates, "filter_id": saved.pk},
        enqueue=False,
    )
    response = signed_in.post(
        reverse("checks:structure-label", args=[job.pk]),
        {"url": root + "chapter1.html", "label": "non_target"},
    )
    assert response.status_code == 302
    saved.refresh_from_db()
    assert saved.non_targets == [root + "chapter1.html"]
    assert crawl.analysis_jobs.filter(kind="filter").count() == 2


def _label_buttons(html: str, url: str) -> dict[str, str]:
    """{button's value: its aria-pressed} in the result row of `url`."""
    row = re.search(rf'<tr[^>]*>\s*<td class="url"><a href="{re.escape(url)}".*?</tr>', html, re.S).group(0)
    return dict(re.findall(r'name="label" value="(\w+)"[^>]*aria-pressed="(\w+)"', row))


def test_each_result_row_shows_its_pages_label_on_the_buttons(signed_in, owned_crawl):
    crawl, root = owned_crawl
    saved = StructureFilter.objects.create(
        site=crawl.site,
        templates=[root + "ref2.html"],
        target_pattern=r"/ref[0-3]",
        targets=[root + "chapter2.html"],
        non_targets=[root + "ref3.html"],
    )
    parameters = {
        "templates": saved.templates,
        "filter_id": saved.pk,
        "target_pattern": saved.target_pattern,
        "targets": saved.targets,
        "non_targets": saved.non_targets,
    }
    job = job_run(job=job_start(kind="filter", crawl=crawl, parameters=parameters, enqueue=False))
    html = signed_in.get(reverse("checks:job", args=[job.pk])).content.decode()
    pressed = {"target": "true", "non_target": "false"}
    assert _label_buttons(html, root + "ref1.html") == pressed  # by the URL pattern
    assert _label_buttons(html, root + "chapter2.html") == pressed  # marked by hand
    assert _label_buttons(html, root + "ref3.html") == {"target": "false", "non_target": "true"}  # marked out
    assert _label_buttons(html, root + "chapter1.html") == {"target": "false", "non_target": "true"}


def test_rows_of_a_filter_without_labels_say_they_are_unlabelled(signed_in, owned_crawl):
    crawl, root = owned_crawl
    saved = StructureFilter.objects.create(site=crawl.site, templates=[root + "ref2.html"])
    parameters = {"templates": saved.templates, "filter_id": saved.pk}
    job = job_run(job=job_start(kind="filter", crawl=crawl, parameters=parameters, enqueue=False))
    html = signed_in.get(reverse("checks:job", args=[job.pk])).content.decode()
    assert _label_buttons(html, root + "ref1.html") == {"target": "false", "non_target": "false"}
    assert html.count(">unlabelled<") == html.count('value="target"') > 1


def test_bad_filter_input_comes_back_on_the_form(signed_in, owned_crawl):
    crawl, _ = owned_crawl
    response = signed_in.post(
        reverse("checks:structure-new", args=[crawl.pk]),
        {"templates": "http://elsewhere.example/", "relation": "default", "combine": "mean"},
    )
    assert response.status_code == 200
    assert "is not a page of crawl" in response.content.decode()
    assert not StructureFilter.objects.exists()


def test_page_types_list_their_shares_and_filter_the_report_by_type(signed_in, owned_crawl):
    crawl, root = owned_crawl
    job = job_run(job=job_start(kind="pagetypes", crawl=crawl, parameters={}, enqueue=False))
    html = signed_in.get(reverse("checks:job", args=[job.pk])).content.decode()
    assert "page-types" in html and "Filter by this type" in html
    assert "/ref*.html" in html and "Type 1" not in html  # named by what its pages are
    refs = next(t for t in job.result["types"] if root + "ref0.html" in t["examples"] or t["size"] == 6)
    pages = signed_in.get(reverse("checks:structure-type", args=[job.pk, refs["index"]])).content.decode()
    assert root + "ref3.html" in pages and root + "chapter1.html" not in pages
    linking = next(t for t in job.result["types"] if root + "broken.html" in t["examples"])
    assert linking["linking_to_broken"] == 1 and linking["broken"] == 0


def test_other_users_cannot_see_or_run_filters(client, owned_crawl):
    crawl, root = owned_crawl
    client.force_login(make_user("mallory"))
    assert client.get(reverse("checks:structure-new", args=[crawl.pk])).status_code == 404
    response = client.post(
        reverse("checks:structure-new", args=[crawl.pk]),
        {"templates": root + "ref1.html", "relation": "default"},
    )
    assert response.status_code == 404


def test_the_crawl_page_offers_both_analyses_and_starts_a_filter(signed_in, owned_crawl):
    crawl, root = owned_crawl
    html = signed_in.get(reverse("sites:crawl", args=[crawl.pk])).content.decode()
    assert reverse("checks:job-start", args=["filter", crawl.pk]) in html
    assert reverse("checks:job-start", args=["pagetypes", crawl.pk]) in html
    response = signed_in.post(
        reverse("checks:job-start", args=["filter", crawl.pk]),
        {"templates": root + "ref0.html\n" + root + "ref1.html", "relation": "rpsa", "threshold": "0.5"},
    )
    job = crawl.analysis_jobs.get(kind="filter")
    assert response.status_code == 302 and response["Location"] == reverse("checks:job", args=[job.pk])
    assert job.parameters["relation"] == "rpsa" and job.parameters["threshold"] == 0.5
    assert len(job.parameters["templates"]) == 2


@pytest.mark.parametrize("value", ["abc", "-1", "9" * 40, ""])
def test_pages_like_this_with_a_bad_page_number_shows_an_empty_form(signed_in, owned_crawl, value):
    crawl, _ = owned_crawl
    response = signed_in.get(reverse("checks:structure-new", args=[crawl.pk]), {"page": value})
    assert response.status_code == 200
    assert "Template page URLs" in response.content.decode()


def test_a_target_pattern_that_cannot_run_in_linear_time_is_refused_on_the_form(signed_in, owned_crawl):
    crawl, root = owned_crawl
    response = signed_in.post(
        reverse("checks:structure-new", args=[crawl.pk]),
        {
            "templates": root + "ref1.html",
            "relation": "default",
            "combine": "mean",
            "target_pattern": r"(r)\1",
        },
    )
    assert response.status_code == 200
    assert "back references" in response.content.decode()
    assert not StructureFilter.objects.exists()


def test_a_pattern_catastrophic_for_backtracking_labels_pages_and_the_job_finishes(signed_in, owned_crawl):
    crawl, root = owned_crawl
    job = job_start(
        kind="filter",
        crawl=crawl,
        parameters={"templates": [root + "ref1.html"], "target_pattern": r"(/?[a-z0-9]+)+\.html$"},
        enqueue=False,
    )
    job = job_run(job=job)
    assert job.status == "finished" and job.result["labelled"]


def test_the_result_names_the_wider_group_a_calibrated_cut_passed_over(signed_in, owned_crawl):
    crawl, root = owned_crawl
    page = crawl.pages.get(url=root + "ref1.html")
    signed_in.post(
        reverse("checks:structure-new", args=[crawl.pk]),
        {"templates": page.url, "relation": "default", "combine": "mean"},
    )
    from checks.models import AnalysisJob

    job = job_run(job=AnalysisJob.objects.get(kind="filter", crawl=crawl))
    assert "wider-group" not in signed_in.get(reverse("checks:job", args=[job.pk])).content.decode()
    # Eleven pages hold no nested groups; the summary of a crawl that does (services.filter_summary, tested in
    # test_structure_summary) carries this entry, and the page shows it.
    job.result = {**job.result, "wider_group": {"threshold": 0.37, "matches": 300}}
    job.save(update_fields=["result"])
    html = signed_in.get(reverse("checks:job", args=[job.pk])).content.decode()
    assert 'id="wider-group"' in html and "<strong>300</strong>" in html and "threshold 0.37" in html


def test_the_result_says_the_scores_count_the_templates_nearest_pages(signed_in, owned_crawl):
    crawl, root = owned_crawl
    page = crawl.pages.get(url=root + "ref1.html")
    signed_in.post(
        reverse("checks:structure-new", args=[crawl.pk]),
        {"templates": page.url, "relation": "default", "combine": "mean"},
    )
    from checks.models import AnalysisJob

    job = job_run(job=AnalysisJob.objects.get(kind="filter", crawl=crawl))
    # The default's feedback rule scored the pages again with the template's nearest pages.
    assert job.result["feedback_pages"]
    html = signed_in.get(reverse("checks:job", args=[job.pk])).content.decode()
    assert 'id="feedback-pages"' in html
    assert f"and {len(job.result['feedback_pages'])} of the pages most like it" in html
