"""Fetch and remember one random-URL probe per target, and judge pages against it (Bar-Yossef et al., §3).

A target is a directory, a lookup's path and parameter names, or an identifier's path pattern (probe_targets).
The cache is shared by the fetch threads of one crawl (or one check_url run): the first thread that needs a
target's probe fetches it while the others wait for it, so each target costs one request per crawl.
"""

from __future__ import annotations

import random
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

from sites.crawler.parse import parse_document
from sites.crawler.soft404.features import visible_text_nodes
from sites.crawler.soft404.probe import (
    DEFAULT_RESEMBLANCE_THRESHOLD,
    FetchSummary,
    ProbeVerdict,
    is_site_root,
    parent_directory,
    probe_verdict,
)
from sites.crawler.soft404.probe_targets import (
    DIRECTORY,
    IDENTIFIER,
    QUERY,
    ProbeTarget,
    kind_of_key,
    probe_target,
)
from sites.http import FetchResult, decode_body

# Enough text to compare two pages' content; error pages are short, real pages differ early.
MAX_PROBE_TEXT = 50_000


def visible_text(root) -> str:
    """The words of a page's body a reader sees: what two near-identical error pages share."""
    body = root.find("body")
    return " ".join(" ".join(visible_text_nodes(body)).split()) if body is not None else ""


def text_of(result: FetchResult) -> str:
    """Visible text of a fetched HTML answer ('' for anything else)."""
    if not result.body or not result.is_html:
        return ""
    return text_of_html(result.body, result.charset)


def text_of_html(body: bytes, charset: str | None = None) -> str:
    _, encoding = decode_body(body[:65536], charset)
    root, _ = parse_document(body, encoding or None)
    return "" if root is None else visible_text(root)[:MAX_PROBE_TEXT]


@dataclass(frozen=True)
class ProbeAnswer:
    """How the server answered the random URL of one probe target (a directory, a lookup, an identifier)."""

    directory: str  # the target's key (probe_targets): a directory URL for the directory probe
    url: str
    final_url: str
    redirects: int
    status: int | None
    error_kind: str
    text: str
    requests: int = 0  # HTTP requests this answer cost when it was fetched (0 when it came from storage)
    # The HTML answer, zlib-compressed: when the server answered with success, a soft-404 page by construction
    # (the training data the paper built its classifier from).
    compressed_body: bytes | None = None

    @classmethod
    def from_fetch(cls, directory: str, result: FetchResult) -> ProbeAnswer:
        return cls(
            directory=directory,
            url=result.url,
            final_url=result.final_url,
            redirects=len(result.redirects),
            status=result.status,
            error_kind=result.error_kind,
            text=text_of(result),
            requests=len(result.redirects) + 1,
            compressed_body=zlib.compress(result.body, 1) if result.body and result.is_html else None,
        )

    @property
    def kind(self) -> str:
        return kind_of_key(self.directory)

    @property
    def label(self) -> str:
        """How a verdict names the probe that decided: "probe" (directory), "query probe (id)", "identifier
        probe"."""
        if self.kind == QUERY:
            return (
                f"query probe ({', '.join(unquote(n) for n in self.directory.split('?', 1)[1].split('&'))})"
            )
        if self.kind == IDENTIFIER:
            return "identifier probe"
        return "probe"

    def summary(self) -> FetchSummary:
        return FetchSummary(self.final_url, self.redirects, self.status, self.text, self.error_kind or None)

    def evidence(self) -> dict:
        """What a verdict stores of the probe that decided it (not its text or body: the probe's own row has
        them). Built by hand: `asdict` copies every field, the body and the text included, for each page."""
        return {
            "url": self.url,
            "final_url": self.final_url,
            "redirects": self.redirects,
            "status": self.status,
            "error_kind": self.error_kind,
            "kind": self.kind,
        }


# Distinct query and identifier probes one path may cost a crawl: past this, its pages get the directory probe,
# so URLs that vary their parameter names (a filter builder, a crawler trap) cannot multiply the probes.
MAX_PROBE_KEYS_PER_PATH = 8


