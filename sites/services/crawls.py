"""Crawl lifecycle: start, work through the frontier in timed steps, finish, cancel, resume after a dead worker."""

from __future__ import annotations

import logging
import time
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import timedelta

from celery import current_app
from django import db
from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Count, F, Q
from django.utils import timezone
from django.utils.module_loading import import_string

from sites.crawler.config import CrawlConfig
from sites.crawler.extractors import extractors_for
from sites.crawler.fetching import CrawlSession, FetchJob, PageOutcome, completed, sessions
from sites.crawler.reading import shared_reader
from sites.crawler.soft404.errors import ModelVersionError
from sites.crawler.urls import PatternError, compile_patterns, normalize_url, site_key
from sites.limits import crawl_setting_problem
from sites.models import BROKEN_CHECKED, Crawl, Page, RobotsFile, Site
from sites.services.external_cache import external_cache_lookup
from sites.services.frontier import (
    frontier_claim,
    frontier_record,
    frontier_seed,
    frontier_status,
    frontier_validators,
)
from sites.services.leases import (
    LeaseKeeper,
    crawl_new_generation,
    crawls_stalled,
    step_begins,
    step_current,
)
from sites.services.retention import crawls_prune
from sites.services.sitemaps import NOT_READ as SITEMAPS_NOT_READ
from sites.services.sitemaps import sitemap_orphans_admit, sitemaps_pending, sitemaps_read
from sites.services.soft404 import probes_load

log = logging.getLogger(__name__)

# Pages claimed per batch for each fetch thread: 8 keeps every thread busy while a batch's stragglers finish,
# and keeps what a dead worker leaves to re-claim small (measured: 32-page batches on 4 threads cost ~6 ms of
# database time per batch on SQLite, under 5% of a batch's wall time on the test bed).
BATCH_PER_THREAD = 8
# Pages claimed and not yet written, per thread of the scheduler, when their hosts are not backlogged; and the
# politeness wait on one host's queue above which no more batches are claimed before the oldest is written (as
# they are not when a host has more than BATCH_PER_THREAD requests queued per slot: with no delay, a site's own
# pages queue that way, and more of them would only wait longer).
PAGES_IN_FLIGHT_PER_THREAD = 4
BACKLOG_SECONDS = 2.0

# Errors on the start page that mean the site itself cannot be audited.
FATAL_START_ERRORS = {
    "invalid_url",
    "dns",
    "connect",
    "timeout",
    "tls",
    "blocked_address",
    "redirect_loop",
    "too_many_redirects",
    "protocol",
    "robots",
}


# An in-process crawl waits this many tries (0.5 s doubling to 5 s, about 5 minutes) for its database to return.
DATABASE_RETRIES = 60


class CrawlError(ValueError):
    """A crawl cannot start as asked (bad settings); the message is for the user."""


@dataclass(frozen=True)
class StepResult:
    more: bool
    wait: float = 0.0


def crawl_config_for(
    *, site: Site, max_pages: int | None = None, max_depth: int | None = None, **overrides
) -> CrawlConfig:
    start_url = normalize_url(site.url)
    if start_url is None:
        raise CrawlError(f"{site.url!r} is not an http(s) URL that can be crawled.")
    for field_name in ("include_patterns", "exclude_patterns"):
        try:
            compile_patterns(getattr(site, field_name))
        except PatternError as exc:
            raise CrawlError(f"{field_name.replace('_', ' ')}: {exc}") from None
    site_values = {
        "max_pages": site.max_pages,
        "max_depth": site.max_depth,
        "include_patterns": site.include_patterns,
        "exclude_patterns": site.exclude_patterns,
        "concurrency": site.concurrency,
        "delay": site.delay,
        "obey_robots": site.obey_robots,
        "check_external": site.check_external,
        "external_cache_hours": site.external_cache_hours,
    }
    # What the caller asks for this one crawl wins over the site's settings, which win over the defaults.
    chosen = {"max_pages": max_pages, "max_depth": max_depth, **overrides}
    site_values.update({key: value for key, value in chosen.items() if value is not None})
    for name, value in site_values.items():
        problem = crawl_setting_problem(name, value)
        if problem:
            raise CrawlError(f"{problem.capitalize()} (sites/limits.py).")
    site_values.setdefault("extractors", extractors_for(site, settings.WEBAUDIT_PAGE_EXTRACTORS))
    return CrawlConfig.from_settings(settings, start_url=start_url, **site_values)


