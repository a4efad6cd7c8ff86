"""Error pages look like the rest of the dashboard, and the site has a favicon."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_a_missing_page_is_the_dashboards_styled_404(signed_in, settings):
    settings.DEBUG = False
    response = signed_in.get("/sites/999999/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "This page does not exist" in html and "app.css" in html and "Back to your sites" in html


def test_a_forms_address_opened_in_the_browser_says_what_it_is_instead_of_a_blank_page(signed_in, owner):
    from tests.sites.factories import make_site

    site = make_site(owner=owner)
    response = signed_in.get(reverse("sites:share", args=[site.pk]))
    assert response.status_code == 405 and response["Allow"] == "POST"
    html = response.content.decode()
    assert "This address only takes a form" in html and "app.css" in html and "Back to your sites" in html


def test_a_server_error_is_a_styled_500_that_needs_no_request(settings):
    from django.template.loader import render_to_string

    html = render_to_string("500.html")
    assert "Something went wrong on our side" in html and "app.css" in html


def test_a_server_error_page_is_served_on_an_exception(settings, owner, monkeypatch):
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    client.force_login(owner)

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("sites.views.sites_with_last_crawl", explode)
    response = client.get(reverse("sites:list"))
    assert response.status_code == 500 and "Something went wrong" in response.content.decode()


def test_pages_declare_a_favicon_and_favicon_ico_leads_to_it(signed_in):
    html = signed_in.get(reverse("sites:list")).content.decode()
    assert 'rel="icon"' in html and "favicon.svg" in html
    response = signed_in.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
