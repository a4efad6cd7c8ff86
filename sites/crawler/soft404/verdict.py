"""The combined dead / soft-404 verdict of one fetched page: the probe's judgement, the classifier's, the status.

Rule (docs/soft404.md):
1. A fetch that failed for good (DNS, invalid URL, redirect loop, too many redirects, blocked address, TLS,
   HTTP 403/404/410) is dead at once. One that may pass (timeout, refused or reset connection, 5xx, 429)
   is failing; it becomes dead after repeated strikes spaced in time (sites.services.soft404.url_health_record).
2. Any other answer is a success (2xx, and 4xx other than 403/404/410, as Bar-Yossef et al. count them).
   A success that is not HTML is ok: soft-404 pages are error pages.
3. An HTML success is a soft-404 when the probe says so (same final URL and redirects as a random URL of its
   directory, or near-identical content) — this catches redirect-to-home and SPA fallbacks that look like real
   pages — or when the classifier's probability reaches the threshold — this catches what the probe cannot:
   parked domains, site roots and index files such as /docs/index.html (never judged by the probe: their
   content is what a soft-404 server falls back to), and servers that soft-404 without a recognisable pattern.
   The classifier alone decides only for a page that says so itself — a not-found phrase (in ~90 languages) or
   parked-domain wording — because on pages without either its probability measures how plain a page is, not
   whether it exists: a short article without images scores like an error page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urlsplit

from sites.crawler.soft404.probe import ProbeVerdict, Verdict

FINAL_ERRORS = {
    "invalid_url": "malformed URL",
    "dns": "DNS failure",
    "redirect_loop": "redirect loop",
    "too_many_redirects": "too many redirects",
    "blocked_address": "address not allowed",
    "tls": "TLS failure",
}
TRANSIENT_ERRORS = {"timeout": "timeout", "connect": "connection refused", "protocol": "connection reset"}
DEAD_STATUSES = frozenset({403, 404, 410})
TRANSIENT_STATUSES = frozenset({429})  # and every 5xx
# File names a server answers a directory URL with: their content is what per-directory fallbacks serve, so a
# probe of their directory returns the same content and cannot tell them from a soft-404.
INDEX_NAMES = frozenset(
    {"index.html", "index.htm", "index.php", "default.htm", "default.html", "default.aspx"}
)
DEFAULT_CLASSIFIER_THRESHOLD = 0.5


class PageVerdict(StrEnum):
    OK = "ok"
    DEAD = "dead"
    SOFT404 = "soft404"
    FAILING = "failing"


@dataclass(frozen=True)
class VerdictResult:
    verdict: PageVerdict
    reason: str
    evidence: dict = field(default_factory=dict)

    @property
    def transient(self) -> bool:
        return self.verdict == PageVerdict.FAILING

    @property
    def by_classifier_alone(self) -> bool:
        """A soft-404 the classifier reached with no probe agreeing (docs/soft404.md: its links are still
        followed, so a wrong call costs the crawl no pages)."""
        return self.verdict == PageVerdict.SOFT404 and self.reason.startswith("classifier:")


def is_index_file(url: str) -> bool:
    """Tell whether `url` names a directory's index file (/docs/index.html)."""
    return (urlsplit(url).path or "/").rsplit("/", 1)[-1].lower() in INDEX_NAMES


def page_says_not_found(features) -> bool:
    """Whether the page's own words say it does not exist: a not-found phrase, or parked-domain wording."""
    return bool(features.phrase_hits or features.heading_phrase_hits or features.parked_phrase_density)


def fetch_verdict(*, status: int | None, error_kind: str) -> VerdictResult | None:
    """The verdict the fetch alone decides (dead or failing), or None when the page answered successfully."""
    if error_kind in FINAL_ERRORS:
        return VerdictResult(PageVerdict.DEAD, FINAL_ERRORS[error_kind])
    if error_kind in TRANSIENT_ERRORS:
        return VerdictResult(PageVerdict.FAILING, TRANSIENT_ERRORS[error_kind])
    if error_kind == "too_large":
        return None  # the server answered; the page is only bigger than we read
    if error_kind or status is None:
        return VerdictResult(PageVerdict.FAILING, f"fetch error: {error_kind or 'no answer'}")
    if status in DEAD_STATUSES:
        return VerdictResult(PageVerdict.DEAD, f"HTTP {status}")
    if status >= 500 or status in TRANSIENT_STATUSES:
        return VerdictResult(PageVerdict.FAILING, f"HTTP {status}")
    return None


def page_verdict(
    *,
    url: str,
    status: int | None,
    error_kind: str = "",
    is_html: bool = False,
    probe: ProbeVerdict | None = None,
    probability: float | None = None,
    threshold: float = DEFAULT_CLASSIFIER_THRESHOLD,
    says_not_found: bool | None = None,
    probe_label: str = "probe",
) -> VerdictResult:
    """Combine the fetch, the probe and the classifier into one verdict with its evidence."""
    decided = fetch_verdict(status=status, error_kind=error_kind)
    if decided is not None:
        return decided
    if not is_html:
        return VerdictResult(PageVerdict.OK, "not an HTML page")
    evidence: dict = {}
    if probability is not None:
        evidence["soft404_probability"] = round(probability, 4)
    if probe is not None:
        evidence["probe_verdict"] = probe.verdict.value
        evidence["probe_kind"] = probe_label
        evidence["probe_reason"] = probe.reason
        if probe.resemblance is not None:
            evidence["resemblance"] = round(probe.resemblance, 4)
    if probe is not None and probe.verdict == Verdict.SOFT404:
        if not is_index_file(url):
            return VerdictResult(PageVerdict.SOFT404, f"{probe_label}: {probe.reason}", evidence)
        evidence["probe_reason"] = f"{probe.reason}; ignored for an index file, judged by the classifier"
    if probability is not None and probability >= threshold:
        if says_not_found is not False:
            reason = f"classifier: soft-404 probability {probability:.2f}"
            return VerdictResult(PageVerdict.SOFT404, reason, evidence)
        evidence["classifier_note"] = "high probability, but no not-found or parked wording on the page"
    return VerdictResult(PageVerdict.OK, "alive", evidence)
