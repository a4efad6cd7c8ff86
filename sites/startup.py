"""What a process that crawls does once it has loaded what it needs, before its first crawl."""

from __future__ import annotations

import gc

from sites.services.crawls import crawl_finished_hooks_import


def prepare_crawling_process() -> None:
    """Import what every crawl ends with, then move every object alive (Django, the apps, their models, those
    modules) out of the garbage collector's sight for good: they live as long as the process. Otherwise the first
    full collection of a crawl walks them all again, about 140,000 objects and 90 ms of CPU in the middle of a
    fresh process's first crawl (docs/benchmarks.md, "External links vs lychee"), and each later one does too."""
    crawl_finished_hooks_import()
    gc.collect()
    gc.freeze()
