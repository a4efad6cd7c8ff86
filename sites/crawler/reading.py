"""Read a fetched HTML page (links, title, soft-404 features and probability) in processes of its own.

A crawl fetches with many threads, but reading pages is CPU work in Python and lxml, which one process runs on
one core at a time (the GIL). Worse, lxml lets go of the GIL for each parse and XPath, and a thread that let go
waits for the others to take it back: reading pages in the fetch threads kept a crawl at about one core and
slower than Scrapy. So each page goes, as bytes, to one of a few reader processes shared by every crawl of this
process, and comes back as plain data; the fetch thread only waits on a pipe meanwhile.

The readers are plain subprocesses speaking length-prefixed pickles over their stdin and stdout, not a
multiprocessing pool: Celery runs tasks in daemonic billiard processes, from which multiprocessing refuses to
start children, and a pipe of our own also lets a reader stuck on a page be killed and replaced. A reader exits
when its parent does (its stdin closes). Nothing here needs Django.
"""

from __future__ import annotations

import logging
import os
import pickle
import queue
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from sites.crawler.extractors import extracts_read
from sites.crawler.parse import ParsedPage, extract_page, parse_document
from sites.http.decoding import decode_body

log = logging.getLogger(__name__)

# Bytes given to charset detection when neither headers nor the page name one: detection is slow on big pages.
DETECTION_SAMPLE = 65536
# A page takes well under a second to read (a 5 MB page about half of one); a reader busy for this long is stuck
# (a pathological tree) and is killed, and the page recorded as unreadable.
READ_TIMEOUT_SECONDS = 60.0
# How often a page is sent again to a fresh reader after its reader died under it (killed, out of memory).
DEATH_RETRIES = 1
PROJECT_ROOT = Path(__file__).resolve().parents[2]
_LENGTH = struct.Struct("!Q")
# What a reader reads once as it starts (serve): a title, words and a link, so every part of read_page runs.
WARM_UP_PAGE = (
    b"<!doctype html><html><head><title>Warm-up</title></head>"
    b'<body><p>A page read once as the reader starts.</p><a href="/a?b=c">a link</a></body></html>'
)


@dataclass(frozen=True)
class PageRequest:
    """One page to read: its body as fetched and what the crawl wants from it."""

    body: bytes
    url: str  # the final URL, against which links resolve
    charset: str | None = None  # from the Content-Type header
    with_links: bool = True
    # The soft-404 model file ("" for the shipped one); None when the crawl does not classify.
    model: str | None = ""
    # The visible text of the directory's probe, when Table 1 compares the page's with it (docs/soft404.md).
    probe_text: str | None = None
    # The analyses' extractors to run over the parsed page, as (name, "module:function") (extractors.py).
    extractors: tuple[tuple[str, str], ...] = ()


@dataclass
class PageReading:
    """What was read from one page: plain data, cheap to send from a reader process."""

    encoding: str = ""
    page: ParsedPage = field(default_factory=ParsedPage)
    parsed: bool = False  # False when the body could not be parsed (or read): page.error says why
    probability: float | None = None  # of being a soft-404, by the classifier
    says_not_found: bool | None = None  # the page carries not-found or parked wording
    probe_resemblance: float | None = None  # of the page's visible text to probe_text, when given
    extracts: dict[str, bytes] = field(default_factory=dict)  # each extractor's result, by its name


