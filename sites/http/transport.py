"""urllib3 connections that resolve, check and connect to a host's address in one step, and the pool manager
that hands them out.

Checking at connection time, after DNS, covers every redirect hop and DNS rebinding: the address
we check is the address we connect to. TLS SNI and the Host header still use the host name.
"""

from __future__ import annotations

import socket
import ssl
import threading
from typing import Any

import certifi
from urllib3 import PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.util.ssl_ import create_urllib3_context

from .deadline import watch_socket
from .guard import AddressGuard, AddrInfo


def _connect_first(
    infos: list[AddrInfo],
    timeout: Any,
    source_address: tuple[str, int] | None,
    socket_options: Any,
) -> socket.socket:
    """Connect to the first address that answers, as socket.create_connection does."""
    error: OSError | None = None
    for family, kind, proto, _, sockaddr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            for option in socket_options or ():
                sock.setsockopt(*option)
            # urllib3 passes a sentinel object for "no timeout given"; only numbers and None are real.
            if timeout is None or isinstance(timeout, int | float):
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            error = exc
            sock.close()
    raise error or OSError("getaddrinfo returned no addresses")


class _GuardedConnectionMixin:
    guard: AddressGuard

    def _new_conn(self: Any) -> socket.socket:
        try:
            infos = self.guard.resolve(self._dns_host, self.port)
        except socket.gaierror as exc:
            raise NameResolutionError(self.host, self, exc) from exc
        try:
            sock = _connect_first(infos, self.timeout, self.source_address, self.socket_options)
        except TimeoutError as exc:
            raise ConnectTimeoutError(
                self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})"
            ) from exc
        except OSError as exc:
            raise NewConnectionError(self, f"Failed to establish a new connection: {exc}") from exc
        watch_socket(sock)
        return sock

    def request(self: Any, *args: Any, **kwargs: Any) -> None:
        # A connection reused from the pool did not go through _new_conn in this fetch.
        watch_socket(self.sock)
        super().request(*args, **kwargs)  # type: ignore[misc]


class GuardedHTTPConnection(_GuardedConnectionMixin, HTTPConnection):
    pass


class GuardedHTTPSConnection(_GuardedConnectionMixin, HTTPSConnection):
    pass


_tls_context: ssl.SSLContext | None = None
_tls_lock = threading.Lock()


def shared_tls_context() -> ssl.SSLContext:
    """Return one verifying TLS context, holding certifi's CA bundle, for every connection of the process.

    Made on the first https connection, not before: parsing the bundle costs 50-100 ms of CPU, which a crawl
    of plain-http hosts never needs to spend."""
    global _tls_context
    with _tls_lock:
        if _tls_context is None:
            context = create_urllib3_context(cert_reqs=ssl.CERT_REQUIRED)
            context.load_verify_locations(certifi.where())
            _tls_context = context
        return _tls_context


class GuardedPoolManager(PoolManager):
    """A urllib3 pool manager whose every connection goes through an AddressGuard, verifying certificates
    against certifi's bundle; no proxy, whatever the environment says (a proxy would connect on our behalf and
    bypass the guard: urllib3 never reads the proxy variables, and this class never makes a ProxyManager)."""

    def __init__(self, guard: AddressGuard, *, num_pools: int, maxsize: int) -> None:
        super().__init__(num_pools=num_pools, maxsize=maxsize, block=False, cert_reqs="CERT_REQUIRED")
        # Pool kwargs must fit urllib3's pool key, so the guard travels as a class attribute instead.
        http_conn = type("GuardedHTTPConnection", (GuardedHTTPConnection,), {"guard": guard})
        https_conn = type("GuardedHTTPSConnection", (GuardedHTTPSConnection,), {"guard": guard})
        self.pool_classes_by_scheme = {
            "http": type("GuardedHTTPConnectionPool", (HTTPConnectionPool,), {"ConnectionCls": http_conn}),
            "https": type(
                "GuardedHTTPSConnectionPool", (HTTPSConnectionPool,), {"ConnectionCls": https_conn}
            ),
        }

    def _new_pool(
        self, scheme: str, host: str, port: int, request_context: dict[str, Any] | None = None
    ) -> HTTPConnectionPool:
        if scheme == "https":
            # The context holds the CA bundle already (no ca_certs path: urllib3 would parse the bundle again
            # for every new connection, 30-70 ms of CPU each, measured here).
            context = dict(self.connection_pool_kw if request_context is None else request_context)
            context["ssl_context"] = shared_tls_context()
            request_context = context
        return super()._new_pool(scheme, host, port, request_context)
