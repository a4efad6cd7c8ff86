"""What other apps show on the sites pages comes through WEBAUDIT_PAGE_SECTIONS: the deployment's list, in order."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import reverse

from tests.sites.factories import body, make_crawl, make_page, make_site

pytestmark = pytest.mark.django_db

MWIM_LINK = "MWIM: content extracts"
WATCH_PANEL = 'id="watch-heading"'
ANALYSES_PANEL = 'id="analyses-heading"'


def sections(**places):
    return override_settings(WEBAUDIT_PAGE_SECTIONS={**settings.WEBAUDIT_PAGE_SECTIONS, **places})


def test_the_site_page_shows_the_sections_listed_in_their_order(signed_in, owner):
    site = make_site(owner=owner)
    page = body(signed_in.get(reverse("sites:detail", args=[site.pk])))
    assert page.index(ANALYSES_PANEL) < page.index(WATCH_PANEL) < page.index(MWIM_LINK)


def test_a_section_the_deployment_leaves_out_is_not_on_the_page(signed_in, owner):
    site = make_site(owner=owner)
    with sections(site=["mwim/partials/site_link.html", "watch/partials/site_sections.html"]):
        page = body(signed_in.get(reverse("sites:detail", args=[site.pk])))
    assert ANALYSES_PANEL not in page
    assert page.index(MWIM_LINK) < page.index(WATCH_PANEL)


def test_the_broken_pages_make_room_beside_them_only_for_a_section_that_shows_something(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner))
    make_page(crawl, url=f"{crawl.site.url}gone.html", status_code=404)
    beside_nothing = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    with sections(**{"broken-targets": ["checks/partials/crawl_sections.html"]}):
        beside_analyses = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    assert "targets-layout" not in beside_nothing
    assert "targets-layout" in beside_analyses


def test_an_html_pages_row_offers_the_listed_page_actions(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner))
    make_page(crawl, url=f"{crawl.site.url}a.html", content_type="text/html")
    with_action = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    with sections(**{"page-actions": []}):
        without = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk])))
    assert "pages like this" in with_action and "pages like this" not in without
