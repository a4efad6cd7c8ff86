"""MWIM's read-side queries (what is published, what the owner's page lists) and the owner's settings."""

from __future__ import annotations

import pytest
from django.utils import timezone

from mwim import selectors
from mwim.models import ContentExtractFile, MwimSite
from mwim.services.owner import mwim_enabled_set, mwim_indexnow_endpoints_set
from tests.mwim.factories import make_mwim_site

pytestmark = pytest.mark.django_db


def ce_row(mwim_site: MwimSite, name: str, *, listed: bool = True) -> ContentExtractFile:
    return ContentExtractFile.objects.create(
        mwim_site=mwim_site, url=mwim_site.site.url + name, url_key=name.ljust(40, "0"), data=b"ce",
        fingerprint="f-" + name, updated_at=timezone.now(), listed=listed,
    )  # fmt: skip


def test_only_an_enabled_and_verified_registration_is_published():
    verified = make_mwim_site()
    unverified = make_mwim_site(verified=False)
    disabled = make_mwim_site(enabled=False)
    assert list(MwimSite.objects.published()) == [verified]
    assert selectors.published_mwim_site(site_id=verified.site_id) == verified
    assert selectors.published_mwim_site(site_id=unverified.site_id) is None
    assert selectors.published_mwim_site(site_id=disabled.site_id) is None


def test_a_published_ce_file_is_listed_and_of_a_published_site():
    verified, disabled = make_mwim_site(), make_mwim_site(enabled=False)
    listed, unlisted, hidden = (
        ce_row(verified, "a"),
        ce_row(verified, "b", listed=False),
        ce_row(disabled, "c"),
    )
    assert selectors.published_ce_file(site_id=verified.site_id, key=listed.url_key) == listed
    assert selectors.published_ce_file(site_id=verified.site_id, key=unlisted.url_key) is None
    assert selectors.published_ce_file(site_id=disabled.site_id, key=hidden.url_key) is None
    assert selectors.published_ce_file(site_id=disabled.site_id, key=listed.url_key) is None
    unverified = make_mwim_site(verified=False)
    waiting = ce_row(unverified, "d")
    assert selectors.published_ce_file(site_id=unverified.site_id, key=waiting.url_key) is None
    fingerprint, updated = selectors.published_ce_validators(site_id=verified.site_id, key=listed.url_key)
    assert (fingerprint, updated) == ("f-a", listed.updated_at)
    assert selectors.published_ce_validators(site_id=verified.site_id, key=unlisted.url_key) is None


def test_the_owners_page_lists_every_file_and_counts_the_listed_ones():
    mwim_site = make_mwim_site(verified=False)
    ce_row(mwim_site, "b", listed=False)
    ce_row(mwim_site, "a")
    assert [row.url for row in selectors.mwim_ce_files(mwim_site=mwim_site)] == [
        mwim_site.site.url + "a",
        mwim_site.site.url + "b",
    ]
    assert selectors.mwim_listed_count(mwim_site=mwim_site) == 1
    assert selectors.site_ce_file(site=mwim_site.site, key="b".ljust(40, "0")).url.endswith("b")
    assert selectors.site_ce_file(site=make_mwim_site().site, key="b".ljust(40, "0")) is None


def test_indexnow_endpoints_are_saved_or_refused_whole():
    mwim_site = make_mwim_site(indexnow_endpoints=["https://old.example/indexnow"])
    with pytest.raises(ValueError, match="not an IndexNow endpoint"):
        mwim_indexnow_endpoints_set(mwim_site=mwim_site, text="https://a.example/indexnow\nftp://b.example/x")
    mwim_site.refresh_from_db()
    assert mwim_site.indexnow_endpoints == ["https://old.example/indexnow"]
    saved = mwim_indexnow_endpoints_set(mwim_site=mwim_site, text=" https://a.example/indexnow \n\n")
    mwim_site.refresh_from_db()
    assert saved == mwim_site.indexnow_endpoints == ["https://a.example/indexnow"]


def test_disabling_a_site_unpublishes_it_and_enabling_publishes_it_again():
    mwim_site = make_mwim_site()
    mwim_enabled_set(mwim_site=mwim_site, enabled=False)
    assert selectors.published_mwim_site(site_id=mwim_site.site_id) is None
    mwim_enabled_set(mwim_site=mwim_site, enabled=True)
    assert selectors.published_mwim_site(site_id=mwim_site.site_id) == mwim_site
