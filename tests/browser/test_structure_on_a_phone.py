"""A structural filter's result on a 390-pixel phone: the similarity chart keeps labels big enough to read and
scrolls sideways inside its figure, the page itself never does, and the table's URLs stay readable."""

from __future__ import annotations

import pytest

from checks.jobs import job_run, job_start
from checks.structure.models import StructureFilter
from checks.structure.plot import WIDTH
from tests.browser.conftest import PHONE
from tests.checks.structure.test_structure_views import (
    owned_crawl,  # noqa: F401 - the crawl of pages to filter
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# The smallest text a phone's reader is asked to read, in CSS pixels (the chart's tick labels are 10 units).
SMALLEST_TEXT_PX = 8.5


def test_the_similarity_chart_reads_on_a_phone_and_scrolls_inside_its_figure(
    request, signed_in_phone, live_server, artifacts
):
    crawl, root = request.getfixturevalue("owned_crawl")
    phone = signed_in_phone
    saved = StructureFilter.objects.create(
        site=crawl.site, templates=[root + "ref2.html"], target_pattern=r"/ref\d"
    )
    parameters = {"templates": saved.templates, "filter_id": saved.pk, "target_pattern": saved.target_pattern}
    job = job_run(job=job_start(kind="filter", crawl=crawl, parameters=parameters, enqueue=False))

    phone.goto(f"{live_server.url}/checks/jobs/{job.pk}/")
    phone.wait_for_selector(".structure-plot")
    phone.screenshot(path=str(artifacts / "structure-390.png"), full_page=True)

    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    chart = phone.locator(".structure-plot").bounding_box()
    smallest = min(
        phone.locator(".structure-plot text").evaluate_all(
            "texts => texts.map(t => +t.getAttribute('font-size'))"
        )
    )
    assert smallest * chart["width"] / WIDTH >= SMALLEST_TEXT_PX
    frame = phone.locator(".structure-figure .chart-scroll")
    assert frame.evaluate("f => f.scrollWidth > f.clientWidth")  # wider than the phone: it scrolls sideways
    frame.evaluate("f => f.scrollLeft = f.scrollWidth")
    phone.locator(".structure-figure").screenshot(path=str(artifacts / "structure-chart-scrolled.png"))
    caption = phone.locator(".structure-figure figcaption").bounding_box()
    assert caption["x"] >= 0 and caption["x"] + caption["width"] <= PHONE["width"]
    url_cell = phone.locator("#similarities td.url").first.bounding_box()
    assert url_cell["width"] >= 200  # a path segment or two a line, not a letter or two
