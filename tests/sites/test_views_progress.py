"""The progress card of a crawl counts what it says: the site's own pages apart from the external link targets
checked (on the crawl page, the site's page and the site list), and as many broken pages as the issues overview
lists, from the same response."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from sites.models import Crawl, Page
from sites.services.issues import BROKEN_KINDS
from tests.sites.factories import make_crawl, make_page, make_site
from tests.sites.sitebuilder import html, serve_site

pytestmark = pytest.mark.django_db

SITE = "https://example.com"


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
    shown = _stats(client.get(reverse("sites:crawl", args=[crawl.pk])).content.decode())
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


def _overview_counts(html_text: str) -> dict[str, int]:
    overview = html_text[html_text.index('<section id="issues"') :].split("</section>")[0]
    rows = re.findall(r'<tr data-issue="([a-z0-9_]+)">.*?<td class="num">([\d,]+)</td>', overview, re.S)
    return {kind: int(count.replace(",", "")) for kind, count in rows}


def test_the_live_broken_count_is_the_sum_of_the_broken_kinds_the_overview_lists(signed_in, owner):
    # The counter ran behind the pages written (as it does between two polls): the card no longer shows it.
    crawl = make_crawl(make_site(owner=owner, url=SITE + "/"), status=Crawl.Status.RUNNING, pages_failed=1)
    make_page(crawl, SITE + "/")
    make_page(crawl, SITE + "/gone", 404)
    make_page(crawl, SITE + "/crash", 503)
    make_page(crawl, SITE + "/empty-search", verdict="soft404", verdict_reason="probe")
    make_page(crawl, "https://other.example/gone", 410, is_internal=False)
    make_page(crawl, "http://10.0.0.1/admin", None, is_internal=False, error_kind="blocked_address")

    html_text = signed_in.get(reverse("sites:crawl", args=[crawl.pk])).content.decode()

    listed = _overview_counts(html_text)
    assert {kind: listed[kind] for kind in BROKEN_KINDS} == dict.fromkeys(BROKEN_KINDS, 1)
    assert _stats(html_text)["Broken"].strip() == "4"


def test_a_live_crawl_with_nothing_broken_says_broken_0_beside_none_found_so_far(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner, url=SITE + "/"), status=Crawl.Status.RUNNING, pages_failed=1)
    make_page(crawl, SITE + "/")

    html_text = signed_in.get(reverse("sites:crawl", args=[crawl.pk])).content.decode()

    assert _stats(html_text)["Broken"].strip() == "0"
    assert "None found so far" in html_text
