"""A crawl's settings: the deployment defaults, overridden by the site's, snapshotted as plain data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class CrawlConfig:
    start_url: str
    max_pages: int = 1000
    max_depth: int = 50
    include_patterns: str = ""
    exclude_patterns: str = ""
    concurrency: int = 4  # requests at once to one host
    delay: float = 0.25  # seconds between request starts to one host
    fetch_concurrency: int = 128  # requests at once across all hosts (a thread each)
    obey_robots: bool = True
    check_external: bool = True
    # Hours an external target's verdict, checked by an earlier crawl of the same owner, is reused (0: never).
    external_cache_hours: float = 24.0
    user_agent: str = "webaudit/0.1"
    timeout: float = 10.0
    max_bytes: int = 5_000_000
    max_redirects: int = 20
    allowed_networks: tuple[str, ...] = ()
    retries: int = 4
    backoff_seconds: float = 2.0
    backoff_cap_seconds: float = 300.0
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
        values: dict[str, Any] = {
            "start_url": start_url,
            "max_pages": django_settings.WEBAUDIT_CRAWL_MAX_PAGES,
            "max_depth": django_settings.WEBAUDIT_CRAWL_MAX_DEPTH,
            "concurrency": django_settings.WEBAUDIT_CRAWL_CONCURRENCY,
            "delay": django_settings.WEBAUDIT_CRAWL_DELAY,
            "fetch_concurrency": django_settings.WEBAUDIT_FETCH_CONCURRENCY,
            "obey_robots": django_settings.WEBAUDIT_CRAWL_OBEY_ROBOTS,
            "check_external": django_settings.WEBAUDIT_CRAWL_CHECK_EXTERNAL,
            "external_cache_hours": django_settings.WEBAUDIT_EXTERNAL_CACHE_HOURS,
            "user_agent": django_settings.WEBAUDIT_USER_AGENT,
            "timeout": django_settings.WEBAUDIT_FETCH_TIMEOUT,
            "max_bytes": django_settings.WEBAUDIT_FETCH_MAX_BYTES,
            "max_redirects": django_settings.WEBAUDIT_FETCH_MAX_REDIRECTS,
            "allowed_networks": tuple(django_settings.WEBAUDIT_ALLOWED_NETWORKS),
            "retries": django_settings.WEBAUDIT_CRAWL_RETRIES,
            "backoff_seconds": django_settings.WEBAUDIT_CRAWL_BACKOFF_SECONDS,
            "backoff_cap_seconds": django_settings.WEBAUDIT_CRAWL_BACKOFF_CAP_SECONDS,
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
    def lane_concurrency(self) -> int:
        return max(1, -(-self.concurrency // self.lanes))

    @property
    def lane_fetch_concurrency(self) -> int:
        # Never below the per-host limit: a lane must be able to use its host's slots.
        return max(self.lane_concurrency, -(-self.fetch_concurrency // self.lanes))

    @property
    def lane_delay(self) -> float:
        return self.delay * self.lanes
