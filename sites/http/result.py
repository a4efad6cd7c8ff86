"""What a fetch returns: the result, its redirect hops and the stable error kinds."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any

from .decoding import is_html_type


class ErrorKind(StrEnum):
    # Stored in the database: keep the values short and never rename them.
    INVALID_URL = "invalid_url"
    DNS = "dns"
    CONNECT = "connect"
    TIMEOUT = "timeout"
    TLS = "tls"
    TOO_LARGE = "too_large"
    REDIRECT_LOOP = "redirect_loop"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    BLOCKED_ADDRESS = "blocked_address"
    # Only a POST meets it: the redirect answer is reported and its target never asked.
    REDIRECT_NOT_FOLLOWED = "redirect_not_followed"
    # Malformed response, connection reset mid-body, bad chunking, undecodable content-encoding...
    PROTOCOL = "protocol"


@dataclass(frozen=True)
class Hop:
    """One redirect answer: the URL asked, its status and the absolute URL it pointed to."""

    url: str
    status: int
    location: str


@dataclass
class FetchResult:
    """The outcome of one fetch.

    `final_url`, `status` and `headers` describe the last request made. When a redirect hop could not
    be fetched (blocked address, DNS...), `final_url` is that hop and `status` is None. When the chain
    itself is wrong (loop, too many, unsupported target), the offending answer is the last hop and
    `final_url`/`status` are the request that gave it.
    """

    url: str
    final_url: str
    status: int | None
    redirects: list[Hop] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = ""
    charset: str | None = None
    body: bytes = b""
    elapsed_ms: int = 0
    error_kind: str = ""
    error: str = ""
    retry_after: float | None = None

    @property
    def is_html(self) -> bool:
        return is_html_type(self.content_type)

    @property
    def ok(self) -> bool:
        """True when a response arrived and nothing went wrong fetching it (any status)."""
        return self.status is not None and not self.error_kind

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-friendly summary of the result without the body."""
        summary = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "body"}
        summary["redirects"] = [asdict(hop) for hop in self.redirects]
        summary["headers"] = dict(self.headers)
        return summary
