"""The decision half of Bar-Yossef et al.'s dead-page test (2004, section 3, Table 1): compare a page with a probe.

The probe is a random 25-letter name in the page's parent directory, which almost surely does not exist; how
the server answers it, against how it answers the page, tells whether the page is a soft-404. Fetching stays
with the HTTP client; this module only builds the probe URL and judges the two answers.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit

PROBE_NAME_LENGTH = 25  # R = 25 random lower-case letters (section 5.1); P(exists) <= N / 26**25
# Prieto et al. (2014, section 6.3) re-implemented this test and called two pages "almost identical" when 80%
# of their content is equal; Bar-Yossef et al. give no number.
DEFAULT_RESEMBLANCE_THRESHOLD = 0.8
# Neither paper gives a shingle width. Broder et al. clustered the web with 10-word shingles, but one differing
# word (the echoed URL that Bar-Yossef et al. warn about) in a 50-word error page leaves a resemblance of 0.61
# at w = 10 and 0.84 at w = 4, so only the narrower width keeps such pages above the 0.8 threshold.
DEFAULT_SHINGLE_WIDTH = 4
HARD_ERROR_STATUSES = frozenset({403, 404, 410})  # plus every 5xx (section 3)


class Verdict(StrEnum):
    ALIVE = "alive"
    DEAD = "dead"
    SOFT404 = "soft404"


@dataclass(frozen=True)
class FetchSummary:
    """What a fetch with redirects followed ended in; `error` names a failure without a status (timeout, DNS)."""

    final_url: str
    redirects: int
    status: int | None
    text: str = ""
    error: str | None = None

    @property
    def failed(self) -> bool:
        """A fetch failed by the paper's rule: no answer, or 403, 404, 410 or 5xx."""
        if self.error is not None or self.status is None:
            return True
        return self.status in HARD_ERROR_STATUSES or 500 <= self.status <= 599


@dataclass(frozen=True)
class ProbeVerdict:
    verdict: Verdict
    reason: str  # which line of Table 1 decided
    resemblance: float | None = None  # only when the contents were compared


def parent_directory(url: str) -> str:
    """Return the URL of the directory holding `url`, ending in "/" (http://h/a/b.html -> http://h/a/).

    A URL that already ends in "/" names a directory; its parent is one level up, as in the paper's example
    where the parent of http://www.ibm.com/us/hr is http://www.ibm.com/us.
    """
    parts = urlsplit(url)
    path = parts.path or "/"
    trimmed = path[:-1] if path.endswith("/") and path != "/" else path
    directory = trimmed[: trimmed.rfind("/") + 1] or "/"
    return urlunsplit((parts.scheme, parts.netloc, directory, "", ""))


def probe_url(page_url: str, rng: random.Random) -> str:
    """Return the parent directory of `page_url` followed by 25 random lower-case letters."""
    name = "".join(rng.choice(string.ascii_lowercase) for _ in range(PROBE_NAME_LENGTH))
    return parent_directory(page_url) + name


def is_site_root(url: str) -> bool:
    """Tell whether `url` is the root of its host (path empty or "/", with or without a query)."""
    return urlsplit(url).path in ("", "/")


@lru_cache(maxsize=512)
def shingles(text: str, width: int = DEFAULT_SHINGLE_WIDTH) -> frozenset[tuple[str, ...]]:
    """Return the set of `width`-word shingles of `text`, compared case-insensitively.

    A text shorter than `width` words is one shingle, so two short texts resemble only when equal. Cached: every
    page of a directory is compared with the same probe text (a str caches its hash, so a hit costs O(1)).
    """
    words = text.casefold().split()
    if len(words) <= width:
        return frozenset({tuple(words)} if words else ())
    return frozenset(zip(*(words[i:] for i in range(width)), strict=False))  # shorter tails end it


def resemblance(a: str, b: str, width: int = DEFAULT_SHINGLE_WIDTH) -> float:
    """Broder's resemblance: |S(a) ∩ S(b)| / |S(a) ∪ S(b)| over w-shingles; two empty texts resemble fully."""
    sa, sb = shingles(a, width), shingles(b, width)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def probe_verdict(
    page: FetchSummary,
    probe: FetchSummary,
    *,
    is_root: bool,
    threshold: float = DEFAULT_RESEMBLANCE_THRESHOLD,
    shingle_width: int = DEFAULT_SHINGLE_WIDTH,
    score: float | None = None,
) -> ProbeVerdict:
    """Judge a page from its fetch and the probe's, following isDeadPage in Table 1 line by line.

    `score` is the resemblance of the two texts when it was computed elsewhere (where the page was read).
    """
    if page.failed:
        return ProbeVerdict(Verdict.DEAD, f"page fetch failed: {page.error or page.status}")
    if probe.failed:
        return ProbeVerdict(Verdict.ALIVE, "server answers unknown URLs with an error (hard 404)")
    if is_root:
        return ProbeVerdict(Verdict.ALIVE, "a site root is never a soft-404 by the probe")
    if page.redirects != probe.redirects:
        return ProbeVerdict(Verdict.ALIVE, "different number of redirects than the probe")
    if page.final_url == probe.final_url:
        return ProbeVerdict(Verdict.SOFT404, "same final URL and number of redirects as the probe")
    if score is None:
        score = resemblance(page.text, probe.text, shingle_width)
    if score >= threshold:
        return ProbeVerdict(Verdict.SOFT404, "near-identical content to the probe", score)
    return ProbeVerdict(Verdict.ALIVE, "different content from the probe", score)