def crawl_start(
    *,
    site: Site,
    requested_by=None,
    enqueue: bool = True,
    max_pages: int | None = None,
    max_depth: int | None = None,
    **overrides,
) -> Crawl:
    """Create a crawl with its settings snapshot and seeded frontier; hand it to the workers on commit."""
    config = crawl_config_for(site=site, max_pages=max_pages, max_depth=max_depth, **overrides)
    with transaction.atomic():
        # Lock the site row so two clicks on "Start" cannot both pass the check below.
        Site.objects.select_for_update().filter(pk=site.pk).exists()
        active = Crawl.objects.filter(site=site, status__in=Crawl.ACTIVE).first()
        if active is not None:
            raise CrawlError(
                f"Crawl #{active.pk} of this site is still {active.status}; cancel it or wait for it."
            )
        crawl = Crawl.objects.create(
            site=site,
            baseline=crawl_baseline_for(site=site, start_url=config.start_url),
            requested_by=requested_by if getattr(requested_by, "pk", None) else None,
            settings=config.to_dict(),
            pages_queued=1,
            internal_admitted=1,
        )
        frontier_seed(crawl=crawl, url=config.start_url)
        if enqueue:
            crawl_enqueue(crawl=crawl)
    return crawl


def crawl_baseline_for(*, site: Site, start_url: str) -> Crawl | None:
    """The crawl a new crawl of `site` from `start_url` asks conditionally against: the site's newest finished
    one, if it crawled the same host (a 304's links are copied with their internal flag: frontier._copy_links)."""
    newest = Crawl.objects.filter(site=site).finished().first()
    if newest is None or site_key(newest.settings.get("start_url", "")) != site_key(start_url):
        return None
    return newest


def crawl_enqueue(*, crawl: Crawl) -> int:
    """Hand the crawl to the workers: one task chain per lane, of a new generation, so that any chain still
    around from before (a step message the broker kept after all) stops at its next step. Returns it."""
    # Found in Celery's registry by name (sites/apps.py imports the tasks), since the tasks module imports this one.
    crawl_step_task = current_app.tasks["sites.tasks.crawl_step"]
    generation = crawl_new_generation(crawl_id=crawl.pk)
    lanes = CrawlConfig.from_dict(crawl.settings).lanes
    for lane in range(lanes):
        crawl_step_task.delay_on_commit(crawl.pk, lane, generation, 1)
    return generation


def crawl_cancel(*, crawl: Crawl) -> bool:
    """Stop a queued or running crawl; what was fetched stays. Returns False if it had already ended."""
    cancelled = Crawl.objects.filter(pk=crawl.pk, status__in=Crawl.ACTIVE).update(
        status=Crawl.Status.CANCELLED, finished_at=timezone.now()
    )
    if cancelled:
        # Batches being written when the cancel came were waited for (the crawl's row lock), and none is written
        # after it (frontier_record): the counters now say what is stored, for good.
        crawl_recount(crawl=crawl)
    crawl.refresh_from_db()
    if cancelled:
        crawls_prune(site=crawl.site)
    return bool(cancelled)


