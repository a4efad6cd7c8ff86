"""A crawl's settings: the deployment defaults, overridden by the site's, snapshotted as plain data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from sites.http import FetchSettings

# The fetch fields below are FetchSettings' (its defaults, its Django settings); a crawl keeps them flat in its
# stored snapshot, and hands them to its PoliteFetcher as `fetch_settings`.
_FETCH = FetchSettings()
FETCH_FIELDS = tuple(f.name for f in fields(FetchSettings))


@dataclass(frozen=True)
class CrawlConfig:
    start_url: str
    max_pages: int = 1000
    max_depth: int = 50
    include_patterns: str = ""
    exclude_patterns: str = ""
    concurrency: int = _FETCH.concurrency
    delay: float = _FETCH.delay
    obey_robots: bool = _FETCH.obey_robots
    check_external: bool = True
    user_agent: str = _FETCH.user_agent
    timeout: float = _FETCH.timeout
    max_bytes: int = _FETCH.max_bytes
    max_redirects: int = _FETCH.max_redirects
    allowed_networks: tuple[str, ...] = _FETCH.allowed_networks
    retries: int = _FETCH.retries
    backoff_seconds: float = _FETCH.backoff_seconds
    backoff_cap_seconds: float = _FETCH.backoff_cap_seconds
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
        fetch = FetchSettings.from_settings(
            django_settings, **{key: overrides.pop(key) for key in FETCH_FIELDS if key in overrides}
        )
        values: dict[str, Any] = {
            "start_url": start_url,
            **{name: getattr(fetch, name) for name in FETCH_FIELDS},
            "max_pages": django_settings.WEBAUDIT_CRAWL_MAX_PAGES,
            "max_depth": django_settings.WEBAUDIT_CRAWL_MAX_DEPTH,
            "check_external": django_settings.WEBAUDIT_CRAWL_CHECK_EXTERNAL,
            "lanes": django_settings.WEBAUDIT_CRAWL_LANES,
            "probe_resemblance": django_settings.WEBAUDIT_PROBE_RESEMBLANCE,
            "soft404_threshold": django_settings.WEBAUDIT_SOFT404_THRESHOLD,
            "soft404_model": django_settings.WEBAUDIT_SOFT404_MODEL,
        }
        values.update({key: value for key, value in overrides.items() if value is not None})
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["allowed_networks"] = list(self.allowed_networks)
        data["extractors"] = [list(pair) for pair in self.extractors]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CrawlConfig:
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        values["allowed_networks"] = tuple(values.get("allowed_networks", ()))
        values["extractors"] = tuple(tuple(pair) for pair in values.get("extractors", ()))
        return cls(**values)

    @property
    def fetch_settings(self) -> FetchSettings:
        """The crawl's fetch settings, as the site and deployment chose them (the whole crawl's politeness)."""
        return FetchSettings(**{name: getattr(self, name) for name in FETCH_FIELDS})

    @property
    def lane_fetch_settings(self) -> FetchSettings:
        """What one lane fetches with: its share of the per-host concurrency, the delay spread over the lanes."""
        return self.fetch_settings.with_changes(concurrency=self.lane_concurrency, delay=self.lane_delay)

    @property
    def lane_concurrency(self) -> int:
        return max(1, -(-self.concurrency // self.lanes))

    @property
    def lane_delay(self) -> float:
        return self.delay * self.lanes
