"""Keep an MWIM site's Content Extract files in step with its crawls: after each finished crawl, the `ce` job
stores the extracts the page readers made, replacing a file only when its page's fingerprint changed."""

from __future__ import annotations

import logging
import time
from urllib.parse import urlsplit

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from checks.jobs import JobContext, JobError, job_start
from mwim.ce import CEFormatError, fingerprint_of
from mwim.extract import content_extract
from mwim.models import ContentExtractFile, MwimSite
from mwim.services.notify import indexnow_announce
from mwim.services.registration import fetch_policy
from sites.crawler.parse import parse_document
from sites.crawler.urls import normalize_url
from sites.http import Fetcher, decode_body
from sites.models import Crawl, Page, PageBody, PageExtract, Verdict, url_key

log = logging.getLogger(__name__)

EXTRACT_NAME = "ce"
# Pages compared per transaction. An unchanged page costs a comparison; a changed one without a reader-made
# extract is parsed and extracted here (1.2 ms median, 24 ms p95 on the test bed, docs/benchmarks.md). The first
# chunk takes FIRST_CHUNK (under a second at p95), later ones are sized to a quarter of the step's budget
# (JobContext.chunk_size), up to MOST_CHUNK.
FIRST_CHUNK = 25
MOST_CHUNK = 1000
# Changed URLs the job remembers for its report and for IndexNow (which takes 10,000 per request).
MAX_CHANGED_KEPT = 10_000
# A pushed page is fetched with the crawl's own cap on bodies.
PAGE_MAX_BYTES = 5_000_000


def pages_listable(crawl: Crawl) -> QuerySet[Page]:
    """The crawl's pages a sitemap lists: fetched HTML answering 200 at their own URL, judged live, not
    noindex, canonical (no canonical link, or one to themselves), and not a duplicate of another such page
    (same body: the one nearest the start page is kept). Soft-404s and dead pages stay out."""
    live = (
        Page.objects.filter(
            crawl=crawl,
            is_internal=True,
            state=Page.State.DONE,
            status_code=200,
            verdict=Verdict.OK,
            noindex=False,
            content_type__icontains="html",
        )  # fmt: skip
        .filter(Q(final_url="") | Q(final_url=F("url")))
        .filter(Q(canonical_url="") | Q(canonical_url=F("url")))
    )
    earlier_twin = live.filter(content_hash=OuterRef("content_hash")).filter(
        Q(depth__lt=OuterRef("depth")) | Q(depth=OuterRef("depth"), pk__lt=OuterRef("pk"))
    )
    return live.exclude(Q(content_hash__gt="") & Exists(earlier_twin))


def mwim_crawl_finished(*, crawl: Crawl) -> None:
    """The crawl-finished hook: start the `ce` job after each finished crawl of an MWIM-enabled site."""
    if MwimSite.objects.filter(site_id=crawl.site_id, enabled=True).exists():
        job_start(kind="ce", crawl=crawl, site=crawl.site, parameters={})


def ce_refresh_step(ctx: JobContext) -> bool:
    """One step of the `ce` job: compare each listed page's fingerprint with its CE file's, a chunk at a time,
    and make a new file only for the pages that changed."""
    crawl = ctx.job.crawl
    mwim_site = MwimSite.objects.filter(site_id=crawl.site_id).first()
    if mwim_site is None:
        raise JobError("the site is not registered for MWIM")
    state = ctx.state
    state.setdefault("phase", "compare")
    state.setdefault("after", 0)
    listable = pages_listable(crawl)
    total = listable.count()
    while not ctx.time_up():
        if state["phase"] == "compare":
            size = ctx.chunk_size("compare", first=FIRST_CHUNK, most=MOST_CHUNK)
            started = time.monotonic()
            pages = list(
                listable.filter(pk__gt=state["after"])
                .order_by("pk")
                .values_list("pk", "url", "content_hash")[:size]
            )
            with transaction.atomic():
                _store_chunk(mwim_site, crawl, pages, state)
                state["after"] = pages[-1][0] if pages else state["after"]
                state["done"] = state.get("done", 0) + len(pages)
                if len(pages) < size:
                    state["phase"] = "finish"
                ctx.progress(done=state["done"], total=total, note=_note(state))
            ctx.chunk_took("compare", size=size, seconds=time.monotonic() - started, most=MOST_CHUNK)
            continue
        if state["phase"] == "finish":
            with transaction.atomic():
                _finish(mwim_site, crawl, state)
                state["phase"] = "announce"
                ctx.progress(done=total, total=total, note=_note(state))
            continue
        # Announced outside any transaction: the endpoints' answers (up to the fetch timeout each) must not
        # hold the database's write lock.
        if state.get("changed_urls") and mwim_site.indexnow_endpoints:
            state["indexnow"] = indexnow_announce(mwim_site=mwim_site, urls=state["changed_urls"])
        with transaction.atomic():
            ctx.progress(done=total, total=total, note=_note(state))
        ctx.finish(result=_result(state))
        return True
    return False


def _note(state: dict) -> str:
    return (
        f"{state.get('done', 0):,} pages · {state.get('changed', 0):,} changed · "
        f"{state.get('unchanged', 0):,} unchanged · {state.get('kept', 0):,} kept"
    )


def new_extract(page_id: int, url: str, fingerprint: str, from_reader: bytes | None) -> bytes | None:
    """The page's CE file: the one its page reader made, when it is of this very body; else made now from the
    stored body; None when there is no readable body."""
    if from_reader:
        try:
            if fingerprint_of(from_reader) == fingerprint:
                return from_reader
        except CEFormatError:
            pass
    body = PageBody.objects.filter(page_id=page_id).first()
    if body is None:
        return None
    content = body.content
    root, _ = parse_document(content, body.encoding or None)
    return None if root is None else content_extract(root, url=url, body=content)


