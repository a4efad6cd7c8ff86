"""The site page's queries and who may manage a site."""

from __future__ import annotations

import pytest

from sites.access import can_manage
from sites.models import Crawl
from sites.services.dashboard import site_active_crawl, site_crawls, site_shared_with
from tests.sites.factories import make_crawl, make_site, make_user

pytestmark = pytest.mark.django_db


def test_the_site_page_finds_the_active_crawl_and_whom_the_site_is_shared_with():
    site = make_site()
    finished = make_crawl(site)
    assert site_active_crawl(site=site) is None
    running = make_crawl(site, status=Crawl.Status.RUNNING)
    assert site_active_crawl(site=site) == running
    assert set(site_crawls(site=site)) == {finished, running}
    zoe, adam = make_user("zoe"), make_user("adam")
    site.shared_with.add(zoe, adam)
    assert list(site_shared_with(site=site)) == [adam, zoe]


def test_only_the_owner_and_superusers_manage_a_site():
    site = make_site()
    reader = make_user()
    site.shared_with.add(reader)
    assert can_manage(site.owner, site)
    assert can_manage(make_user(is_superuser=True), site)
    assert not can_manage(reader, site)
