"""Read a fetched HTML page (links, title, soft-404 features and probability) in processes of its own.

A crawl fetches with many threads, but reading pages is CPU work in Python and lxml, which one process runs on
one core at a time (the GIL). Worse, lxml lets go of the GIL for each parse and XPath, and a thread that let go
waits for the others to take it back: reading pages in the fetch threads kept a crawl at about one core and
made it slower than Scrapy. So each page goes, as bytes, to a small pool of processes shared by every crawl of
this process, and comes back as plain data; the fetch threads only wait for it.

Nothing here needs Django: the pool's processes import this module and what it reads pages with, no more.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from sites.crawler.parse import ParsedPage, extract_page, parse_document
from sites.http.decoding import decode_body

log = logging.getLogger(__name__)

# Bytes given to charset detection when neither headers nor the page name one: detection is slow on big pages.
DETECTION_SAMPLE = 65536
# How often a page is sent again to a fresh pool after the pool's process died under it (killed, out of memory).
PROCESS_DEATH_RETRIES = 1


@dataclass(frozen=True)
class PageRequest:
    """One page to read: its body as fetched and what the crawl wants from it."""

    body: bytes
    url: str  # the final URL, against which links resolve
    charset: str | None = None  # from the Content-Type header
    with_links: bool = True
    # The soft-404 model file ("" for the shipped one); None when the crawl does not classify.
    model: str | None = ""
    # The visible text is needed only to compare a page with its directory's probe (docs/soft404.md).
    with_text: bool = False


@dataclass
class PageReading:
    """What was read from one page; plain data, so that it crosses from the pool's process cheaply."""

    encoding: str = ""
    page: ParsedPage = field(default_factory=ParsedPage)
    parsed: bool = False  # False when the body could not be parsed: page.error says why
    probability: float | None = None  # of being a soft-404, by the classifier
    says_not_found: bool | None = None  # the page carries not-found or parked wording
    text: str | None = None  # visible text, when asked for


def read_page(request: PageRequest) -> PageReading:
    """Parse `request.body` once and read everything the crawl asked for from the tree."""
    # Imported here: the classifier's modules are what a pool process spends its start-up on, and a process
    # reading pages for a crawl without the classifier does not need them.
    from checks.soft404.features import extract_from_tree
    from checks.soft404.probing import visible_text
    from checks.soft404.shipped import soft404_model
    from checks.soft404.verdict import page_says_not_found

    _, encoding = decode_body(request.body[:DETECTION_SAMPLE], request.charset)
    root, error = parse_document(request.body, encoding or None)
    if root is None:
        return PageReading(encoding=encoding, page=ParsedPage(error=error))
    reading = PageReading(encoding=encoding, parsed=True)
    reading.page = extract_page(root, url=request.url, with_links=request.with_links)
    if request.with_text:
        reading.text = visible_text(root)
    if request.model is not None:
        features = extract_from_tree(root, page_bytes=len(request.body), url=request.url)
        reading.probability = soft404_model(request.model).probability(features.vector())
        reading.says_not_found = page_says_not_found(features)
    return reading


def _load_model(path: str) -> None:
    from checks.soft404.shipped import soft404_model

    soft404_model(path)


def _warm_up() -> None:
    """Load the shipped model in a new pool process, so that the first page it reads does not wait for it."""
    _load_model("")


class PageReader:
    """Reads pages in a pool of `processes` processes, started on first use; with 0, in the calling thread."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def read(self, request: PageRequest) -> PageReading:
        """Read one page; a page that cannot be read comes back with `page.error` set, never as an exception."""
        for attempt in range(PROCESS_DEATH_RETRIES + 1):
            try:
                return self._run(read_page, request)
            except BrokenProcessPool:
                # A process died (killed, out of memory, a crash in C): its pages go to a fresh pool once; a
                # page that kills a second process is recorded as unreadable rather than retried for ever.
                log.warning("a page-reading process died while reading %s (attempt %d)", request.url, attempt + 1)
            except Exception as exc:  # a page must not take its crawl down, whatever lxml makes of it
                log.exception("reading %s failed", request.url)
                return PageReading(page=ParsedPage(error=f"the page could not be read: {exc!r}"[:300]))
        return PageReading(page=ParsedPage(error="the process reading this page died twice; not read"))

    def load_model(self, path: str) -> None:
        """Load the soft-404 model at `path` ("" for the shipped one) where pages are read; raises
        ModelVersionError for a model this scikit-learn cannot use, before any page depends on it."""
        self._run(_load_model, path)

    def warm(self) -> list[Future]:
        """Start every process now and load the model in each, instead of on the first pages of a crawl."""
        if self.processes == 0:
            _warm_up()
            return []
        executor = self._running()
        return [executor.submit(_warm_up) for _ in range(self.processes)]

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def _run(self, function, argument):
        if self.processes == 0:
            return function(argument)
        executor = self._running()
        try:
            return executor.submit(function, argument).result()
        except BrokenProcessPool:
            self._replace(executor)
            raise

    def _running(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                # spawn, not fork: the process forking holds fetch threads, connections and locks that a forked
                # child would inherit in whatever state they were.
                self._executor = ProcessPoolExecutor(
                    max_workers=self.processes, mp_context=multiprocessing.get_context("spawn")
                )
            return self._executor

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is broken:
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)


_readers: dict[int, PageReader] = {}
_readers_lock = threading.Lock()


def shared_reader(processes: int) -> PageReader:
    """The page reader of this process with that many processes: every crawl and check of a process shares it."""
    with _readers_lock:
        reader = _readers.get(processes)
        if reader is None:
            reader = _readers[processes] = PageReader(processes)
        return reader

