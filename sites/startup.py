"""What a process that crawls does once it has loaded what it needs, before its first crawl."""

from __future__ import annotations

import gc
import resource

from sites.services.crawls import crawl_finished_hooks_import


def prepare_crawling_process() -> None:
    """Import what every crawl ends with, then move every object alive (Django, the apps, their models, those
    modules) out of the garbage collector's sight for good: they live as long as the process. Otherwise the first
    full collection of a crawl walks them all again, about 140,000 objects and 90 ms of CPU in the middle of a
    fresh process's first crawl (docs/benchmarks.md, "External links vs lychee"), and each later one does too."""
    crawl_finished_hooks_import()
    gc.collect()
    gc.freeze()
    open_files_limit_raise()


# Descriptors a crawling process may need: WEBAUDIT_FETCH_CONCURRENCY sockets in flight (up to 1,024), a kept
# connection for each of as many hosts, the page readers' pipes and the database's.
OPEN_FILES_WANTED = 4096


def open_files_limit_raise(wanted: int = OPEN_FILES_WANTED) -> int:
    """Raise this process's soft limit on open files towards `wanted`, within the hard limit the system sets (a
    service often starts with a soft limit of 1,024, which 256 requests at once and their hosts' kept connections
    come close to); return the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):  # a system that refuses keeps its limit: the crawl still runs, in it
            return soft
        return target
    return soft
