"""The analyses' per-page extracts (the readers' hook, docs/analysis-jobs.md): read them, and backfill them
for pages crawled before an extractor ran, from the stored bodies."""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings
from django.db.models import Exists, OuterRef

from sites.crawler.extractors import extracts_read
from sites.crawler.parse import parse_document
from sites.models import Crawl, PageBody, PageExtract

# Bodies read per query while backfilling: a documentation page is ~50 KB compressed, so 200 keep memory low.
BACKFILL_CHUNK = 200


class ExtractorUnknown(LookupError):
    """No extractor of that name is configured."""


def page_extracts(*, crawl: Crawl, name: str, chunk: int = 2000) -> Iterator[tuple[int, bytes]]:
    """(page id, data) of every stored extract `name` of the crawl, in page order, a chunk of rows at a time."""
    last = 0
    while True:
        rows = list(
            PageExtract.objects.filter(page__crawl=crawl, name=name, page_id__gt=last)
            .order_by("page_id")
            .values_list("page_id", "data")[:chunk]
        )
        for page_id, data in rows:
            yield page_id, bytes(data)
        if len(rows) < chunk:
            return
        last = rows[-1][0]


def pages_missing_extract(*, crawl: Crawl, name: str):
    """Pages of the crawl with a stored body but no extract `name`: what a backfill has left to do."""
    has_extract = PageExtract.objects.filter(page=OuterRef("page"), name=name)
    return PageBody.objects.filter(page__crawl=crawl).exclude(Exists(has_extract))


def page_extracts_backfill(*, crawl: Crawl, name: str, limit: int | None = None) -> int:
    """Run extractor `name` over the stored bodies of pages that lack its extract (up to `limit` pages) and
    store the results; return how many pages were read (0 when none is left)."""
    path = settings.WEBAUDIT_PAGE_EXTRACTORS.get(name)
    if path is None:
        raise ExtractorUnknown(f"no page extractor named {name!r} is configured")
    read = 0
    while limit is None or read < limit:
        size = BACKFILL_CHUNK if limit is None else min(BACKFILL_CHUNK, limit - read)
        bodies = list(
            pages_missing_extract(crawl=crawl, name=name).select_related("page").order_by("page_id")[:size]
        )
        if not bodies:
            break
        extracts, empty = [], []
        for body in bodies:
            data = _extract_from_body(body, name, path)
            if data is None:
                empty.append(body.page_id)
            else:
                extracts.append(PageExtract(page_id=body.page_id, name=name, data=data))
        # A page the extractor has nothing for gets an empty extract, so that it is not read again and again.
        extracts += [PageExtract(page_id=page_id, name=name, data=b"") for page_id in empty]
        PageExtract.objects.bulk_create(extracts, batch_size=100, ignore_conflicts=True)
        read += len(bodies)
    return read


def _extract_from_body(body: PageBody, name: str, path: str) -> bytes | None:
    content = body.content
    root, _ = parse_document(content, body.encoding or None)
    if root is None:
        return None
    return extracts_read([(name, path)], root, url=body.page.final_url or body.page.url, body=content).get(
        name
    )