class ProbeCache:
    """One probe per target, fetched on first need by whichever thread needs it first."""

    def __init__(self, fetch: Callable[[str], FetchResult], rng: random.Random | None = None) -> None:
        self._fetch = fetch
        self._rng = rng or random.SystemRandom()
        self._answers: dict[str, ProbeAnswer] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._per_path: dict[str, set[str]] = {}
        self._guard = threading.Lock()

    def target(self, page_url: str) -> ProbeTarget:
        """The probe target of a page, falling back to its directory once its path has too many lookup keys."""
        target = probe_target(page_url)
        if target.kind == DIRECTORY:
            return target
        with self._guard:
            if target.key in self._answers:
                return target
            keys = self._per_path.setdefault(_path_of(target), set())
            if target.key in keys or len(keys) < MAX_PROBE_KEYS_PER_PATH:
                keys.add(target.key)
                return target
        return ProbeTarget(DIRECTORY, parent_directory(page_url), page_url)

    def learn(self, answers: list[ProbeAnswer]) -> None:
        with self._guard:
            for answer in answers:
                self._answers.setdefault(answer.directory, answer)

    @property
    def rng(self) -> random.Random:
        return self._rng

    def known(self, key: str) -> ProbeAnswer | None:
        """The probe held for a target key, if any (for callers that fetch probes themselves)."""
        with self._guard:
            return self._answers.get(key)

    def missing(self, urls: list[str]) -> list[str]:
        """Probe keys of `urls` whose probe this cache does not hold."""
        keys = {probe_target(url).key for url in urls}
        with self._guard:
            return sorted(keys - set(self._answers))

    def get(self, page_url: str, target: ProbeTarget | None = None) -> tuple[ProbeAnswer, bool]:
        """The probe of the page's target, and whether this call fetched it."""
        target = target or self.target(page_url)
        directory = target.key
        with self._guard:
            answer = self._answers.get(directory)
            if answer is not None:
                return answer, False
            lock = self._locks.setdefault(directory, threading.Lock())
        with lock:
            with self._guard:
                answer = self._answers.get(directory)
            if answer is not None:
                return answer, False
            answer = ProbeAnswer.from_fetch(directory, self._fetch(target.url(self._rng)))
            with self._guard:
                self._answers[directory] = answer
            return answer, True


def _path_of(target: ProbeTarget) -> str:
    return target.scope_url if target.kind == QUERY else target.key.split("{", 1)[0]


def probe_is_root(url: str, probe: ProbeAnswer) -> bool:
    """Table 1's root rule for this probe: only the directory probe exempts a site root (a root with a lookup
    query, `/?id=7`, is a lookup like any other)."""
    return probe.kind == DIRECTORY and is_site_root(url)


def probe_compares_contents(*, url: str, result: FetchResult, probe: ProbeAnswer) -> bool:
    """Whether Table 1 must compare the page's contents with the probe's (both answered, at different URLs)."""
    return (
        not _summary(result).failed
        and not probe.summary().failed
        and not probe_is_root(url, probe)
        and len(result.redirects) == probe.redirects
        and result.final_url != probe.final_url
    )


def _summary(result: FetchResult) -> FetchSummary:
    return FetchSummary(result.final_url, len(result.redirects), result.status, "", result.error_kind or None)


def judge_by_probe(
    *,
    url: str,
    result: FetchResult,
    page_resemblance: Callable[[], float],
    probe: ProbeAnswer,
    threshold: float = DEFAULT_RESEMBLANCE_THRESHOLD,
) -> ProbeVerdict:
    """Table 1 for a fetched page; the resemblance of its visible text to the probe's (see `resemblance`) is
    asked for only when the contents must be compared."""
    score = page_resemblance() if probe_compares_contents(url=url, result=result, probe=probe) else None
    return probe_verdict(
        _summary(result), probe.summary(), is_root=probe_is_root(url, probe), threshold=threshold, score=score
    )