def _store_chunk(mwim_site: MwimSite, crawl: Crawl, pages: list[tuple[int, str, str]], state: dict) -> None:
    if not pages:
        return
    keys = {page_id: url_key(url) for page_id, url, _ in pages}
    current = {
        row.url_key: row
        for row in ContentExtractFile.objects.filter(mwim_site=mwim_site, url_key__in=keys.values()).defer(
            "data"
        )
    }
    # Only the pages whose body changed need an extract: the others keep their file, and their bytes.
    changed_pages = [
        (page_id, url, content_hash)
        for page_id, url, content_hash in pages
        if not (keys[page_id] in current and current[keys[page_id]].fingerprint == f"sha256:{content_hash}")
    ]
    made = dict(
        PageExtract.objects.filter(
            page_id__in=[page[0] for page in changed_pages], name=EXTRACT_NAME
        ).values_list("page_id", "data")
    )
    changed_ids = {page[0] for page in changed_pages}
    unchanged = [current[keys[page_id]].pk for page_id, *_ in pages if page_id not in changed_ids]
    ContentExtractFile.objects.filter(pk__in=unchanged).update(crawl=crawl, listed=True)
    state["unchanged"] = state.get("unchanged", 0) + len(unchanged)
    now = timezone.now()
    changed = state.setdefault("changed_urls", [])
    for page_id, url, content_hash in changed_pages:
        key, row = keys[page_id], current.get(keys[page_id])
        fingerprint = f"sha256:{content_hash}"
        data = new_extract(page_id, url, fingerprint, bytes(made[page_id]) if page_id in made else None)
        if not content_hash or data is None:
            # No good extract from this crawl: the previous good file (if any) stays served.
            log.warning("no usable content extract for %s", url)
            state["kept"] = state.get("kept", 0) + 1
            if row is not None:
                ContentExtractFile.objects.filter(pk=row.pk).update(crawl=crawl, listed=True)
            continue
        ContentExtractFile.objects.update_or_create(
            mwim_site=mwim_site, url_key=key,
            defaults={"url": url, "data": data, "fingerprint": fingerprint_of(data), "updated_at": now,
                      "crawl": crawl, "listed": True},
        )  # fmt: skip
        state["changed"] = state.get("changed", 0) + 1
        if len(changed) < MAX_CHANGED_KEPT:
            changed.append(url)


def _finish(mwim_site: MwimSite, crawl: Crawl, state: dict) -> None:
    """Unlist the pages this crawl did not find listable, and date the sitemap if anything changed."""
    gone = (
        ContentExtractFile.objects.filter(mwim_site=mwim_site, listed=True)
        .exclude(crawl=crawl)
        .update(listed=False)
    )
    state["unlisted"] = gone
    if gone or state.get("changed") or mwim_site.published_at is None:
        MwimSite.objects.filter(pk=mwim_site.pk).update(published_at=timezone.now())


def _result(state: dict) -> dict:
    return {
        "pages": state.get("done", 0),
        "changed": state.get("changed", 0),
        "unchanged": state.get("unchanged", 0),
        "kept_previous": state.get("kept", 0),
        "unlisted": state.get("unlisted", 0),
        "changed_urls": state.get("changed_urls", [])[:100],
        "indexnow": state.get("indexnow", []),
    }


def push_url_problem(*, mwim_site: MwimSite, url: str) -> str:
    """Why a pushed URL cannot be refreshed ("" when it can): it must be an http(s) URL on the site's host."""
    normalized = normalize_url(url) if url else None
    if not normalized:
        return "give the changed page as url=<absolute http(s) URL>"
    if urlsplit(normalized).netloc != urlsplit(mwim_site.site.url).netloc:
        return f"{url} is not on {urlsplit(mwim_site.site.url).netloc}"
    return ""


def ce_refresh_page(*, mwim_site: MwimSite, url: str) -> str:
    """Fetch one page now (a push said it changed) and replace its CE file if its fingerprint changed; return
    "changed", "unchanged", or why nothing was stored (the previous good file stays)."""
    url = normalize_url(url) or url
    with Fetcher(fetch_policy(max_bytes=PAGE_MAX_BYTES)) as fetcher:
        answer = fetcher.fetch(url)
    if answer.error_kind or answer.status != 200 or not answer.is_html or answer.final_url != url:
        reason = (
            answer.error or f"HTTP {answer.status} at {answer.final_url}, {answer.content_type or 'no type'}"
        )
        return f"not refreshed: {reason}"
    _, encoding = decode_body(answer.body[:65536], answer.charset)
    root, error = parse_document(answer.body, encoding or None)
    if root is None:
        return f"not refreshed: {error}"
    data = content_extract(root, url=url, body=answer.body)
    fingerprint = fingerprint_of(data)
    key = url_key(url)
    with transaction.atomic():
        row = ContentExtractFile.objects.select_for_update().filter(mwim_site=mwim_site, url_key=key).first()
        if row is not None and row.fingerprint == fingerprint:
            return "unchanged"
        now = timezone.now()
        ContentExtractFile.objects.update_or_create(
            mwim_site=mwim_site, url_key=key,
            defaults={"url": url, "data": data, "fingerprint": fingerprint, "updated_at": now, "listed": True},
        )  # fmt: skip
        MwimSite.objects.filter(pk=mwim_site.pk).update(published_at=now)
    if mwim_site.indexnow_endpoints:
        indexnow_announce(mwim_site=mwim_site, urls=[url])
    return "changed"