def crawl_step(
    *,
    crawl_id: int,
    budget_seconds: float | None = None,
    lane: int = 0,
    generation: int | None = None,
    step: int | None = None,
) -> StepResult:
    """Fetch batches of the crawl's frontier for about `budget_seconds`; say whether more work is left.

    A step of task chain `generation` runs only if no step of its lane numbered `step` or later has started,
    and stops at its next claim (or look for the end) once the crawl has been re-enqueued under a newer generation
    (None: in-process, any); a batch it writes before then is guarded by its claim."""
    if not step_begins(crawl_id, lane, generation, step):
        return StepResult(more=False)
    crawl = Crawl.objects.select_related("site").get(pk=crawl_id)
    now = timezone.now()
    Crawl.objects.filter(pk=crawl.pk, status=Crawl.Status.QUEUED).update(
        status=Crawl.Status.RUNNING, started_at=now, heartbeat_at=now
    )
    config = CrawlConfig.from_dict(crawl.settings)
    try:
        session = sessions.get(
            crawl.pk,
            config,
            shared_reader(settings.WEBAUDIT_PAGE_READERS),
            created=crawl.created_at.isoformat(),
        )
    except ModelVersionError as exc:
        crawl_fail(crawl_id=crawl.pk, error=f"The soft-404 model cannot be used: {exc}")
        return StepResult(more=False)
    # The sitemaps matter once the links run out (their orphans are crawled last): they are read after the step's
    # first batch is written and the pages it led to are on their way, not before the start page is even asked
    # for (on a page of external links, that cost the whole crawl one politeness gap and a round trip).
    sitemaps_due = crawl.sitemap_phase == SITEMAPS_NOT_READ
    recorded = False
    lease = settings.WEBAUDIT_CRAWL_LEASE_SECONDS
    deadline = time.monotonic() + (budget_seconds or settings.WEBAUDIT_CRAWL_STEP_SECONDS)
    batch_size = config.lane_concurrency * BATCH_PER_THREAD
    # Batches are fetched while earlier ones are written to the database. Two at least, as many as keep the
    # scheduler's threads busy while no host's queue is long (external links spread over many hosts).
    max_pages = max(2 * batch_size, config.lane_fetch_concurrency * PAGES_IN_FLIGHT_PER_THREAD)
    in_flight: deque[InFlight] = deque()
    # A step always claims one batch, however late it got going: on a loaded machine a short step could
    # otherwise spend its whole budget starting up and hand over without having fetched anything.
    claims = 0
    with LeaseKeeper(crawl.pk, interval=lease / 4) as keeper:
        while True:
            # Asked before claiming and before looking for the end, not before writing a batch (its claim
            # guards it): each question costs a recrawl a few milliseconds while the fetch threads run.
            may_claim = (time.monotonic() < deadline or not claims) and _room_for_a_batch(
                session, in_flight, batch_size, max_pages
            )
            if (may_claim or not in_flight) and not step_current(crawl.pk, generation):
                sessions.drop(crawl.pk)
                return StepResult(more=False)
            if may_claim:
                claimed = _claim_and_submit(crawl, session, _claim_size(in_flight, batch_size, config), lease)
                claims += 1
                if claimed is not None:
                    keeper.hold(claimed.token)
                    in_flight.append(claimed)
                    continue
            if sitemaps_due and (recorded or not in_flight):
                sitemaps_due = False
                _read_sitemaps(crawl, session, config)
                continue
            if in_flight:
                # The oldest batch, and with it those after it that are done too, in one transaction.
                batches = [in_flight.popleft()]
                while in_flight and in_flight[0].done():
                    batches.append(in_flight.popleft())
                _record(crawl, session, config, batches)
                recorded = True
                for batch in batches:
                    keeper.release(batch.token)
                continue
            if time.monotonic() >= deadline:
                return StepResult(more=True)
            status = frontier_status(crawl=crawl, lease_seconds=lease)
            if status.finished:
                if sitemaps_pending(crawl=crawl):
                    _heartbeat(crawl)
                    return StepResult(more=True, wait=1.0)
                if sitemap_orphans_admit(crawl=crawl, config=config):
                    continue  # the sitemap's orphans are crawled too
                crawl_finish(crawl=crawl)
                sessions.drop(crawl.pk)
                return StepResult(more=False)
            _heartbeat(crawl)
            return StepResult(more=True, wait=status.wait_seconds)


def _room_for_a_batch(
    session: CrawlSession, in_flight: deque[InFlight], batch_size: int, max_pages: int
) -> bool:
    """Whether to claim another batch before writing the oldest: yes for the first two, then while the pages in
    flight are few enough and no host's queue holds more than a few seconds of politeness (a site's own pages
    all wait on one host: more of them would only wait longer)."""
    if len(in_flight) < 2:
        return True
    pending = sum(len(batch.pages) for batch in in_flight)
    if pending + batch_size > max_pages:
        return False
    seconds, per_slot = session.scheduler.backlog()
    return seconds < BACKLOG_SECONDS and per_slot < BATCH_PER_THREAD


def _claim_size(in_flight: deque[InFlight], batch_size: int, config: CrawlConfig) -> int:
    """Pages to claim: a batch of the site's own pages keeps its one host busy; when the last batch held only
    external targets (on many hosts, so many threads can take them at once), as many as there are threads."""
    if in_flight and not any(page.is_internal for page in in_flight[-1].pages):
        return max(batch_size, config.lane_fetch_concurrency)
    return batch_size


@dataclass
class InFlight:
    token: uuid.UUID
    pages: list[Page]
    futures: list[Future[PageOutcome]]

    def done(self) -> bool:
        return all(future.done() for future in self.futures)

    def outcomes(self) -> list[PageOutcome]:
        return [future.result() for future in self.futures]