def read_page(request: PageRequest) -> PageReading:
    """Parse `request.body` once and read everything the crawl asked for from the tree."""
    # Imported here, not at the top: a process that reads pages without the classifier does not need them.
    from sites.crawler.soft404.features import extract_from_tree
    from sites.crawler.soft404.probe import resemblance
    from sites.crawler.soft404.probing import visible_text
    from sites.crawler.soft404.shipped import soft404_compiled
    from sites.crawler.soft404.verdict import page_says_not_found

    _, encoding = decode_body(request.body[:DETECTION_SAMPLE], request.charset)
    root, error = parse_document(request.body, encoding or None)
    if root is None:
        return PageReading(encoding=encoding, page=ParsedPage(error=error))
    reading = PageReading(encoding=encoding, parsed=True)
    reading.page = extract_page(root, url=request.url, with_links=request.with_links)
    if request.probe_text is not None:
        reading.probe_resemblance = resemblance(visible_text(root), request.probe_text)
    if request.model is not None:
        features = extract_from_tree(root, page_bytes=len(request.body), url=request.url)
        reading.probability = soft404_compiled(request.model).probability(features.vector())
        reading.says_not_found = page_says_not_found(features)
    if request.extractors:
        reading.extracts = extracts_read(request.extractors, root, url=request.url, body=request.body)
    return reading


def load_model(path: str) -> None:
    from sites.crawler.soft404.shipped import soft404_compiled

    soft404_compiled(path)


# What a reader can be asked to do, by name (a name crosses the pipe; a function would be pickled by reference).
READER_FUNCTIONS = {"read_page": read_page, "load_model": load_model}


class ReaderDied(Exception):
    """The reader process ended before it answered."""


class ReaderTimedOut(ReaderDied):
    """The reader took longer than the timeout over one page, and was killed."""


# The reader side ---------------------------------------------------------------------------------------------


def _write_message(stream: BinaryIO, message: Any) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(payload)) + payload)
    stream.flush()


def serve() -> None:
    """The loop of a reader process: (function name, argument) in on stdin, ("ok"|"error", value) out on stdout."""
    # The protocol owns the real stdout; whatever a library prints goes to stderr instead of into the stream.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which then closes our stdin
    requests = sys.stdin.buffer
    try:
        load_model("")  # the shipped model, before the first page rather than while a crawl waits for it
        # And one small page read in full: the first read imports the feature code and warms lxml and the link
        # resolution (~35 ms), which a crawl's start page would otherwise wait for.
        read_page(PageRequest(body=WARM_UP_PAGE, url="http://warm-up.invalid/", charset="utf-8"))
    except Exception:  # noqa: S110 - the crawl loads its model through load_model and gets the error there
        pass
    while header := requests.read(_LENGTH.size):
        if len(header) < _LENGTH.size:
            return
        name, argument = pickle.loads(requests.read(_LENGTH.unpack(header)[0]))
        try:
            reply = ("ok", READER_FUNCTIONS[name](argument))
        except Exception as exc:  # sent back and raised in the caller; the reader goes on
            reply = ("error", exc)
        try:
            _write_message(replies, reply)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:  # an exception that cannot travel
            _write_message(replies, ("error", RuntimeError(f"{reply[1]!r} (not picklable: {exc})")))
        except BrokenPipeError:  # the parent is gone, or killed this reader's pipe: nobody waits for it
            return


# The crawling side -------------------------------------------------------------------------------------------


class _ReaderProcess:
    """One reader subprocess, used by one thread at a time."""

    def __init__(self) -> None:
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")])
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from sites.crawler.reading import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=environment,
        )
        # poll, not select: select cannot watch a descriptor numbered over 1023, which a busy worker reaches.
        self.answers = select.poll()
        self.answers.register(self.process.stdout.fileno(), select.POLLIN)

    def call(self, name: str, argument: Any, timeout: float) -> Any:
        try:
            _write_message(self.process.stdin, (name, argument))
        except (BrokenPipeError, OSError) as exc:
            raise ReaderDied(f"the reader process is gone ({exc})") from None
        deadline = time.monotonic() + timeout
        length = _LENGTH.unpack(self._receive(_LENGTH.size, deadline))[0]
        status, value = pickle.loads(self._receive(length, deadline))
        if status == "error":
            raise value
        return value

    def _receive(self, size: int, deadline: float) -> bytes:
        fd, chunks, left = self.process.stdout.fileno(), [], size
        while left:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.answers.poll(remaining * 1000):
                self.kill()
                raise ReaderTimedOut("the reader took too long and was stopped")
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                raise ReaderDied(f"the reader process ended (exit status {self.process.poll()})")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass


class PageReader:
    """Reads pages in `processes` reader processes, started on first need; with 0, in the calling thread."""

    def __init__(self, processes: int, timeout: float = READ_TIMEOUT_SECONDS) -> None:
        self.processes = processes
        self.timeout = timeout
        self._idle: queue.LifoQueue[_ReaderProcess] = queue.LifoQueue()
        self._started = 0
        self._lock = threading.Lock()

    def read(self, request: PageRequest) -> PageReading:
        """Read one page; a page that cannot be read comes back with `page.error` set, never as an exception."""
        for attempt in range(DEATH_RETRIES + 1):
            try:
                return self._call("read_page", request)
            except ReaderTimedOut:
                log.warning("reading %s took over %g s; its reader was stopped", request.url, self.timeout)
                return PageReading(page=ParsedPage(error=f"reading the page took over {self.timeout:g} s"))
            except ReaderDied as exc:
                # Killed, out of memory, a crash in C: the page goes to a fresh reader once; a page that kills
                # a second reader is recorded as unreadable rather than tried for ever.
                log.warning("reading %s: %s (attempt %d)", request.url, exc, attempt + 1)
            except Exception as exc:  # a page must not take its crawl down, whatever lxml makes of it
                log.exception("reading %s failed", request.url)
                return PageReading(page=ParsedPage(error=f"the page could not be read: {exc!r}"[:300]))
        return PageReading(page=ParsedPage(error="the process reading this page died twice; not read"))

    def load_model(self, path: str) -> None:
        """Load the soft-404 model at `path` ("" for the shipped one) where pages are read; raises
        ModelVersionError for a model this scikit-learn cannot use, before any page depends on it."""
        self._call("load_model", path)

    def warm(self) -> None:
        """Start every reader now (each loads the shipped model as it starts), not on a crawl's first pages."""
        with self._lock:
            missing, self._started = self.processes - self._started, self.processes
        for _ in range(missing):
            self._idle.put(_ReaderProcess())

    def close(self) -> None:
        """Stop the idle readers (a busy one stops when its thread gives it back after close)."""
        with self._lock:
            self._started = self.processes = 0
        while True:
            try:
                self._idle.get_nowait().kill()
            except queue.Empty:
                return

    def _call(self, name: str, argument: Any) -> Any:
        if self.processes == 0:
            return READER_FUNCTIONS[name](argument)
        reader = self._checkout()
        try:
            value = reader.call(name, argument, self.timeout)
        except Exception as exc:
            if not isinstance(exc, ReaderDied):
                self._checkin(reader)  # it answered, with an error: the reader itself is fine
                raise
            reader.kill()
            self._checkin(_ReaderProcess())  # a fresh one in its place, for the threads waiting for a reader
            raise
        except BaseException:  # interrupted halfway through a message: the pipe cannot be trusted any more
            reader.kill()
            self._checkin(_ReaderProcess())
            raise
        self._checkin(reader)
        return value

    def _checkout(self) -> _ReaderProcess:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            start = self._started < self.processes
            self._started += start
        return _ReaderProcess() if start else self._idle.get()

    def _checkin(self, reader: _ReaderProcess) -> None:
        with self._lock:
            keep = self.processes > 0
        if keep:
            self._idle.put(reader)
        else:
            reader.kill()


_readers: dict[int, PageReader] = {}
_readers_lock = threading.Lock()


def shared_reader(processes: int) -> PageReader:
    """The page reader of this process with that many readers: every crawl and check of a process shares it."""
    with _readers_lock:
        reader = _readers.get(processes)
        if reader is None:
            reader = _readers[processes] = PageReader(processes)
        return reader
