"""Mapping of the exceptions a fetch can meet to an ErrorKind and a readable message."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator

from urllib3 import exceptions as u3

from .guard import BlockedAddressError
from .result import ErrorKind

_MAX_MESSAGE = 300

# LocationParseError (a URL or redirect target urllib3 cannot parse, an invalid IDNA label) is one of these.
_INVALID_URL = (u3.LocationValueError,)
_TLS = (ssl.SSLError, ssl.CertificateError, u3.SSLError)
_TIMEOUT = (TimeoutError, u3.ConnectTimeoutError, u3.ReadTimeoutError)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """Yield an exception and every exception it wraps (cause, context, reason, args)."""
    seen: set[int] = set()
    queue = [exc]
    while queue:
        current = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        linked = [getattr(current, "reason", None), current.__cause__, current.__context__, *current.args]
        queue.extend(item for item in linked if isinstance(item, BaseException))


def _is_timeout(exc: BaseException) -> bool:
    # NewConnectionError subclasses urllib3's ConnectTimeoutError for historical reasons only.
    if isinstance(exc, u3.NewConnectionError):
        return False
    return isinstance(exc, _TIMEOUT)


def _shorten(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def classify(
    exc: BaseException, *, host: str, timeout: float, deadline_passed: bool
) -> tuple[ErrorKind, str]:
    """Return the kind of a fetch failure and a message naming what failed."""
    chain = list(_chain(exc))
    blocked = next((e for e in chain if isinstance(e, BlockedAddressError)), None)
    if blocked is not None:
        return ErrorKind.BLOCKED_ADDRESS, str(blocked)
    if deadline_passed or any(_is_timeout(e) for e in chain):
        # Checked before anything else: once the watchdog shuts a late socket down, the read fails
        # with whatever error the half-closed socket produces.
        return ErrorKind.TIMEOUT, f"Timed out after {timeout:g} s"
    if any(isinstance(e, _INVALID_URL) for e in chain):
        return ErrorKind.INVALID_URL, _shorten(f"Invalid URL: {exc}")
    gai = next((e for e in chain if isinstance(e, socket.gaierror)), None)
    if gai is not None or any(isinstance(e, u3.NameResolutionError) for e in chain):
        reason = gai.strerror if gai is not None and gai.strerror else "name not resolved"
        return ErrorKind.DNS, f"DNS lookup failed for {host}: {reason}"
    tls = next((e for e in chain if isinstance(e, ssl.SSLError)), None)
    if tls is not None or any(isinstance(e, _TLS) for e in chain):
        return ErrorKind.TLS, _shorten(f"TLS error with {host}: {tls or exc}")
    if any(isinstance(e, u3.NewConnectionError | ConnectionRefusedError) for e in chain):
        cause = next((e for e in chain if isinstance(e, OSError) and e.strerror), None)
        reason = cause.strerror if cause is not None else "connection failed"
        return ErrorKind.CONNECT, f"Could not connect to {host}: {reason}"
    # Everything else happened after connecting: a malformed or cut response. Unexpected exceptions
    # land here too, named by type, because a worker must never die of a bad page.
    return ErrorKind.PROTOCOL, _shorten(f"Bad response from {host}: {type(exc).__name__}: {exc}")
