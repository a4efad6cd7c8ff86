"""Judge one fetched page dead, failing, soft-404 or ok, from its fetch, its directory's probe and the classifier."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from checks.soft404.features import extract_from_tree
from checks.soft404.probe import is_site_root
from checks.soft404.probing import ProbeAnswer, ProbeCache, judge_by_probe, visible_text
from checks.soft404.verdict import VerdictResult, fetch_verdict, page_says_not_found, page_verdict
from sites.http import FetchResult

if TYPE_CHECKING:
    from checks.soft404.model import Soft404Model


@dataclass(frozen=True)
class Judgement:
    verdict: VerdictResult
    probability: float | None = None
    probe: ProbeAnswer | None = None
    probe_fetched: bool = False  # this page's check fetched the probe (it costs requests, and is stored)

    def probe_evidence(self) -> dict | None:
        if self.probe is None:
            return None
        evidence = self.probe.evidence()
        evidence["resemblance"] = self.verdict.evidence.get("resemblance")
        evidence["reason"] = self.verdict.evidence.get("probe_reason", "")
        evidence["verdict"] = self.verdict.evidence.get("probe_verdict")
        return evidence


def judge(
    *,
    url: str,
    result: FetchResult,
    root,
    probes: ProbeCache | None,
    model: Soft404Model | None,
    probe_allowed: Callable[[str], bool],
    resemblance_threshold: float,
    soft404_threshold: float,
) -> Judgement:
    """The verdict of `url` fetched as `result` (and parsed as `root` when it is an HTML success).

    Call it after links were read from `root`: the classifier strips scripts and styles from the tree.
    """
    decided = fetch_verdict(status=result.status, error_kind=result.error_kind)
    if decided is not None or root is None:
        verdict = decided or page_verdict(url=url, status=result.status, error_kind=result.error_kind)
        return Judgement(verdict)
    probe = probe_judgement = None
    fetched = False
    # A site root is never a soft-404 by the probe (Table 1), so its probe would be a wasted request.
    if probes is not None and not is_site_root(url) and probe_allowed(url):
        probe, fetched = probes.get(url)
        probe_judgement = judge_by_probe(
            url=url,
            result=result,
            page_text=lambda: visible_text(root),
            probe=probe,
            threshold=resemblance_threshold,
        )
    probability = says_not_found = None
    if model is not None:
        features = extract_from_tree(root, page_bytes=len(result.body), url=result.final_url)
        probability = model.probability(features.vector())
        says_not_found = page_says_not_found(features)
    verdict = page_verdict(
        url=url,
        status=result.status,
        error_kind=result.error_kind,
        is_html=True,
        probe=probe_judgement,
        probability=probability,
        threshold=soft404_threshold,
        says_not_found=says_not_found,
    )
    return Judgement(verdict, probability, probe, fetched)
