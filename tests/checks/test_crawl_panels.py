"""Analyses add their own sections to a crawl's page through `JobKind.crawl_panel`; the sites app names none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from checks.jobs.kinds import kind_register, kind_unregister
from tests.sites.factories import body, make_crawl, make_page, make_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def panel_kind():
    kind_register("tests.checks.jobkinds:PANEL_KIND", name="pagepanel")
    yield "pagepanel"
    kind_unregister("pagepanel")


def test_a_kinds_panel_shows_on_the_crawl_page_with_what_its_function_returned(signed_in, owner, panel_kind):
    crawl = make_crawl(make_site(owner=owner))
    for number in range(3):
        make_page(crawl, url=f"{crawl.site.url}p{number}.html")
    page = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    assert "3 pages listed · 0 changed" in page
    assert reverse("mwim:site", args=[crawl.site_id]) in page


def test_a_panel_function_that_returns_none_shows_nothing(signed_in, owner, panel_kind):
    crawl = make_crawl(make_site(owner=owner))
    page = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    assert "pages listed ·" not in page


def test_the_decay_section_waits_for_a_finished_decay_job(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner))
    page = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    assert 'id="decay-heading"' not in page


def test_the_sites_templates_name_no_other_app():
    """No tag library and no URL of another app in the sites app's templates and the partials they include:
    what other apps show there comes through WEBAUDIT_PAGE_SECTIONS and the kinds' panels."""
    templates = Path(settings.BASE_DIR) / "templates"
    for path in [*(templates / "sites").rglob("*.html"), *(templates / "partials").rglob("*.html")]:
        text = path.read_text()
        for libraries in re.findall(r"{%\s*load\s+([^%]*?)\s*%}", text):
            assert set(libraries.split()) <= {"humanize", "dashboard", "static", "django_htmx"}, path
        assert set(re.findall(r"{%\s*url\s+['\"]([\w-]+):", text)) <= {"sites"}, path
