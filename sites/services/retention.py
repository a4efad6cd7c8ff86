"""Deleting crawls: one at a time, and the oldest of a site beyond how many it keeps.

A crawl holds a row per page, its compressed body and every link: the python docs make 537 pages, 165,000 links
and 31 MB of SQLite. Deleting goes through the ORM, whose cascade deletes links and bodies with one statement
per table (they have no dependents of their own), so it takes well under a second. Links go by crawl and by
source, both indexed; their target has no index, constraint or SET_NULL (a link and its target are always of
one crawl and die with it), which spares every link written two random index entries and a lookup. What must
never be done is to *list* what a deletion removes, as Django's admin does by default: 22 s for the python docs
crawl, before rendering 165,000 lines. `deletion_summary` counts instead.

The analyses' rows over a crawl (analysis jobs and what they found) point at it with cascading foreign keys, so
they go with it in the same deletion; `deletion_summary` finds them through Django's relations, not by import:
the crawl layer knows no analysis (docs/analysis-jobs.md).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models, transaction
from django.utils.module_loading import import_string

from sites.models import (
    Crawl,
    DirectoryProbe,
    Link,
    Page,
    PageBody,
    PageExtract,
    RobotsFile,
    Site,
    Sitemap,
    SitemapUrl,
)


class CrawlActiveError(Exception):
    """A queued or running crawl cannot be deleted: its workers are still writing to it."""


def crawl_delete(*, crawl: Crawl) -> None:
    """Delete an ended crawl with everything it found; raises CrawlActiveError for a queued or running one."""
    with transaction.atomic():
        deleted, _ = Crawl.objects.filter(pk=crawl.pk).exclude(status__in=Crawl.ACTIVE).delete()
        if not deleted and Crawl.objects.filter(pk=crawl.pk).exists():
            raise CrawlActiveError(f"crawl #{crawl.pk} is still {crawl.status}: cancel it before deleting it")


def crawls_prune(*, site: Site, keep: int | None = None) -> list[int]:
    """Delete the site's ended crawls beyond its `keep` newest (WEBAUDIT_CRAWLS_KEPT; 0 keeps them all).

    Active crawls are never touched and do not count. Returns the ids deleted, oldest first.
    """
    doomed = crawls_beyond(site=site, keep=settings.WEBAUDIT_CRAWLS_KEPT if keep is None else keep)
    crawls_delete(crawl_ids=doomed)
    return doomed


def crawls_delete(*, crawl_ids: list[int]) -> None:
    """Delete these crawls with everything they found, passing over any that is (again) queued or running."""
    if crawl_ids:
        Crawl.objects.filter(pk__in=crawl_ids).exclude(status__in=Crawl.ACTIVE).delete()


def crawls_beyond(*, site: Site, keep: int) -> list[int]:
    """Ids of the site's ended crawls older than its `keep` newest, oldest first; none when `keep` is 0.

    A site something compares crawls of (WEBAUDIT_CRAWL_COMPARERS, e.g. a schedule whose alerts compare each
    crawl with the one before) also keeps its newest finished crawl older than the kept ones: the crawl the next
    comparison needs when the kept ones are not all finished."""
    if keep <= 0:
        return []
    ended = Crawl.objects.filter(site=site).exclude(status__in=Crawl.ACTIVE).order_by("-created_at", "-pk")
    rows = list(ended.values_list("pk", "status"))
    beyond = rows[keep:]
    kept_finished = sum(status == Crawl.Status.FINISHED for _, status in rows[:keep])
    if kept_finished < 2 and _compared(site):
        spared = next((pk for pk, status in beyond if status == Crawl.Status.FINISHED), None)
        beyond = [(pk, status) for pk, status in beyond if pk != spared]
    return sorted(pk for pk, _ in beyond)


def _compared(site: Site) -> bool:
    return any(import_string(path.replace(":", "."))(site=site) for path in settings.WEBAUDIT_CRAWL_COMPARERS)


def deletion_summary(*, crawl_ids: list[int]) -> dict[str, int]:
    """What deleting these crawls removes, counted table by table without loading a row."""
    return {
        "crawls": Crawl.objects.filter(pk__in=crawl_ids).count(),
        "pages": Page.objects.filter(crawl_id__in=crawl_ids).count(),
        "page bodies": PageBody.objects.filter(page__crawl_id__in=crawl_ids).count(),
        "page extracts": PageExtract.objects.filter(page__crawl_id__in=crawl_ids).count(),
        "links": Link.objects.filter(crawl_id__in=crawl_ids).count(),
        "robots.txt files": RobotsFile.objects.filter(crawl_id__in=crawl_ids).count(),
        "directory probes": DirectoryProbe.objects.filter(crawl_id__in=crawl_ids).count(),
        "sitemaps": Sitemap.objects.filter(crawl_id__in=crawl_ids).count(),
        "sitemap URLs": SitemapUrl.objects.filter(crawl_id__in=crawl_ids).count(),
        **rows_of_other_apps(model=Crawl, ids=crawl_ids),
    }


def rows_of_other_apps(*, model: type, ids: list[int]) -> dict[str, int]:
    """Rows of other apps' models that point straight at these rows of `model` (a crawl's analysis jobs; a site's
    schedule, saved filters, MWIM registration), by their plural name."""
    counts = {}
    for relation in model._meta.related_objects:
        related = relation.related_model
        cascades = relation.on_delete is models.CASCADE  # a SET_NULL row outlives the deletion
        if (
            (relation.one_to_many or relation.one_to_one)
            and cascades
            and related._meta.app_label != model._meta.app_label
        ):
            rows = related._default_manager.filter(**{f"{relation.field.name}__in": ids})
            counts[str(related._meta.verbose_name_plural)] = rows.count()
    return counts
