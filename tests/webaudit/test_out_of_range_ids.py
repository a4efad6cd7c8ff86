"""An id past the database's integer range is a 404 on every URL, never a 500 (issue 18)."""

from __future__ import annotations

import pytest
from django.urls import get_resolver

pytestmark = pytest.mark.django_db

HUGE = "9223372036854775808"  # 2**63: one past SQLite's and PostgreSQL's bigint
HUGER = "99999999999999999999999"


@pytest.mark.parametrize(
    "url",
    [
        f"/mwim/{HUGE}/sitemap.xml",
        f"/mwim/{HUGE}/sitemap.xml.gz",
        f"/mwim/{HUGE}/sitemap-{HUGE}.xml",
        f"/mwim/{HUGE}/ce/{'a' * 40}.ce",
        f"/mwim/{HUGER}/sitemap.xml",
    ],
)
def test_a_public_url_with_an_id_out_of_range_is_not_found(client, url):
    assert client.get(url).status_code == 404


@pytest.mark.parametrize(
    "url",
    [
        f"/checks/decay/1/pages/{HUGER}/",
        f"/checks/decay/{HUGE}/pages/1/",
        f"/checks/jobs/{HUGE}/",
        f"/sites/{HUGE}/",
        f"/mwim/sites/{HUGE}/",
    ],
)
def test_a_signed_in_url_with_an_id_out_of_range_is_not_found(signed_in, url):
    assert signed_in.get(url).status_code == 404


def test_the_largest_id_the_database_holds_is_still_looked_up(client):
    assert client.get("/mwim/9223372036854775807/sitemap.xml").status_code == 404  # no such site, no 500


def test_no_url_pattern_takes_an_unbounded_int():
    patterns = []

    def walk(resolver):
        for entry in resolver.url_patterns:
            if hasattr(entry, "url_patterns"):
                walk(entry)
            else:
                patterns.append(str(entry.pattern))

    walk(get_resolver())
    assert not [pattern for pattern in patterns if "<int:" in pattern or "[0-9]+)" in pattern]
