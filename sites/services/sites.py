"""Registering and sharing sites."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from sites.crawler.urls import normalize_url
from sites.models import Site


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
