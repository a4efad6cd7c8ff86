"""The one HTTP client of webaudit: pooled GETs with a total timeout, size caps, every redirect
hop recorded and the private-address guard on every connection; and JSON POSTs (IndexNow) under the
same guard, timeout and caps, sent once and never re-sent to a redirect's target.

It speaks to urllib3 directly, one pool of connections per host: requests' session machinery (hooks,
cookie extraction, environment merging, URL re-quoting) cost about 0.4 ms of CPU a request, most of a link
check's time on a page linking to many hosts. Nothing else in the project imports urllib3; everything fetches
through Fetcher.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial
from types import TracebackType
from typing import Any
from urllib.parse import urljoin, urlsplit

from urllib3 import BaseHTTPResponse, Timeout
from urllib3.util.request import ACCEPT_ENCODING

from .deadline import Deadline, enforce
from .errors import classify
from .guard import AddressGuard
from .headers import parse_content_type, parse_retry_after
from .policy import FetchPolicy
from .result import ErrorKind, FetchResult, Hop
from .transport import GuardedPoolManager
from .urls import same_resource, url_problem

# Decoded bytes asked of urllib3 per read: large enough to keep the loop cheap, small enough that
# the deadline is checked often and a decompression bomb overshoots the cap by at most this much.
CHUNK_BYTES = 64 * 1024
# A redirect's body is read up to this size so its connection can be reused; larger ones are dropped.
REDIRECT_BODY_BYTES = 64 * 1024

ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
JSON_CONTENT_TYPE = "application/json; charset=utf-8"
# The answers whose Location is followed (RFC 9110 §15.4; 300 and 304 are not redirects to follow).
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def json_body(payload: object) -> bytes:
    """The bytes `Fetcher.post_json` sends for `payload`."""
    return json.dumps(payload).encode()


def _accept_encoding() -> str:
    # Offer brotli only when urllib3 found a brotli module to decode it with.
    return "gzip, deflate, br" if "br" in ACCEPT_ENCODING.split(",") else "gzip, deflate"


class Fetcher:
    """Fetch URLs with GET (or send one JSON POST) under a FetchPolicy; one pool manager shared by all calling
    threads. No cookie is ever stored or sent (search engine crawlers are stateless, and a shared jar would leak
    cookies between sites and threads): urllib3 keeps none."""

    def __init__(self, policy: FetchPolicy | None = None) -> None:
        self.policy = policy or FetchPolicy()
        self._headers = {
            "User-Agent": self.policy.user_agent,
            "Accept": ACCEPT,
            "Accept-Encoding": _accept_encoding(),
        }
        self._pools = GuardedPoolManager(
            AddressGuard(self.policy.allowed_networks),
            num_pools=max(self.policy.pool_hosts, self.policy.pool_size),
            maxsize=self.policy.pool_size,
        )

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._pools.clear()

    def fetch(
        self, url: str, *, max_bytes: int | None = None, headers: dict[str, str] | None = None
    ) -> FetchResult:
        """GET `url`, following redirects; report any failure in the result instead of raising.

        `headers` go with the first request only (conditional validators belong to `url`, not to wherever it
        redirects)."""
        return self._exchange(url, max_bytes, partial(self._follow, headers=headers))

    def post_json(
        self,
        url: str,
        payload: object,
        *,
        max_bytes: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> FetchResult:
        """POST `payload` as JSON to `url` once; report any failure in the result instead of raising. The body is
        `json_body(payload)`, so a caller can sign exactly what is sent (in `headers`).

        A redirect answer is recorded as the one hop and reported as REDIRECT_NOT_FOLLOWED: re-sending a
        POST to wherever an answer points is the caller's decision, not the client's.
        """
        return self._exchange(url, max_bytes, partial(self._post, body=json_body(payload), headers=headers))

    def _exchange(
        self, url: str, max_bytes: int | None, run: Callable[[FetchResult, Deadline, int], None]
    ) -> FetchResult:
        started = time.monotonic()
        result = FetchResult(url=url, final_url=url, status=None)
        problem = url_problem(url)
        if problem is not None:
            result.error_kind, result.error = ErrorKind.INVALID_URL.value, f"Invalid URL {url!r}: {problem}"
        else:
            cap = self.policy.max_bytes if max_bytes is None else max_bytes
            with enforce(self.policy.timeout) as deadline:
                try:
                    run(result, deadline, cap)
                except Exception as exc:  # A worker must never die of a bad page.
                    result.error_kind, result.error = self._describe(exc, result, deadline)
        result.retry_after = parse_retry_after(result.headers.get("retry-after"))
        result.elapsed_ms = int((time.monotonic() - started) * 1000)
        return result

    def _describe(self, exc: Exception, result: FetchResult, deadline: Deadline) -> tuple[str, str]:
        try:
            host = urlsplit(result.final_url).hostname or result.final_url
            kind, message = classify(
                exc, host=host, timeout=self.policy.timeout, deadline_passed=deadline.passed()
            )
            return kind.value, message
        except Exception as bug:  # The classifier itself must not turn a bad page into a crash.
            return ErrorKind.PROTOCOL.value, f"{type(exc).__name__} (unclassified: {type(bug).__name__})"

    def _follow(
        self, result: FetchResult, deadline: Deadline, cap: int, headers: dict[str, str] | None = None
    ) -> None:
        seen = {same_resource(result.url)}
        while True:
            first = headers if not result.redirects else None
            response = self._send("GET", result.final_url, deadline, headers=first)
            try:
                location = self._take_answer(response, result.final_url, result, deadline, cap)
            finally:
                _release(response)
            if location is None:
                return
            problem = self._chain_problem(result, location, seen)
            if problem is not None:
                result.error_kind, result.error = problem[0].value, problem[1]
                return
            seen.add(same_resource(location))
            # The next request is now the last one made; until it answers it has no status.
            result.final_url, result.status, result.headers = location, None, {}

    def _chain_problem(
        self, result: FetchResult, location: str, seen: set[str]
    ) -> tuple[ErrorKind, str] | None:
        problem = url_problem(location)
        if problem is not None:
            return ErrorKind.INVALID_URL, f"Redirect to unsupported URL {location!r}: {problem}"
        if same_resource(location) in seen:
            chain = " -> ".join([hop.url for hop in result.redirects] + [location])
            return ErrorKind.REDIRECT_LOOP, f"Redirect loop: {chain}"
        if len(result.redirects) > self.policy.max_redirects:
            return ErrorKind.TOO_MANY_REDIRECTS, f"More than {self.policy.max_redirects} redirects"
        return None

    def _post(
        self, result: FetchResult, deadline: Deadline, cap: int, body: bytes, headers: dict[str, str] | None
    ) -> None:
        response = self._send(
            "POST",
            result.url,
            deadline,
            body=body,
            headers={**(headers or {}), "Content-Type": JSON_CONTENT_TYPE},
        )
        try:
            location = self._take_answer(response, result.url, result, deadline, cap)
        finally:
            _release(response)
        if location is not None:
            result.error_kind = ErrorKind.REDIRECT_NOT_FOLLOWED.value
            result.error = f"HTTP {result.status} redirect to {location} not followed: a POST is not re-sent"

    def _take_answer(
        self, response: BaseHTTPResponse, url: str, result: FetchResult, deadline: Deadline, cap: int
    ) -> str | None:
        """Read an answer into `result`: the final one's body, or, for a redirect, the hop it makes (its body
        read off so the connection can be reused); return where a redirect points, None for a final answer."""
        self._take_headers(response, result, deadline)
        target = _redirect_target(response)
        if not target:
            self._read_final_body(response, result, deadline, cap)
            return None
        location = urljoin(url, target)
        result.redirects.append(Hop(url=url, status=response.status, location=location))
        self._discard_body(response, deadline)
        return location

    def _send(
        self,
        method: str,
        url: str,
        deadline: Deadline,
        *,
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> BaseHTTPResponse:
        remaining = deadline.remaining()
        if remaining <= 0:
            raise TimeoutError("fetch deadline passed before the request")
        return self._pools.urlopen(
            method,
            url,
            headers={**self._headers, **headers} if headers else self._headers,
            redirect=False,
            retries=False,  # a failure is reported as it happened, not retried
            preload_content=False,
            decode_content=True,
            timeout=Timeout(connect=remaining, read=remaining),
            **kwargs,
        )

    def _take_headers(self, response: BaseHTTPResponse, result: FetchResult, deadline: Deadline) -> None:
        if deadline.passed():
            # The watchdog cut the headers short; what was parsed of them is not an answer.
            raise TimeoutError("fetch deadline passed while reading the headers")
        result.status = response.status
        # A header sent more than once reads as its values joined by ", " (RFC 9110 §5.3).
        result.headers = {name.lower(): value for name, value in response.headers.itermerged()}

    def _read_final_body(
        self, response: BaseHTTPResponse, result: FetchResult, deadline: Deadline, cap: int
    ) -> None:
        result.content_type, result.charset = parse_content_type(result.headers.get("content-type", ""))
        body = bytearray()
        try:
            if self._read_body(response, deadline, cap, body):
                result.error_kind = ErrorKind.TOO_LARGE.value
                result.error = f"Body larger than {cap} bytes; truncated"
        finally:
            # A body cut by an error is still kept: a partial page beats none for diagnosis.
            result.body = bytes(body)

    def _discard_body(self, response: BaseHTTPResponse, deadline: Deadline) -> None:
        try:
            self._read_body(response, deadline, REDIRECT_BODY_BYTES, bytearray())
        except Exception:  # The redirect itself arrived; a broken body after it does not matter.
            pass

    def _read_body(self, response: BaseHTTPResponse, deadline: Deadline, cap: int, sink: bytearray) -> bool:
        """Read the decoded body into `sink` up to `cap` bytes; return True if there was more."""
        raw = response
        while True:
            remaining = deadline.remaining()
            if remaining <= 0:
                raise TimeoutError("fetch deadline passed while reading the body")
            sock = getattr(raw.connection, "sock", None)
            if sock is not None:
                sock.settimeout(min(remaining, self.policy.timeout))
            # read1 returns what one network read gives; read(n) would wait for n bytes and let a
            # slow server hold us past the deadline between two checks.
            chunk = raw.read1(CHUNK_BYTES, decode_content=True)
            if not chunk:
                return False
            room = cap - len(sink)
            if len(chunk) > room:
                sink += chunk[:room]
                return True
            sink += chunk


def _redirect_target(response: BaseHTTPResponse) -> str | None:
    """Where a redirect answer points, as sent; None for any other answer (a redirect without Location too)."""
    if response.status not in REDIRECT_STATUSES:
        return None
    location = response.headers.get("location")
    if not location:
        return None
    # http.client reads header bytes as Latin-1; servers send a non-ASCII Location as UTF-8, mostly.
    try:
        return location.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return location


def _release(response: BaseHTTPResponse) -> None:
    """Give the connection back to its pool: as it is when the body was read to its end, closed when not (what
    is left of a cut body would be read as the next answer)."""
    response.close()
    response.release_conn()
