"""A crawl's settings: the deployment defaults, overridden by the site's, snapshotted as plain data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from sites.http import FetchSettings

# How the crawl fetches is a FetchSettings (sites/http: its fields, defaults and Django settings are declared
# there, once). The stored snapshot keeps its fields flat beside the crawl's own, as it always has.
FETCH_FIELDS = tuple(f.name for f in fields(FetchSettings))


@dataclass(frozen=True)
class CrawlConfig:
    start_url: str
    max_pages: int = 1000
    max_depth: int = 50
    include_patterns: str = ""
    exclude_patterns: str = ""
    # Limits of each request and politeness to each host, as the site and the deployment chose them.
    fetch: FetchSettings = field(default_factory=FetchSettings)
    check_external: bool = True
    # Hours an external target's verdict, checked by an earlier crawl of the same owner, is reused (0: never).
    external_cache_hours: float = 24.0
    # Independent task chains working the frontier at once (each on any worker); politeness is shared out.
    lanes: int = 1
    # Dead / soft-404 checks (docs/soft404.md): the directory probe, the content classifier and their settings.
    probe: bool = True
    classify: bool = True
    probe_resemblance: float = 0.8
    soft404_threshold: float = 0.5
    soft404_model: str = ""  # a model file; "" for the one shipped with webaudit
    # The readers' extractors this crawl runs, as (name, "module:function") (sites/crawler/extractors.py).
    extractors: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_settings(cls, django_settings: Any, *, start_url: str, **overrides: Any) -> CrawlConfig:
        """The deployment's settings with `overrides` (those not None) winning; the fetch ones (FETCH_FIELDS)
        are given flat, like the crawl's own."""
        fetch = FetchSettings.from_settings(
            django_settings, **{key: overrides.pop(key) for key in FETCH_FIELDS if key in overrides}
        )
        values: dict[str, Any] = {
            "start_url": start_url,
            "fetch": fetch,
            "max_pages": django_settings.WEBAUDIT_CRAWL_MAX_PAGES,
            "max_depth": django_settings.WEBAUDIT_CRAWL_MAX_DEPTH,
            "check_external": django_settings.WEBAUDIT_CRAWL_CHECK_EXTERNAL,
            "external_cache_hours": django_settings.WEBAUDIT_EXTERNAL_CACHE_HOURS,
            "lanes": django_settings.WEBAUDIT_CRAWL_LANES,
            "probe_resemblance": django_settings.WEBAUDIT_PROBE_RESEMBLANCE,
            "soft404_threshold": django_settings.WEBAUDIT_SOFT404_THRESHOLD,
            "soft404_model": django_settings.WEBAUDIT_SOFT404_MODEL,
        }
        values.update({key: value for key, value in overrides.items() if value is not None})
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The stored snapshot (Crawl.settings): the fetch settings flat beside the crawl's own."""
        data = asdict(self)
        data.update(data.pop("fetch"))
        data["allowed_networks"] = list(self.fetch.allowed_networks)
        data["extractors"] = [list(pair) for pair in self.extractors]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CrawlConfig:
        """Read a snapshot back; a field it lacks (stored before the field existed) takes its default."""
        known = {f.name for f in fields(cls)} - {"fetch"}
        values = {key: value for key, value in data.items() if key in known}
        values["fetch"] = FetchSettings(**{key: value for key, value in data.items() if key in FETCH_FIELDS})
        values["extractors"] = tuple(tuple(pair) for pair in values.get("extractors", ()))
        return cls(**values)

    @property
    def lane_fetch_settings(self) -> FetchSettings:
        """What one lane fetches with: its share of the per-host concurrency, the delay spread over the lanes."""
        return self.fetch.with_changes(
            concurrency=self.lane_concurrency,
            delay=self.lane_delay,
            fetch_concurrency=self.lane_fetch_concurrency,
        )

    @property
    def lane_concurrency(self) -> int:
        return max(1, -(-self.fetch.concurrency // self.lanes))

    @property
    def lane_fetch_concurrency(self) -> int:
        # Never below the per-host limit: a lane must be able to use its host's slots.
        return max(self.lane_concurrency, -(-self.fetch.fetch_concurrency // self.lanes))

    @property
    def lane_delay(self) -> float:
        return self.fetch.delay * self.lanes
