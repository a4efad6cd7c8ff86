"""Celery tasks: thin wrappers that call sites.services.crawls."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_process_init, worker_ready
from django.conf import settings
from django.db import DatabaseError

from sites.crawler.reading import shared_reader
from sites.services import crawls

log = logging.getLogger(__name__)


@shared_task(autoretry_for=(DatabaseError,), retry_backoff=2, retry_backoff_max=60, max_retries=8)
def crawl_step(crawl_id: int, lane: int = 0) -> None:
    """Work on a crawl for one step, then enqueue the next step of this lane while work is left."""
    try:
        result = crawls.crawl_step(crawl_id=crawl_id)
    except DatabaseError:
        raise
    except Exception as exc:
        # A bug, not a bad page (pages never raise): end the crawl visibly instead of retrying forever.
        log.exception("crawl %s failed", crawl_id)
        crawls.crawl_fail(crawl_id=crawl_id, error=f"Internal error: {type(exc).__name__}: {exc}")
        return
    if result.more:
        crawl_step.apply_async((crawl_id, lane), countdown=result.wait or None)


@shared_task
def crawls_resume_stalled() -> list[int]:
    return crawls.crawls_resume_stalled()


@worker_ready.connect
def _resume_stalled_crawls_on_start(sender=None, **kwargs) -> None:
    # A worker starting after a crash is the first to notice crawls whose worker died.
    crawls_resume_stalled.delay()


@worker_process_init.connect
def _start_page_readers(sender=None, **kwargs) -> None:
    # Start the processes that read pages (each loads the classifier) before a crawl waits for them. Not waited
    # for here: Celery gives a new worker process 4 seconds to report ready.
    shared_reader(settings.WEBAUDIT_PAGE_READERS).warm()
