"""Real local servers on several 127.0.0.x addresses that count the requests they hold at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Request, Response


@dataclass
class InFlight:
    """Requests being answered right now, in all and per server, and the most there ever were."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    now: int = 0
    most: int = 0
    per_host: dict[str, int] = field(default_factory=dict)
    most_per_host: dict[str, int] = field(default_factory=dict)
    starts: list[tuple[str, str, float]] = field(default_factory=list)  # (host, path, monotonic time)

    def handler(self, host: str, hold: float, body: str = "", status: int = 200, headers: dict | None = None):
        def answer(request: Request) -> Response:
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
                self.per_host[host] = self.per_host.get(host, 0) + 1
                self.most_per_host[host] = max(self.most_per_host.get(host, 0), self.per_host[host])
                self.starts.append((host, request.path, time.monotonic()))
            try:
                time.sleep(hold)
                return Response(
                    body or f"<html><title>{request.path}</title></html>",
                    status,
                    headers,
                    content_type="text/html",
                )
            finally:
                with self.lock:
                    self.now -= 1
                    self.per_host[host] -= 1

        return answer

    def starts_of(self, host: str) -> list[float]:
        return sorted(at for name, _, at in self.starts if name == host)


@contextmanager
def servers_on(count: int, *, first: int = 2, threaded: bool = True) -> Iterator[list[HTTPServer]]:
    """`count` servers on 127.0.0.<first> and up (each on a port of its own), stopped at the end."""
    started: list[HTTPServer] = []
    try:
        for offset in range(count):
            server = HTTPServer(host=f"127.0.0.{first + offset}", threaded=threaded)
            server.no_handler_status_code = 404
            server.start()
            started.append(server)
        yield started
    finally:
        for server in started:
            server.clear()
            server.stop()


def host_of(server: HTTPServer) -> str:
    return f"{server.host}:{server.port}"
