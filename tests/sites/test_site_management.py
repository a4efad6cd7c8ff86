"""Managing a site from the dashboard: edit its settings, delete it after a counted confirmation, share and
unshare it. Only its owner may."""

from __future__ import annotations

import lxml.html
import pytest
from django.urls import reverse

from sites.models import Crawl, Site
from tests.sites.factories import make_crawl, make_link, make_page, make_site, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def site(owner):
    site = make_site(owner=owner, url="https://example.com/", name="Example", max_pages=50)
    crawl = make_crawl(site)
    home = make_page(crawl, "https://example.com/")
    make_link(home, make_page(crawl, "https://example.com/a"))
    return site


def test_the_owner_edits_a_sites_settings(signed_in, site):
    form = signed_in.get(reverse("sites:edit", args=[site.pk]))
    assert form.status_code == 200 and 'value="https://example.com/"' in form.content.decode()
    response = signed_in.post(
        reverse("sites:edit", args=[site.pk]),
        {"url": "example.com/docs/", "name": " Docs ", "max_pages": "200", "obey_robots": "on"},
    )
    assert response.status_code == 302
    site.refresh_from_db()
    assert (site.url, site.name, site.max_pages, site.check_external) == (
        "https://example.com/docs/",
        "Docs",
        200,
        False,
    )


def _as_submitted(page: str) -> dict:
    """What a browser sends back for the page's form left as it is: each field as rendered."""
    form = next(form for form in lxml.html.fromstring(page).forms if "url" in form.fields)
    return {name: value for name, value in form.form_values() if name != "csrfmiddlewaretoken"}


def test_saving_the_settings_form_unchanged_changes_no_setting(signed_in, site):
    Site.objects.filter(pk=site.pk).update(external_cache_hours=0, delay=1.5)
    page = signed_in.get(reverse("sites:edit", args=[site.pk])).content.decode()
    assert signed_in.post(reverse("sites:edit", args=[site.pk]), _as_submitted(page)).status_code == 302
    site.refresh_from_db()
    assert (site.external_cache_hours, site.delay, site.max_pages) == (0, 1.5, 50)


def test_the_site_page_lists_how_long_external_verdicts_are_reused(signed_in, site):
    Site.objects.filter(pk=site.pk).update(external_cache_hours=6)
    page = signed_in.get(reverse("sites:detail", args=[site.pk])).content.decode()
    assert "<dt>Reuse external verdicts (hours)</dt><dd>6.0</dd>" in page


def test_an_invalid_setting_is_refused_and_nothing_changes(signed_in, site):
    response = signed_in.post(
        reverse("sites:edit", args=[site.pk]),
        {"url": "ftp://x", "exclude_patterns": "([a", "max_pages": "-1"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Enter an http:// or https:// URL" in html and "Not a usable regular expression" in html
    site.refresh_from_db()
    assert site.url == "https://example.com/" and site.max_pages == 50


def test_the_delete_page_counts_what_goes_and_post_deletes_it(signed_in, site):
    confirm = signed_in.get(reverse("sites:delete", args=[site.pk])).content.decode()
    assert "<li>1 crawl</li>" in confirm and "<li>2 pages</li>" in confirm and "<li>1 link</li>" in confirm
    response = signed_in.post(reverse("sites:delete", args=[site.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("sites:list")
    assert not Site.objects.filter(pk=site.pk).exists() and not Crawl.objects.filter(site_id=site.pk).exists()


def test_the_delete_page_counts_the_sitemaps_read_and_the_sites_rows_in_other_apps(signed_in, site):
    from checks.structure.models import StructureFilter
    from sites.models import Sitemap
    from watch.models import Schedule

    crawl = site.crawls.get()
    for name in ("sitemap.xml", "sitemap-2.xml"):
        Sitemap.objects.create(crawl=crawl, url=site.url + name, declared_in="robots.txt")
    StructureFilter.objects.create(site=site, templates=[site.url])
    Schedule.objects.create(site=site)
    confirm = signed_in.get(reverse("sites:delete", args=[site.pk])).content.decode()
    for counted in ("2 sitemaps", "1 structure filter", "1 schedule"):
        assert f"<li>{counted}</li>" in confirm


def test_a_site_with_a_running_crawl_is_not_deleted(signed_in, site):
    make_crawl(site, status=Crawl.Status.RUNNING)
    assert "cancel it" in signed_in.get(reverse("sites:delete", args=[site.pk])).content.decode()
    signed_in.post(reverse("sites:delete", args=[site.pk]))
    assert Site.objects.filter(pk=site.pk).exists()


def test_sharing_and_unsharing(signed_in, site):
    reader = make_user("rita")
    signed_in.post(reverse("sites:share", args=[site.pk]), {"username": "rita"})
    assert list(site.shared_with.all()) == [reader]
    detail = signed_in.get(reverse("sites:detail", args=[site.pk])).content.decode()
    assert "Stop sharing with rita" in detail
    signed_in.post(reverse("sites:unshare", args=[site.pk]), {"user": str(reader.pk)})
    assert not site.shared_with.exists()
    assert signed_in.post(reverse("sites:unshare", args=[site.pk]), {"user": "abc"}).status_code == 400


@pytest.mark.parametrize("name", ["edit", "delete"])
def test_someone_the_site_is_shared_with_can_read_but_not_manage_it(client, site, name):
    reader = make_user("rita")
    site.shared_with.add(reader)
    client.force_login(reader)
    assert client.get(reverse("sites:detail", args=[site.pk])).status_code == 200
    assert client.get(reverse(f"sites:{name}", args=[site.pk])).status_code == 403
    assert client.post(reverse(f"sites:{name}", args=[site.pk])).status_code == 403
    assert client.post(reverse("sites:unshare", args=[site.pk]), {"user": str(reader.pk)}).status_code == 403
    assert Site.objects.filter(pk=site.pk).exists() and site.shared_with.exists()


def test_a_stranger_gets_not_found(client, site):
    client.force_login(make_user())
    assert client.get(reverse("sites:edit", args=[site.pk])).status_code == 404
    assert client.post(reverse("sites:delete", args=[site.pk])).status_code == 404
