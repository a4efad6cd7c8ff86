"""Who works on a crawl, and for how long: task chain generations, step numbers, leases renewed while a step
runs, and finding crawls nothing works on any more (docs/operations.md, "How a crawl survives an outage")."""

from __future__ import annotations

import logging
import threading
import uuid
from datetime import timedelta

from django import db
from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import F, Q
from django.utils import timezone

from sites.models import Crawl, Site
from sites.services.frontier import frontier_renew

log = logging.getLogger(__name__)


def crawl_new_generation(*, crawl_id: int) -> int:
    """Start a new generation of the crawl's task chains: steps of older ones stop at their next check."""
    with transaction.atomic():
        Crawl.objects.filter(pk=crawl_id).update(generation=F("generation") + 1, lane_steps={})
        return Crawl.objects.filter(pk=crawl_id).values_list("generation", flat=True).get()


def step_begins(crawl_id: int, lane: int, generation: int | None, step: int | None) -> bool:
    """Whether a step may run: the crawl is active, the step is of its current generation, and no step of
    this lane numbered as high has started (a message delivered twice runs once). Records that it started."""
    if generation is None or step is None:  # in-process runs, and messages from before generations
        return Crawl.objects.filter(pk=crawl_id, status__in=Crawl.ACTIVE).exists()
    with transaction.atomic():
        rows = Crawl.objects.filter(pk=crawl_id, status__in=Crawl.ACTIVE, generation=generation)
        if db.connection.features.has_select_for_update:
            rows = rows.select_for_update()
        crawl = rows.only("lane_steps").first()
        if crawl is None or crawl.lane_steps.get(str(lane), 0) >= step:
            return False
        crawl.lane_steps[str(lane)] = step
        # JSON merged in the database would race with another lane; the row lock (or SQLite's one writer)
        # makes this read-modify-write safe.
        Crawl.objects.filter(pk=crawl_id).update(lane_steps=crawl.lane_steps)
    return True


def step_current(crawl_id: int, generation: int | None) -> bool:
    """Whether the crawl is still active and this step's chain is still the crawl's current one."""
    active = Crawl.objects.filter(pk=crawl_id, status__in=Crawl.ACTIVE)
    return (active if generation is None else active.filter(generation=generation)).exists()


class LeaseKeeper:
    """While a step runs, a thread renews the crawl's heartbeat and the claims of the batches it holds every
    `interval` seconds: a live step's claims never go stale however slow its batch, so the lease can be short
    and what a dead step (or one cut off by a database outage) held is claimed again within the lease."""

    def __init__(self, crawl_id: int, interval: float) -> None:
        self.crawl_id, self.interval = crawl_id, max(interval, 0.5)
        self.tokens: set[uuid.UUID] = set()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"lease-keeper-{crawl_id}", daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stopped.set()
        # Long enough for a renewal under way to end on a busy database (bounded, not the lock's whole 30 s: a
        # step must not hang on its keeper); one that ended after the step wrote for a step that was over (in the
        # tests, into the next test's database).
        self.thread.join(timeout=10)

    def hold(self, token: uuid.UUID) -> None:
        self.tokens.add(token)

    def release(self, token: uuid.UUID) -> None:
        self.tokens.discard(token)

    def _run(self) -> None:
        try:
            while not self.stopped.wait(self.interval):
                try:
                    frontier_renew(crawl_id=self.crawl_id, tokens=list(self.tokens))
                    if (
                        self.stopped.is_set()
                    ):  # the step ended during the renewal: it writes its own heartbeat
                        break
                    Crawl.objects.filter(pk=self.crawl_id).update(heartbeat_at=timezone.now())
                except DatabaseError as exc:
                    # The database is away: the step itself will meet the error; try again next time.
                    log.warning("crawl %s: cannot renew its lease: %s", self.crawl_id, exc)
                    db.connection.close()
        finally:
            db.connection.close()


def crawls_stalled():
    """Active crawls nothing has worked on for the lease: their worker died, their step message was lost, or
    the process running them in-process was stopped."""
    stale = timezone.now() - timedelta(seconds=settings.WEBAUDIT_CRAWL_LEASE_SECONDS)
    return Crawl.objects.filter(status__in=Crawl.ACTIVE).filter(
        Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, created_at__lt=stale)
    )


def crawl_stalled_of(*, site: Site) -> Crawl | None:
    """The site's active crawl if it has stalled (see crawls_stalled)."""
    return crawls_stalled().filter(site=site).first()
