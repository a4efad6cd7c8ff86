"""The progress card of a crawl counts what it says: the site's own pages apart from the external link targets
checked, on the crawl page, the site's page and the site list."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from sites.models import Page
from tests.sites.sitebuilder import html, serve_site

pytestmark = pytest.mark.django_db(transaction=True)


def _stats(html_text: str) -> dict[str, str]:
    """Each figure of the progress card by its label, its details left out."""
    return dict(re.findall(r"<dt>([^<]+)</dt><dd[^>]*>([^<]+)", html_text))


@pytest.fixture
def crawl_with_external_links(httpserver, crawl_site, closed_port):
    """Three pages of the site linking to four external targets (another host: 127.0.0.1 is not localhost)."""
    outside = [f"http://127.0.0.1:{closed_port}/{name}" for name in ("a", "b", "c", "d")]
    root = serve_site(
        httpserver,
        {
            "/": html("Home", "/one", "/two", *outside[:2]),
            "/one": html("One", *outside[2:]),
            "/two": html("Two"),
        },
    )
    crawl = crawl_site(root, site_settings={"check_external": True})
    assert Page.objects.filter(crawl=crawl, is_internal=False, state=Page.State.DONE).count() == 4
    return crawl


def test_pages_done_counts_the_sites_pages_and_external_targets_apart(client, crawl_with_external_links):
    crawl = crawl_with_external_links
    client.force_login(crawl.site.owner)
    shown = _stats(client.get(reverse("sites:crawl_progress", args=[crawl.pk])).content.decode())
    assert shown["Site pages done"] == "3"
    assert shown["External targets"].strip() == "4"


def test_the_site_page_and_the_site_list_count_the_sites_pages_only(client, crawl_with_external_links):
    crawl = crawl_with_external_links
    client.force_login(crawl.site.owner)
    detail = client.get(reverse("sites:detail", args=[crawl.site.pk])).content.decode()
    row = re.search(
        rf'<tr>\s*<td><a class="strong" href="{reverse("sites:crawl", args=[crawl.pk])}">.*?</tr>',
        detail,
        re.S,
    )
    assert re.findall(r'<td class="num">(\d+)</td>', row.group(0))[0] == "3"
    listing = client.get(reverse("sites:list")).content.decode()
    assert re.findall(r'<td class="num">(\d+)</td>', listing) == ["3"]