def _claim_and_submit(crawl: Crawl, session: CrawlSession, size: int, lease: float) -> InFlight | None:
    token, pages = frontier_claim(crawl=crawl, size=size, lease_seconds=lease)
    if not pages:
        return None
    threads = session.config.lane_fetch_concurrency
    if len(pages) == size < threads and not any(page.is_internal for page in pages):
        # External targets, on many hosts, and more may wait: as many as there are threads in this one batch (the
        # first claim after a page of links took a site-sized batch, and each claim more delayed the last targets).
        pages += frontier_claim(crawl=crawl, size=threads - size, lease_seconds=lease, token=token)[1]
    _learn_stored_robots(crawl, session, [page.url for page in pages])
    baseline = frontier_validators(crawl=crawl, pages=pages)
    # Probes another worker already fetched for this crawl are reused, not fetched again; a page asked for
    # conditionally needs none unless it changed (a recrawl's batches of 304s skip the query).
    unvalidated = [page.url for page in pages if page.pk not in baseline]
    if session.probes is not None and unvalidated:
        session.probes.learn(probes_load(crawl=crawl, directories=session.probes.missing(unvalidated)))
    cached = external_cache_lookup(
        owner_id=crawl.site.owner_id,
        url_keys=[page.url_key for page in pages if not page.is_internal and not page.attempts],
        max_age_hours=session.config.external_cache_hours,
        now=timezone.now(),
    )
    futures = []
    for page in pages:
        job = FetchJob(page.pk, page.url, page.is_internal, page.attempts, baseline.get(page.pk))
        hit = None if page.is_internal else cached.get(page.url_key)
        futures.append(completed(PageOutcome(job, cached=hit)) if hit else session.submit(job))
    return InFlight(token, pages, futures)


def _record(crawl: Crawl, session: CrawlSession, config: CrawlConfig, batches: list[InFlight]) -> None:
    outcomes = [outcome for batch in batches for outcome in batch.outcomes()]
    frontier_record(
        crawl=crawl,
        scope=session.scope,
        config=config,
        tokens=[batch.token for batch in batches],
        pages=[page for batch in batches for page in batch.pages],
        outcomes=outcomes,
        extra_requests=_store_fetched_robots(crawl, session),
    )


def _learn_stored_robots(crawl: Crawl, session: CrawlSession, urls: list[str]) -> None:
    """Give the session the robots.txt of `urls`' origins that another step or worker of the crawl stored; the
    others are fetched by the first page of each origin that needs them."""
    missing = session.origins_missing_robots(urls)
    if not missing:
        return
    stored = {
        site_origin: (text, (error_kind, error) if error_kind else None)
        for site_origin, text, error_kind, error in RobotsFile.objects.filter(
            crawl=crawl, origin__in=missing
        ).values_list("origin", "text", "error_kind", "error")
    }
    session.learn_robots(stored)


def _store_fetched_robots(crawl: Crawl, session: CrawlSession) -> int:
    """Store the robots.txt answers the session fetched since the last batch; return how many (requests made)."""
    answers = session.take_fetched_robots()
    RobotsFile.objects.bulk_create(
        [
            RobotsFile(
                crawl=crawl,
                origin=site_origin,
                text=text,
                error_kind=failure[0][:32] if failure else "",
                error=failure[1][:1000] if failure else "",
            )
            for site_origin, (text, failure) in answers.items()
        ],
        ignore_conflicts=True,
    )
    return len(answers)


def _ensure_robots(crawl: Crawl, session: CrawlSession, urls: list[str]) -> int:
    """Make sure the session knows robots.txt of every origin in `urls` now (stored by another step, else fetched
    and stored); return the requests it took."""
    _learn_stored_robots(crawl, session, urls)
    missing = session.origins_missing_robots(urls)
    if missing:
        session.fetch_robots(missing)
    return _store_fetched_robots(crawl, session)


def _read_sitemaps(crawl: Crawl, session: CrawlSession, config: CrawlConfig) -> None:
    """The site's sitemaps, read once the crawl's first batch is written (they need its robots.txt: the Sitemap
    lines, and whether /sitemap.xml may be read)."""
    robots_requests = _ensure_robots(crawl, session, [config.start_url])
    if robots_requests:
        Crawl.objects.filter(pk=crawl.pk).update(requests_made=F("requests_made") + robots_requests)
    sitemaps_read(crawl=crawl, session=session)


def _heartbeat(crawl: Crawl) -> None:
    Crawl.objects.filter(pk=crawl.pk).update(heartbeat_at=timezone.now())


def crawl_recount(*, crawl: Crawl) -> None:
    """Set the crawl's page counters from its pages (once, at its end; batches add to them as they go)."""
    counts = Page.objects.filter(crawl=crawl).aggregate(
        done=Count("id", filter=Q(state=Page.State.DONE)),
        pending=Count("id", filter=~Q(state=Page.State.DONE)),
        failed=Count("id", filter=BROKEN_CHECKED),
        external_done=Count("id", filter=Q(state=Page.State.DONE, is_internal=False)),
    )
    Crawl.objects.filter(pk=crawl.pk).update(
        pages_done=counts["done"],
        pages_queued=counts["pending"],
        pages_failed=counts["failed"],
        external_done=counts["external_done"],
        heartbeat_at=timezone.now(),
    )


