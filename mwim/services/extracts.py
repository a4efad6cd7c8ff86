"""Keep an MWIM site's Content Extract files in step with its crawls: after each finished crawl, the `ce` job
stores the extracts the page readers made, replacing a file only when its page's fingerprint changed."""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from checks.jobs import JobContext, JobError, job_start
from mwim.ce import CEFormatError, fingerprint_of
from mwim.models import ContentExtractFile, MwimSite
from sites.models import Crawl, Page, PageExtract, Verdict, url_key
from sites.services.extracts import page_extracts_backfill

log = logging.getLogger(__name__)

EXTRACT_NAME = "ce"
# Pages compared and written per transaction: a documentation page's CE is ~5 KB, so 200 keep a chunk near
# 1 MB and a step's progress frequent.
CHUNK = 200
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
    """One step of the `ce` job: backfill missing extracts, then compare and store them a chunk at a time."""
    crawl = ctx.job.crawl
    mwim_site = MwimSite.objects.filter(site_id=crawl.site_id).first()
    if mwim_site is None:
        raise JobError("the site is not registered for MWIM")
    state = ctx.state
    state.setdefault("phase", "backfill")
    listable = pages_listable(crawl)
    total = listable.count()
    while not ctx.time_up():
        if state["phase"] == "backfill":
            # Pages crawled before MWIM was enabled, or whose reader failed, have no extract yet.
            read = page_extracts_backfill(crawl=crawl, name=EXTRACT_NAME, limit=CHUNK)
            with transaction.atomic():
                if not read:
                    state["phase"], state["after"] = "compare", 0
                ctx.progress(done=0, total=total, note=f"reading pages without an extract ({read} more)")
            continue
        if state["phase"] == "compare":
            pages = list(
                listable.filter(pk__gt=state["after"]).order_by("pk").values_list("pk", "url")[:CHUNK]
            )
            with transaction.atomic():
                _store_chunk(mwim_site, crawl, pages, state)
                state["after"] = pages[-1][0] if pages else state["after"]
                state["done"] = state.get("done", 0) + len(pages)
                if len(pages) < CHUNK:
                    state["phase"] = "finish"
                ctx.progress(done=state["done"], total=total, note=_note(state))
            continue
        with transaction.atomic():
            _finish(mwim_site, crawl, state)
            ctx.progress(done=total, total=total, note=_note(state))
        ctx.finish(result=_result(state))
        return True
    return False


def _note(state: dict) -> str:
    return (
        f"{state.get('done', 0):,} pages · {state.get('changed', 0):,} changed · "
        f"{state.get('unchanged', 0):,} unchanged · {state.get('kept', 0):,} kept"
    )


def _store_chunk(mwim_site: MwimSite, crawl: Crawl, pages: list[tuple[int, str]], state: dict) -> None:
    if not pages:
        return
    urls = dict(pages)
    extracts = dict(
        PageExtract.objects.filter(page_id__in=urls, name=EXTRACT_NAME).values_list("page_id", "data")
    )
    keys = {page_id: url_key(url) for page_id, url in urls.items()}
    current = {
        row.url_key: row
        for row in ContentExtractFile.objects.filter(mwim_site=mwim_site, url_key__in=keys.values())
    }
    now = timezone.now()
    changed = state.setdefault("changed_urls", [])
    for page_id, url in urls.items():
        key, data = keys[page_id], bytes(extracts.get(page_id) or b"")
        row = current.get(key)
        try:
            fingerprint = fingerprint_of(data)
        except CEFormatError as exc:
            # No good extract for this crawl: the previous good file (if any) stays served.
            log.warning("no usable content extract for %s: %s", url, exc)
            state["kept"] = state.get("kept", 0) + 1
            if row is not None:
                ContentExtractFile.objects.filter(pk=row.pk).update(crawl=crawl, listed=True)
            continue
        if row is None:
            ContentExtractFile.objects.create(
                mwim_site=mwim_site, url=url, url_key=key, data=data, fingerprint=fingerprint,
                updated_at=now, crawl=crawl, listed=True,
            )  # fmt: skip
        elif row.fingerprint != fingerprint:
            ContentExtractFile.objects.filter(pk=row.pk).update(
                data=data, fingerprint=fingerprint, updated_at=now, crawl=crawl, listed=True
            )
        else:
            ContentExtractFile.objects.filter(pk=row.pk).update(crawl=crawl, listed=True)
            state["unchanged"] = state.get("unchanged", 0) + 1
            continue
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
    if state.get("changed_urls") and mwim_site.indexnow_endpoints:
        from mwim.services.notify import indexnow_announce

        state["indexnow"] = indexnow_announce(mwim_site=mwim_site, urls=state["changed_urls"])


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
    from urllib.parse import urlsplit

    from sites.crawler.urls import normalize_url

    normalized = normalize_url(url) if url else None
    if not normalized:
        return "give the changed page as url=<absolute http(s) URL>"
    if urlsplit(normalized).netloc != urlsplit(mwim_site.site.url).netloc:
        return f"{url} is not on {urlsplit(mwim_site.site.url).netloc}"
    return ""


def ce_refresh_page(*, mwim_site: MwimSite, url: str) -> str:
    """Fetch one page now (a push said it changed) and replace its CE file if its fingerprint changed; return
    "changed", "unchanged", or why nothing was stored (the previous good file stays)."""
    from mwim.extract import content_extract
    from mwim.services.registration import fetch_policy
    from sites.crawler.parse import parse_document
    from sites.crawler.urls import normalize_url
    from sites.http import Fetcher, decode_body

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
        from mwim.services.notify import indexnow_announce

        indexnow_announce(mwim_site=mwim_site, urls=[url])
    return "changed"
