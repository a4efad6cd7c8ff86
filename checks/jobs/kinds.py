"""The registered kinds of analysis job: what each one is, and where its package defines it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from django.utils.module_loading import import_string

if TYPE_CHECKING:
    from django import forms

    from checks.jobs.context import JobContext
    from checks.models import AnalysisJob

# Every kind, by name: the `JobKind` its package defines (loaded on first use, so no package is imported
# before it is needed and adding a kind edits only this table).
KIND_PATHS: dict[str, str] = {
    "decay": "checks.decay.job:KIND",
    "filter": "checks.structure.job:FILTER",
    "pagetypes": "checks.structure.job:PAGETYPES",
    "findpage": "checks.pagefinding.job:KIND",
    "ce": "mwim.job:KIND",
}


@dataclass(frozen=True)
class JobKind:
    """One analysis, as the job machinery runs it (docs/analysis-jobs.md)."""

    name: str
    label: str
    scope: Literal["crawl", "site"]
    # (crawl or site, raw parameters) -> the parameters to store; raises JobInputError with a message for users.
    clean: Callable[[Any, dict], dict]
    # Works until ctx.time_up(), saving results with ctx.progress(); True once the job is done.
    step: Callable[[JobContext], bool]
    # The JSON the CLI writes and the dashboard offers for download.
    report: Callable[[AnalysisJob], dict]
    form: type[forms.Form] | None = None  # the dashboard's start form; its cleaned_data goes to clean()
    result_template: str = ""  # shown under the progress on the job's page
    result_context: Callable[[AnalysisJob, Any], dict] | None = (
        None  # (job, request) -> that template's context
    )
    description: str = ""  # one line under the start form
    # (crawl or site) -> whether the dashboard offers this kind there at all (say, only registered sites).
    offered: Callable[[Any], bool] | None = None
    # A crawl-scoped kind's section on the crawl's page (`{% crawl_panels crawl %}`): (crawl, request) -> the
    # template's context, or None when the crawl has nothing to show (say, no finished job of this kind).
    crawl_panel: Callable[[Any, Any], dict | None] | None = None
    crawl_panel_template: str = ""
    # The same beside the crawl page's broken pages (`{% crawl_panels crawl "broken-targets" %}`): what the kind
    # says about which of them to fix first (decay's fix-first list).
    targets_panel: Callable[[Any, Any], dict | None] | None = None
    targets_panel_template: str = ""

    def form_input_key(self, target_id: int) -> str:
        """Where a refused start form's input waits for the target's page (sites.kept_input)."""
        return f"job-start:{self.name}:{target_id}"


class UnknownKind(LookupError):
    pass


@cache
def job_kind(name: str) -> JobKind:
    path = KIND_PATHS.get(name)
    if path is None:
        raise UnknownKind(f"no analysis called {name!r}")
    kind = import_string(path.replace(":", "."))
    if kind.name != name:
        raise UnknownKind(f"{path} defines kind {kind.name!r}, listed as {name!r}")
    return kind


def job_kinds(scope: str | None = None) -> list[JobKind]:
    """Every registered kind (of one scope), in the table's order."""
    return [job_kind(name) for name in KIND_PATHS if scope is None or job_kind(name).scope == scope]


def kind_register(path: str, *, name: str) -> None:
    """Add a kind to the table at run time (tests, plug-ins); the table in this module is the usual place."""
    KIND_PATHS[name] = path
    job_kind.cache_clear()


def kind_unregister(name: str) -> None:
    KIND_PATHS.pop(name, None)
    job_kind.cache_clear()
