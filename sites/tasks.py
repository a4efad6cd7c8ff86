"""Celery tasks: thin wrappers that call sites.services.crawls."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_process_init, worker_ready
from django.conf import settings
from django.db import DatabaseError, close_old_connections

from sites.crawler.reading import shared_reader
from sites.services import crawls
from sites.startup import prepare_crawling_process

log = logging.getLogger(__name__)

# A step cut off by a database outage is retried after 1, 2, 4 … at most this many seconds, so that the crawl
# goes on within this long of the database's return (docs/operations.md).
DATABASE_RETRY_MAX_SECONDS = 30
DATABASE_RETRIES = 20


@shared_task(bind=True)
def crawl_step(self, crawl_id: int, lane: int = 0, generation: int | None = None, step: int | None = None):
    """Work on a crawl for one step, then enqueue the next step of this lane while work is left.

    Each step of a lane's chain carries its number: a message the broker delivers a second time (it restores
    unacknowledged messages when its connection drops) is refused rather than starting a second chain."""
    try:
        result = crawls.crawl_step(crawl_id=crawl_id, lane=lane, generation=generation, step=step)
    except DatabaseError as exc:
        close_old_connections()
        log.warning("crawl %s: database error, retrying the step: %s", crawl_id, exc)
        # The retry is the next step of the chain (its number is higher), so it is not taken for a repeat.
        raise self.retry(
            args=(crawl_id, lane, generation, None if step is None else step + 1),
            exc=exc,
            countdown=min(DATABASE_RETRY_MAX_SECONDS, 2**self.request.retries),
            max_retries=DATABASE_RETRIES,
        ) from exc
    except Exception as exc:
        # A bug, not a bad page (pages never raise): end the crawl visibly instead of retrying forever.
        log.exception("crawl %s failed", crawl_id)
        crawls.crawl_fail(crawl_id=crawl_id, error=f"Internal error: {type(exc).__name__}: {exc}")
        return
    if result.more:
        successor = (crawl_id, lane, generation, None if step is None else step + 1)
        crawl_step.apply_async(successor, countdown=result.wait or None)


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


@worker_process_init.connect
def _prepare_crawling_process(sender=None, **kwargs) -> None:
    prepare_crawling_process()
