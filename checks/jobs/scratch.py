"""A job's partial results between steps, too big for its cursor: named blobs of JSON per job (JobScratch).

`ctx.state` is rewritten by every `progress()` call, so it holds cursors and small tallies; what grows with the
crawl (key tables, per-chunk partial results, a page search's downloads) goes here, saved in the same
transaction as the chunk's `progress()`. Saving a name again replaces it: a chunk redone after a lost lease
writes the same row, never a second one.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from checks.models import AnalysisJob, JobScratch


def scratch_save(job: AnalysisJob, name: str, value: Any) -> None:
    data = zlib.compress(json.dumps(value, separators=(",", ":")).encode(), 1)
    JobScratch.objects.update_or_create(job=job, name=name, defaults={"data": data})


def scratch_load(job: AnalysisJob, name: str, default: Any = None) -> Any:
    data = JobScratch.objects.filter(job=job, name=name).values_list("data", flat=True).first()
    return default if data is None else json.loads(zlib.decompress(bytes(data)))


def scratch_load_all(job: AnalysisJob, prefix: str) -> dict[str, Any]:
    """Every blob whose name starts with `prefix`, by name, in name order."""
    rows = (
        JobScratch.objects.filter(job=job, name__startswith=prefix)
        .order_by("name")
        .values_list("name", "data")
    )
    return {name: json.loads(zlib.decompress(bytes(data))) for name, data in rows}


def scratch_delete(job: AnalysisJob, prefix: str = "", *, from_name: str = "") -> None:
    """Delete the job's entries named `prefix`…; with `from_name`, only those from it on in name order (a
    numbered series cut where it stopped holding)."""
    entries = JobScratch.objects.filter(job=job, name__startswith=prefix)
    if from_name:
        entries = entries.filter(name__gte=from_name)
    entries.delete()
