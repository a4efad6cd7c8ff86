"""The `decay` analysis job: exact or by walks over a finished crawl, stored per page and σ, in cancellable steps
(checks/decay/steps.py); its parameters and form, its report (checks/decay/report.py) and its sections on the crawl
page (checks/decay/dashboard.py)."""

from __future__ import annotations

from django import forms
from django.conf import settings

from checks.decay.dashboard import decay_crawl_panel, decay_result_context, decay_targets_panel
from checks.decay.external import MAX_EXTERNAL_DEPTH, MAX_FETCHES_LIMIT
from checks.decay.graph import crawl_has_live_page
from checks.decay.report import decay_report
from checks.decay.steps import decay_step
from checks.jobs import JobInputError, JobKind

METHODS = ("exact", "walk")

# Documented bounds of every number a user can give a decay run (docs/decay.md): a run is at most
# MAX_WALKS × pages × ~1/σ steps, and σ values, each a full solve or a share of every walk, are few.
MAX_WALKS = 100_000
MAX_SIGMAS = 8
MIN_SIGMA, MAX_SIGMA = 0.001, 0.999


def parse_sigmas(raw) -> list[float]:
    """σ values from a number, a list, or text like "0.1, 0.2"; each in [0.001, 0.999], at most 8."""
    if isinstance(raw, str):
        if len(raw) > 200:
            raise JobInputError("sigma: at most 8 values, like 0.1, 0.2")
        items = [item for item in raw.replace(" ", "").split(",") if item]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        items = [raw]
    try:
        values = [float(item) for item in items if not isinstance(item, bool)]
    except (TypeError, ValueError, OverflowError):
        raise JobInputError(f"sigma must be a number between 0 and 1, not {raw!r}") from None
    if not values or len(values) != len(items):
        raise JobInputError(f"sigma must be a number between 0 and 1, not {raw!r}")
    if not all(MIN_SIGMA <= value <= MAX_SIGMA for value in values):
        raise JobInputError(f"sigma must be between {MIN_SIGMA} and {MAX_SIGMA} (got {raw!r})")
    values = list(dict.fromkeys(values))
    if len(values) > MAX_SIGMAS:
        raise JobInputError(f"at most {MAX_SIGMAS} sigma values a run (got {len(values)})")
    return values


def bounded_int(name: str, value, low: int, high: int) -> int:
    """A whole number in [low, high], or a JobInputError that says the range."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) <= 20:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise JobInputError(f"{name} must be a whole number from {low:,} to {high:,} (got {shown})")
    return value


def decay_parameters(crawl, raw: dict) -> dict:
    method = raw.get("method") or "exact"
    if method not in METHODS:
        raise JobInputError(f"method must be exact or walk, not {method!r}")

    def given(name: str, default):
        value = raw.get(name)
        return default if value is None or value == "" else value

    walks = bounded_int("walks", given("walks", settings.WEBAUDIT_DECAY_WALKS), 1, MAX_WALKS)
    sigmas = parse_sigmas(given("sigmas", settings.WEBAUDIT_DECAY_SIGMAS))
    depth = bounded_int(
        "external depth",
        given("external_depth", settings.WEBAUDIT_DECAY_EXTERNAL_DEPTH),
        0,
        MAX_EXTERNAL_DEPTH,
    )
    max_fetches = bounded_int(
        "max fetches", given("max_fetches", settings.WEBAUDIT_DECAY_MAX_FETCHES), 0, MAX_FETCHES_LIMIT
    )
    if not crawl_has_live_page(crawl=crawl):
        raise JobInputError(f"Crawl #{crawl.pk} has no live page: every page is dead, so decay is undefined.")
    return {
        "method": method,
        "sigmas": sigmas,
        "walks": walks,
        "live": bool(raw.get("live", True)),
        "external_depth": depth,
        "max_fetches": max_fetches,
    }


class DecayForm(forms.Form):
    method = forms.ChoiceField(choices=[("exact", "Exact"), ("walk", "Random walks")], initial="exact")
    sigmas = forms.CharField(
        label="σ",
        max_length=200,
        initial=lambda: ", ".join(str(s) for s in settings.WEBAUDIT_DECAY_SIGMAS),
        help_text="Success probabilities, comma-separated; the first ranks the pages.",
    )
    walks = forms.IntegerField(
        min_value=1, max_value=MAX_WALKS, initial=lambda: settings.WEBAUDIT_DECAY_WALKS
    )
    external_depth = forms.IntegerField(
        label="Depth on other sites",
        required=False,
        min_value=0,
        max_value=MAX_EXTERNAL_DEPTH,
        initial=lambda: settings.WEBAUDIT_DECAY_EXTERNAL_DEPTH,
        help_text="0: other sites' pages count as the crawl judged them; 1: the pages this site links to are read "
        "and their links checked.",
    )
    max_fetches = forms.IntegerField(
        label="Most pages fetched",
        required=False,
        min_value=0,
        max_value=MAX_FETCHES_LIMIT,
        initial=lambda: settings.WEBAUDIT_DECAY_MAX_FETCHES,
        help_text="Pages this run may fetch beyond the crawl; past it they count as open.",
    )

    def clean_sigmas(self):
        try:
            return parse_sigmas(self.cleaned_data["sigmas"])
        except JobInputError as exc:
            raise forms.ValidationError(str(exc)) from None


KIND = JobKind(
    name="decay",
    label="Decay",
    scope="crawl",
    clean=decay_parameters,
    step=decay_step,
    report=decay_report,
    form=DecayForm,
    result_template="checks/decay/result.html",
    result_context=decay_result_context,
    crawl_panel=decay_crawl_panel,
    crawl_panel_template="checks/decay/panel.html",
    targets_panel=decay_targets_panel,
    targets_panel_template="checks/decay/targets_panel.html",
    description="How close every page is to dead ends (Bar-Yossef et al.), and which broken links to fix first.",
)
