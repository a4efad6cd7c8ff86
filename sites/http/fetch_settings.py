"""The one declaration of how webaudit fetches: limits of each request and politeness to each host.

Every part that fetches (the crawl, live decay, page finding, IndexNow, URL checks, MWIM) gets its
FetchSettings from `from_settings` (the deployment's Django settings; a site's own concurrency, delay and
robots choice come in as overrides through the crawl's configuration, sites.services.crawl_config_for)
and hands it to a PoliteFetcher, or takes its FetchPolicy for a plain Fetcher. Django settings are passed in, not imported: sites/http imports nothing of the project.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .policy import FetchPolicy

# Django setting that holds each field's deployment default.
SETTING_NAMES = {
    "user_agent": "WEBAUDIT_USER_AGENT",
    "timeout": "WEBAUDIT_FETCH_TIMEOUT",
    "max_bytes": "WEBAUDIT_FETCH_MAX_BYTES",
    "max_redirects": "WEBAUDIT_FETCH_MAX_REDIRECTS",
    "allowed_networks": "WEBAUDIT_ALLOWED_NETWORKS",
    "concurrency": "WEBAUDIT_CRAWL_CONCURRENCY",
    "delay": "WEBAUDIT_CRAWL_DELAY",
    "fetch_concurrency": "WEBAUDIT_FETCH_CONCURRENCY",
    "obey_robots": "WEBAUDIT_CRAWL_OBEY_ROBOTS",
    "retries": "WEBAUDIT_CRAWL_RETRIES",
    "backoff_seconds": "WEBAUDIT_CRAWL_BACKOFF_SECONDS",
    "backoff_cap_seconds": "WEBAUDIT_CRAWL_BACKOFF_CAP_SECONDS",
}


# The limits of one request are FetchPolicy's fields: their defaults are declared there, once.
_POLICY = FetchPolicy()


@dataclass(frozen=True)
class FetchSettings:
    user_agent: str = _POLICY.user_agent
    # Limits of one request (FetchPolicy).
    timeout: float = _POLICY.timeout
    max_bytes: int = _POLICY.max_bytes
    max_redirects: int = _POLICY.max_redirects
    allowed_networks: tuple[str, ...] = _POLICY.allowed_networks
    # Politeness to one host: requests at once, seconds between their starts, robots.txt.
    concurrency: int = 4
    delay: float = 0.25
    obey_robots: bool = True
    # Requests at once across all hosts: a request waiting for its host's turn holds none of them (PoliteScheduler).
    # lychee runs 128; a crawl makes more requests a target (robots.txt, the soft-404 probe), and on the benchmark
    # machine (2 cores) 256 checked 150 and 1,000 hosts' targets 10-20% sooner than 128 (docs/benchmarks.md).
    fetch_concurrency: int = 256
    # A 429/503 is asked again up to `retries` times, after backoff_seconds * 2^attempt (capped), or the
    # Retry-After if longer.
    retries: int = 4
    backoff_seconds: float = 2.0
    backoff_cap_seconds: float = 300.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_networks", tuple(self.allowed_networks))
        if self.concurrency < 1:
            raise ValueError(f"FetchSettings.concurrency must be at least 1, got {self.concurrency!r}")
        if self.delay < 0:
            raise ValueError(f"FetchSettings.delay must not be negative, got {self.delay!r}")
        if not 1 <= self.fetch_concurrency <= 1024:
            raise ValueError(
                f"FetchSettings.fetch_concurrency must be 1 to 1024, got {self.fetch_concurrency!r}"
            )

    @classmethod
    def from_settings(cls, django_settings: Any, **overrides: Any) -> FetchSettings:
        """The deployment's settings, with `overrides` (those not None) winning."""
        values = {name: getattr(django_settings, setting) for name, setting in SETTING_NAMES.items()}
        values.update({key: value for key, value in overrides.items() if value is not None})
        return cls(**values)

    def policy(self, *, max_bytes: int | None = None, pool_size: int | None = None) -> FetchPolicy:
        """The per-request limits for the HTTP client; `max_bytes` for callers that read short answers."""
        return FetchPolicy(
            user_agent=self.user_agent,
            timeout=self.timeout,
            max_bytes=self.max_bytes if max_bytes is None else max_bytes,
            max_redirects=self.max_redirects,
            allowed_networks=self.allowed_networks,
            pool_size=max(10, self.concurrency * 2) if pool_size is None else pool_size,
            # Connections kept for this many hosts: one per request that may run at once.
            pool_hosts=max(10, self.fetch_concurrency),
        )

    def with_changes(self, **changes: Any) -> FetchSettings:
        return replace(self, **changes)
