"""Training pages the crawls labelled themselves through the probe, as Prieto et al. built their data set.

The answer a soft-404 server gives for a random URL is a soft-404 page by construction (positive); a page the
probe judged alive on a server that does not answer unknown URLs with its content is a real page (negative).
Only answers served in place are positives: a server that redirects unknown URLs home, or falls back to its
home page (a single-page app), answers with a real page's content, which must not be learnt as an error page.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from sites.crawler.soft404.probe import DEFAULT_RESEMBLANCE_THRESHOLD as RESEMBLING
from sites.crawler.soft404.probe import resemblance
from sites.crawler.soft404.probing import text_of_html
from sites.models import DirectoryProbe, Page, PageBody

# Probe reasons that mean the page is real: the server answered it differently from a URL that does not exist.
ALIVE_BY_PROBE = (
    "server answers unknown URLs with an error (hard 404)",
    "different number of redirects than the probe",
    "different content from the probe",
)


@dataclass(frozen=True)
class LabelledPage:
    html: bytes
    url: str
    label: int  # 1 soft-404, 0 real page
    source: str


def _root_text(crawl_id: int) -> str:
    root = PageBody.objects.filter(page__crawl_id=crawl_id, page__depth=0).first()
    return text_of_html(root.content) if root else ""


def crawl_labelled_pages(*, per_crawl: int = 200) -> Iterator[LabelledPage]:
    """Probe answers that were HTML successes served in place (soft-404s, each distinct text once) and pages
    the probe judged alive, per crawl at most `per_crawl` of each, so one big crawl cannot outweigh the rest."""
    crawl_ids = DirectoryProbe.objects.values_list("crawl_id", flat=True).distinct()
    for crawl_id in crawl_ids.iterator():
        # Directory probes only: a query or identifier probe's answer is the page's own content when the server
        # ignores the value, so it is no soft-404 by construction (probe_targets: their keys hold "?" or "{").
        probes = (
            DirectoryProbe.objects.filter(
                crawl_id=crawl_id, status__gte=200, status__lt=300, redirects=0, body__isnull=False
            )
            .exclude(directory__contains="?")
            .exclude(directory__contains="{")
            .values_list("url", "text", "body")
        )
        root_text, seen = _root_text(crawl_id), set()
        for url, text, body in probes:
            if len(seen) >= per_crawl or text in seen or resemblance(text, root_text) >= RESEMBLING:
                continue
            seen.add(text)
            yield LabelledPage(zlib.decompress(body), url, 1, f"crawl {crawl_id}: probe answer")
        alive = Page.objects.filter(
            crawl_id=crawl_id, verdict="ok", probe__reason__in=ALIVE_BY_PROBE
        ).values_list("id", "url")[:per_crawl]
        bodies = PageBody.objects.in_bulk([page_id for page_id, _ in alive])
        for page_id, url in alive:
            if page_id in bodies:
                yield LabelledPage(bodies[page_id].content, url, 0, f"crawl {crawl_id}: alive by the probe")
