"""Fetch policy: the plain configuration values every fetch obeys."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


@dataclass(frozen=True)
class FetchPolicy:
    user_agent: str = "webaudit/0.1"
    # Total seconds for one fetch: connect, headers, the whole body and every redirect hop.
    timeout: float = 10.0
    # Cap on the decoded body, so compression bombs are cut as well as plain large bodies.
    max_bytes: int = 5_000_000
    max_redirects: int = 20
    # CIDR strings allowed despite being private, loopback, link-local, reserved and so on.
    allowed_networks: tuple[str, ...] = ()
    pool_size: int = 10  # connections kept per host
    pool_hosts: int = 10  # hosts whose connections are kept (a crawl checking links talks to many at once)

    def __post_init__(self) -> None:
        # Settings may hand over a list; keep the policy hashable and immutable.
        object.__setattr__(self, "allowed_networks", tuple(self.allowed_networks))
        if not self.timeout > 0:
            raise ValueError(f"FetchPolicy.timeout must be positive, got {self.timeout!r}")
        if self.max_bytes < 0:
            raise ValueError(f"FetchPolicy.max_bytes must not be negative, got {self.max_bytes!r}")
        if self.max_redirects < 0:
            raise ValueError(f"FetchPolicy.max_redirects must not be negative, got {self.max_redirects!r}")
        if self.pool_hosts < 1:
            raise ValueError(f"FetchPolicy.pool_hosts must be at least 1, got {self.pool_hosts!r}")
        if self.pool_size < 1:
            raise ValueError(f"FetchPolicy.pool_size must be at least 1, got {self.pool_size!r}")
        for cidr in self.allowed_networks:
            try:
                # strict: "10.0.0.5/8" is more likely a typo than a wish to allow 10.0.0.0/8.
                ipaddress.ip_network(cidr, strict=True)
            except ValueError as exc:
                raise ValueError(f"FetchPolicy.allowed_networks: {cidr!r} is not a network ({exc})") from None
