"""urllib3 connections that resolve, check and connect to a host's address in one step.

Checking at connection time, after DNS, covers every redirect hop and DNS rebinding: the address
we check is the address we connect to. TLS SNI and the Host header still use the host name.
"""

from __future__ import annotations

import socket
import ssl
from functools import cache
from typing import Any

from requests.adapters import HTTPAdapter
from requests.certs import where as ca_bundle_path
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


@cache
def shared_tls_context() -> ssl.SSLContext:
    """Return one verifying TLS context, holding requests' CA bundle, for every connection."""
    context = create_urllib3_context(cert_reqs=ssl.CERT_REQUIRED)
    context.load_verify_locations(ca_bundle_path())
    return context


class GuardedAdapter(HTTPAdapter):
    """A requests adapter whose every connection goes through an AddressGuard."""

    def __init__(self, guard: AddressGuard, **kwargs: Any) -> None:
        # HTTPAdapter.__init__ builds the pool manager, which needs the guard already.
        self._guard = guard
        super().__init__(**kwargs)

    def init_poolmanager(
        self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any
    ) -> None:
        pool_kwargs.setdefault("ssl_context", shared_tls_context())
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        # Pool kwargs must fit urllib3's pool key, so the guard travels as a class attribute instead.
        http_conn = type("GuardedHTTPConnection", (GuardedHTTPConnection,), {"guard": self._guard})
        https_conn = type("GuardedHTTPSConnection", (GuardedHTTPSConnection,), {"guard": self._guard})
        self.poolmanager.pool_classes_by_scheme = {
            "http": type("GuardedHTTPConnectionPool", (HTTPConnectionPool,), {"ConnectionCls": http_conn}),
            "https": type(
                "GuardedHTTPSConnectionPool", (HTTPSConnectionPool,), {"ConnectionCls": https_conn}
            ),
        }

    def cert_verify(self, conn: Any, url: str, verify: bool | str, cert: Any) -> None:
        super().cert_verify(conn, url, verify, cert)
        if verify is True:
            # The shared context holds the CA bundle already. Given a path, urllib3 would parse the
            # bundle again for every new connection: 30-70 ms of CPU each, measured here.
            conn.ca_certs = None
            conn.ca_cert_dir = None

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        # A proxy would connect on our behalf and bypass the guard.
        raise RuntimeError("Proxies are not supported: they would bypass the private-address guard")
