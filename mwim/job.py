"""The `ce` analysis job: after a crawl of an MWIM-enabled site, store its pages' Content Extract files,
regenerating only those whose page changed (docs/mwim.md)."""

from __future__ import annotations

from checks.jobs import JobInputError, JobKind
from mwim import selectors
from mwim.services.extracts import ce_refresh_step


def ce_clean(crawl, raw: dict) -> dict:
    if not ce_offered(crawl):
        raise JobInputError("the site is not registered for MWIM: register it on its MWIM page first")
    if raw:
        raise JobInputError(f"the ce job takes no parameters (got {', '.join(sorted(raw))})")
    return {}


def ce_offered(crawl) -> bool:
    return selectors.site_registered(site_id=crawl.site_id)


def ce_report(job) -> dict:
    return {"site": job.site_id, "crawl": job.crawl_id, "status": job.status, **(job.result or {})}


def ce_result_context(job, request) -> dict:
    return {"result": job.result or {}, "site_id": job.site_id}


KIND = JobKind(
    name="ce",
    label="Content extracts (MWIM)",
    scope="crawl",
    clean=ce_clean,
    step=ce_refresh_step,
    report=ce_report,
    result_template="checks/mwim/job_result.html",
    result_context=ce_result_context,
    offered=ce_offered,
    description="Stores the crawl's Content Extract files for the site's extended sitemap; only changed pages.",
)
