"""Registering, editing, sharing and deleting sites."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from sites.crawler.urls import normalize_url
from sites.models import Crawl, Site
from sites.services.retention import deletion_summary, rows_of_other_apps


class SiteError(ValueError):
    """A site cannot be registered or shared as asked; the message is for the user."""


def site_create(*, owner, url: str, name: str = "", **crawl_settings) -> Site:
    normalized = normalize_url(url)
    if normalized is None:
        raise SiteError(f"{url!r} is not an http:// or https:// URL with a host name.")
    return Site.objects.create(owner=owner, url=normalized, name=name.strip(), **crawl_settings)


def site_get_or_create(*, owner, url: str) -> tuple[Site, bool]:
    """The owner's site with this start URL, registering it if new (the CLI's `audit URL`)."""
    normalized = normalize_url(url)
    if normalized is None:
        raise SiteError(f"{url!r} is not an http:// or https:// URL with a host name.")
    existing = Site.objects.filter(owner=owner, url=normalized).first()
    if existing:
        return existing, False
    return site_create(owner=owner, url=normalized), True


def site_share(*, site: Site, username: str) -> None:
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise SiteError(f"There is no user named {username!r}.")
    if user == site.owner:
        raise SiteError("The owner already has access.")
    site.shared_with.add(user)


def site_update(*, site: Site, url: str, name: str = "", **crawl_settings) -> Site:
    """Change a site's start URL, name and crawl settings; crawls already made keep the settings they ran with."""
    normalized = normalize_url(url)
    if normalized is None:
        raise SiteError(f"{url!r} is not an http:// or https:// URL with a host name.")
    unknown = set(crawl_settings) - set(Site.CRAWL_SETTINGS)
    if unknown:
        raise SiteError(f"not crawl settings: {', '.join(sorted(unknown))}")
    site.url, site.name = normalized, name.strip()
    for field_name, value in crawl_settings.items():
        setattr(site, field_name, value)
    site.save(update_fields=["url", "name", *crawl_settings])
    return site


def site_unshare(*, site: Site, user_id: int) -> bool:
    """Take a user's access to the site away; False if the site was not shared with them."""
    if not site.shared_with.filter(pk=user_id).exists():
        return False
    site.shared_with.remove(user_id)
    return True


def site_deletion_summary(*, site: Site) -> dict[str, int]:
    """What deleting the site removes, counted table by table (never listed: a crawl holds 100,000s of links)."""
    crawl_ids = list(site.crawls.values_list("pk", flat=True))
    summary = {
        "crawls": len(crawl_ids),
        **deletion_summary(crawl_ids=crawl_ids),
        # The site's own rows (analysis jobs without a crawl too, such as page searches).
        **rows_of_other_apps(model=Site, ids=[site.pk]),
    }
    return {name: count for name, count in summary.items() if count}


def site_delete(*, site: Site) -> None:
    """Delete the site with its crawls and everything they found; refused while one of its crawls runs."""
    with transaction.atomic():
        Site.objects.select_for_update().filter(pk=site.pk).exists()
        active = site.crawls.filter(status__in=Crawl.ACTIVE).first()
        if active is not None:
            raise SiteError(f"Crawl #{active.pk} of this site is still {active.status}: cancel it first.")
        site.delete()
