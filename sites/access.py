"""Who may change a site: its owner and superusers (seeing it is `Site.objects.visible_to`)."""

from __future__ import annotations

from sites.models import Site


def can_manage(user, site: Site) -> bool:
    """Whether `user` may crawl, share, delete and run analyses on `site` (not only read it)."""
    return user.is_superuser or site.owner_id == user.pk