def crawl_finish(*, crawl: Crawl) -> None:
    """Mark the crawl finished, or failed with a readable error when its start page could not be fetched."""
    crawl_recount(crawl=crawl)
    start = Page.objects.filter(crawl=crawl, depth=0).first()
    error, status = "", Crawl.Status.FINISHED
    if start is not None and start.error_kind in FATAL_START_ERRORS:
        status = Crawl.Status.FAILED
        error = f"The start URL {start.url} could not be fetched: {start.fetch_error}"
    ended = Crawl.objects.filter(pk=crawl.pk, status__in=Crawl.ACTIVE).update(
        status=status, error=error, finished_at=timezone.now()
    )
    crawl.refresh_from_db()
    if ended:
        crawls_prune(site=crawl.site)
    if ended and status == Crawl.Status.FINISHED:
        crawl_finished_hooks_run(crawl=crawl)


def crawl_finished_hooks_run(*, crawl: Crawl) -> None:
    """Call each of settings.WEBAUDIT_CRAWL_FINISHED_HOOKS with the crawl; one that fails is only logged."""
    for path in settings.WEBAUDIT_CRAWL_FINISHED_HOOKS:
        try:
            import_string(path.replace(":", "."))(crawl=crawl)
        except Exception:  # an analysis' failure must never fail the crawl it follows
            log.exception("crawl-finished hook %s failed for crawl %s", path, crawl.pk)


def crawl_finished_hooks_import() -> None:
    """Import the crawl-finished hooks' modules now (a process about to crawl), not as its first crawl ends; a
    hook that cannot be imported is left for crawl_finished_hooks_run to log."""
    for path in settings.WEBAUDIT_CRAWL_FINISHED_HOOKS:
        try:
            import_string(path.replace(":", "."))
        except ImportError:
            pass


def crawl_fail(*, crawl_id: int, error: str) -> None:
    failed = Crawl.objects.filter(pk=crawl_id, status__in=Crawl.ACTIVE).update(
        status=Crawl.Status.FAILED, error=error[:5000], finished_at=timezone.now()
    )
    if failed:
        crawls_prune(site=Crawl.objects.get(pk=crawl_id).site)


def crawls_resume_stalled() -> list[int]:
    """Re-enqueue active crawls no worker has reported on within the lease (their worker died); return ids."""
    lease = timedelta(seconds=settings.WEBAUDIT_CRAWL_LEASE_SECONDS)
    resumed = []
    for crawl in crawls_stalled():
        # Touching the heartbeat first keeps a second resume check from enqueueing the same crawl again.
        if Crawl.objects.filter(pk=crawl.pk, status__in=Crawl.ACTIVE).update(heartbeat_at=timezone.now()):
            log.warning("crawl %s stalled (no progress for %s); resuming", crawl.pk, lease)
            crawl_enqueue(crawl=crawl)
            resumed.append(crawl.pk)
    return resumed


def crawl_take_over(*, crawl: Crawl, enqueue: bool = False) -> Crawl:
    """Carry on a stalled crawl here: a new generation stops any chain of it still queued somewhere, and its
    claims have gone stale, so every page is still fetched exactly once. `enqueue` hands it to the workers."""
    if enqueue:
        crawl_enqueue(crawl=crawl)
    else:
        crawl_new_generation(crawl_id=crawl.pk)
    _heartbeat(crawl)
    crawl.refresh_from_db()
    return crawl


def crawl_run(
    *, crawl: Crawl, on_progress: Callable[[Crawl], None] | None = None, step_seconds: float = 1.0
) -> Crawl:
    """Run a crawl to its end in this process (the CLI and tests), reporting progress after every step.

    A database that goes away (a restart) is waited for: the step is tried again, backing off up to 5 s."""
    retries = 0
    while True:
        try:
            result = crawl_step(crawl_id=crawl.pk, budget_seconds=step_seconds)
            crawl.refresh_from_db()
        except (OperationalError, InterfaceError) as exc:
            db.connection.close()
            retries += 1
            if retries > DATABASE_RETRIES:
                raise
            log.warning("crawl %s: database unavailable (%s); trying again", crawl.pk, exc)
            time.sleep(min(5.0, 0.5 * 2**retries))
            continue
        retries = 0
        if on_progress:
            on_progress(crawl)
        if not result.more:
            return crawl
        if result.wait:
            time.sleep(min(result.wait, 5.0))
