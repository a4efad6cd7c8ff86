"""The structure dashboard's read-side queries and the saved-filter services the views call."""

from __future__ import annotations

import pytest

from checks.jobs import JobInputError
from checks.models import AnalysisJob
from checks.structure import selectors
from checks.structure.models import PageTypeMember, StructureFilter
from checks.structure.saved_filters import structure_filter_create_and_start, structure_filter_label
from tests.sites.factories import make_crawl, make_page, make_site

pytestmark = pytest.mark.django_db

FORM_DATA = {
    "name": "like home",
    "templates": "https://nowhere.example/a.html",
    "relation": "default",
    "attributes": "",
    "tags": "",
    "threshold": None,
    "combine": "mean",
    "target_pattern": "",
}


def test_a_refused_filter_is_not_kept():
    crawl = make_crawl()
    make_page(crawl, content_type="text/html")
    with pytest.raises(JobInputError, match="is not a page of crawl"):
        structure_filter_create_and_start(crawl=crawl, data=FORM_DATA)
    assert not StructureFilter.objects.exists() and not AnalysisJob.objects.exists()


def test_a_label_moves_the_url_to_one_list_only():
    saved = StructureFilter.objects.create(site=make_site(), targets=["u1", "u2"], non_targets=["u3"])
    structure_filter_label(saved=saved, url="u1", label="non_target")
    structure_filter_label(saved=saved, url="u3", label="target")
    saved.refresh_from_db()
    assert saved.targets == ["u2", "u3"] and saved.non_targets == ["u1"]
    for url, label in (("u4", "maybe"), ("", "target")):
        with pytest.raises(ValueError, match="Choose target or non-target"):
            structure_filter_label(saved=saved, url=url, label=label)


def test_saved_filters_are_found_only_on_their_own_site():
    site, other = make_site(), make_site()
    mine = StructureFilter.objects.create(site=site)
    theirs = StructureFilter.objects.create(site=other)
    assert list(selectors.site_filters(site=site)) == [mine]
    assert selectors.site_filter(site=site, filter_id=theirs.pk) is None
    crawl = make_crawl(site)
    job = AnalysisJob.objects.create(
        kind="filter", site=site, crawl=crawl, parameters={"filter_id": theirs.pk}
    )
    assert selectors.job_saved_filter(job=job) is None
    assert selectors.job_saved_filter(job=job, same_site=False) == theirs


def test_a_page_id_from_the_query_string_finds_only_a_page_of_the_crawl():
    crawl, other = make_crawl(), make_crawl()
    page, elsewhere = make_page(crawl), make_page(other)
    assert selectors.crawl_page(crawl=crawl, page_id=str(page.pk)) == page
    assert selectors.crawl_page(crawl=crawl, page_id=elsewhere.pk) is None
    assert selectors.crawl_page(crawl=crawl, page_id=None) is None


def test_a_page_types_pages_are_shallowest_first_and_can_be_narrowed_to_broken_ones():
    crawl = make_crawl()
    deep, shallow = make_page(crawl, depth=3), make_page(crawl, depth=1)
    broken = make_page(crawl, depth=2, status_code=404)
    make_page(crawl, depth=0)  # in no type
    job = AnalysisJob.objects.create(kind="pagetypes", site=crawl.site, crawl=crawl, parameters={})
    for page in (deep, shallow, broken):
        PageTypeMember.objects.create(job=job, page=page, type_index=0)
    assert list(selectors.pagetype_pages(job=job, index=0)) == [shallow, broken, deep]
    assert list(selectors.pagetype_pages(job=job, index=0, broken_only=True)) == [broken]
