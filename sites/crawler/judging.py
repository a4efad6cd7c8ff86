"""Judge one fetched page dead, failing, soft-404 or ok, from its fetch, its directory's probe and the classifier."""

from __future__ import annotations

from dataclasses import dataclass

from sites.crawler.reading import PageReading
from sites.crawler.soft404.probe import resemblance
from sites.crawler.soft404.probing import ProbeAnswer, judge_by_probe, text_of
from sites.crawler.soft404.verdict import VerdictResult, fetch_verdict, page_verdict
from sites.http import FetchResult


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
    reading: PageReading | None,
    probe: ProbeAnswer | None = None,
    probe_fetched: bool = False,
    resemblance_threshold: float,
    soft404_threshold: float,
) -> Judgement:
    """The verdict of `url` fetched as `result`, read as `reading` when it is an HTML success.

    `probe` is its directory's probe, when the crawl probes and may fetch it; `reading` carries the resemblance
    of the page to the probe when Table 1 compares them (probe_compares_contents), and the classifier's
    probability when the crawl classifies.
    """
    decided = fetch_verdict(status=result.status, error_kind=result.error_kind)
    if decided is not None or reading is None or not reading.parsed:
        verdict = decided or page_verdict(url=url, status=result.status, error_kind=result.error_kind)
        return Judgement(verdict, probe=probe if probe_fetched else None, probe_fetched=probe_fetched)
    probe_judgement = None
    if probe is not None:
        probe_judgement = judge_by_probe(
            url=url,
            result=result,
            # Computed where the page was read when it is needed; computing it here is the safe fallback.
            page_resemblance=lambda: reading.probe_resemblance
            if reading.probe_resemblance is not None
            else resemblance(text_of(result), probe.text),
            probe=probe,
            threshold=resemblance_threshold,
        )
    verdict = page_verdict(
        url=url,
        status=result.status,
        error_kind=result.error_kind,
        is_html=True,
        probe=probe_judgement,
        probability=reading.probability,
        threshold=soft404_threshold,
        says_not_found=reading.says_not_found,
        probe_label=probe.label if probe is not None else "probe",
    )
    return Judgement(verdict, reading.probability, probe, probe_fetched)
