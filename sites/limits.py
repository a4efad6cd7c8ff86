"""The ranges of every crawl setting a user can type (command line, forms, environment), in one place.

A value outside them is refused with a message, never stored: an infinite delay or a billion pages would
otherwise reach the database or a timer (issue 18). README.md and .env.example document the same ranges."""

from __future__ import annotations

import math

# name: (lowest, highest), inclusive.
CRAWL_RANGES: dict[str, tuple[float, float]] = {
    "max_pages": (1, 10_000_000),
    "max_depth": (0, 10_000),
    "concurrency": (1, 32),
    "delay": (0.0, 60.0),
    # Requests in flight across all hosts (docs/crawling.md); a year of reusing external verdicts at most.
    "fetch_concurrency": (1, 1024),
    "external_cache_hours": (0.0, 8760.0),
}


def out_of_range(name: str, value: float, low: float, high: float) -> str | None:
    """Why `value` is not a finite number in [low, high] ("NAME must be …"), or None when it is."""
    subject = f"{name} must" if name else "must"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{subject} be a finite number, not {value}"
    if not low <= value <= high:
        return f"{subject} be between {_number(low)} and {_number(high)}, not {_number(value)}"
    return None


def _number(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:g}"


def crawl_setting_problem(name: str, value: float | None) -> str | None:
    """Why a crawl setting's value is refused (None: accepted, or not given)."""
    if value is None or name not in CRAWL_RANGES:
        return None
    return out_of_range(name.replace("_", " "), value, *CRAWL_RANGES[name])
