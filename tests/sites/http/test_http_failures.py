"""Fetches against servers that misbehave at the socket level: slow, silent, endless or broken."""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from sites.http import ErrorKind, Fetcher, FetchPolicy
from sites.http.errors import classify

Handler = Callable[[socket.socket, threading.Event], None]
StartServer = Callable[..., str]


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return
        data += chunk


def _serve_one(conn: socket.socket, handler: Handler, stop: threading.Event, read_request: bool) -> None:
    with conn:
        try:
            conn.settimeout(5)
            if read_request:
                _read_request(conn)
            handler(conn, stop)
        except OSError:
            pass  # The client hung up on us, which is what most of these tests want.


@pytest.fixture
def raw_server() -> Iterator[StartServer]:
    """Start TCP servers on 127.0.0.1 that hand each connection to a test's handler."""
    stop = threading.Event()
    listeners: list[socket.socket] = []

    def start(handler: Handler, *, read_request: bool = True, scheme: str = "http") -> str:
        listener = socket.create_server(("127.0.0.1", 0))
        # accept() is not woken by close() on every platform; a short timeout lets the loop see `stop`.
        listener.settimeout(0.05)
        listeners.append(listener)

        def accept_loop() -> None:
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                args = (conn, handler, stop, read_request)
                threading.Thread(target=_serve_one, args=args, daemon=True).start()

        threading.Thread(target=accept_loop, daemon=True).start()
        return f"{scheme}://127.0.0.1:{listener.getsockname()[1]}/"

    yield start
    stop.set()
    for listener in listeners:
        listener.close()


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(FetchPolicy(timeout=1.0, max_bytes=1_000_000, allowed_networks=("127.0.0.0/8",))) as f:
        yield f


def _drip(conn: socket.socket, stop: threading.Event, data: bytes = b"x", every: float = 0.05) -> None:
    while not stop.wait(every):
        conn.sendall(data)


def test_server_that_never_answers_times_out_after_the_total_timeout(raw_server, fetcher):
    url = raw_server(lambda conn, stop: stop.wait(10))
    result = fetcher.fetch(url)
    assert result.error_kind == ErrorKind.TIMEOUT
    assert result.error == "Timed out after 1 s"
    assert result.status is None
    assert 900 <= result.elapsed_ms < 2000


def test_slow_drip_body_is_cut_at_the_total_timeout(raw_server, fetcher):
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n")
        _drip(conn, stop)

    result = fetcher.fetch(raw_server(handler))
    assert result.error_kind == ErrorKind.TIMEOUT
    assert result.status == 200
    assert 900 <= result.elapsed_ms < 2000
    # What arrived before the deadline is kept.
    assert 5 <= len(result.body) <= 25 and set(result.body) == {ord("x")}


def test_slow_drip_headers_are_cut_at_the_total_timeout(raw_server, fetcher):
    # Each byte comes well within the socket timeout, so only the total deadline can stop this.
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        _drip(conn, stop, b"X-Slow: y\r\n")

    result = fetcher.fetch(raw_server(handler))
    assert result.error_kind == ErrorKind.TIMEOUT
    assert result.status is None
    assert 900 <= result.elapsed_ms < 2000


def test_post_to_a_server_that_never_answers_times_out_after_the_total_timeout(raw_server, fetcher):
    url = raw_server(lambda conn, stop: stop.wait(10))
    result = fetcher.post_json(url, {"urlList": ["https://www.example.org/"]})
    assert (result.error_kind, result.error, result.status) == (
        ErrorKind.TIMEOUT,
        "Timed out after 1 s",
        None,
    )
    assert 900 <= result.elapsed_ms < 2000


def test_endless_chunked_body_is_cut_at_the_size_cap(raw_server, fetcher):
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"a" * 65536
        while not stop.is_set():
            conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))

    result = fetcher.fetch(raw_server(handler))
    assert result.error_kind == ErrorKind.TOO_LARGE
    assert len(result.body) == 1_000_000
    assert result.elapsed_ms < 1000


def test_connection_reset_mid_body_is_a_protocol_error(raw_server, fetcher):
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"a" * 1000)
        time.sleep(0.05)
        # Linger 0 makes close() send RST instead of FIN.
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    result = fetcher.fetch(raw_server(handler))
    assert result.error_kind == ErrorKind.PROTOCOL
    assert result.status == 200


def test_body_shorter_than_its_content_length_is_a_protocol_error(raw_server, fetcher):
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")

    result = fetcher.fetch(raw_server(handler))
    assert result.error_kind == ErrorKind.PROTOCOL
    assert "IncompleteRead" in result.error or "ended prematurely" in result.error


def test_response_that_is_not_http_is_a_protocol_error(raw_server, fetcher):
    result = fetcher.fetch(raw_server(lambda conn, stop: conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")))
    assert result.error_kind == ErrorKind.PROTOCOL
    assert result.status is None


def test_bad_chunk_length_is_a_protocol_error(raw_server, fetcher):
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")

    result = fetcher.fetch(raw_server(handler))
    assert result.error_kind == ErrorKind.PROTOCOL
    assert result.status == 200


def test_undecodable_gzip_body_is_a_protocol_error(raw_server, fetcher):
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 12\r\n\r\nnot gzipped!")

    result = fetcher.fetch(raw_server(handler))
    assert result.error_kind == ErrorKind.PROTOCOL
    assert "DecodeError" in result.error


def test_https_to_a_plain_http_server_is_a_tls_error(raw_server):
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.recv(4096)  # The TLS ClientHello.
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    # Not the fixture's 1 s: this test is about the kind of failure, and must not race a busy machine.
    with Fetcher(FetchPolicy(timeout=10.0, allowed_networks=("127.0.0.0/8",))) as fetcher:
        result = fetcher.fetch(raw_server(handler, read_request=False, scheme="https"))
    assert result.error_kind == ErrorKind.TLS
    assert result.error.startswith("TLS error with 127.0.0.1")


def _self_signed_server_context(tmp_path) -> ssl.SSLContext:
    pytest.importorskip("cryptography")  # Installed with the bench extra (Scrapy), not always.
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .sign(key, hashes.SHA256())
    )
    pem = tmp_path / "server.pem"
    pem.write_bytes(
        cert.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pem)
    return context


def test_self_signed_certificate_is_refused_as_a_tls_error(raw_server, tmp_path):
    context = _self_signed_server_context(tmp_path)

    def handler(conn: socket.socket, stop: threading.Event) -> None:
        with context.wrap_socket(conn, server_side=True) as tls:
            _read_request(tls)
            tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret")

    with Fetcher(FetchPolicy(timeout=10.0, allowed_networks=("127.0.0.0/8",))) as fetcher:
        result = fetcher.fetch(raw_server(handler, read_request=False, scheme="https"))
    assert result.error_kind == ErrorKind.TLS
    assert "CERTIFICATE_VERIFY_FAILED" in result.error
    assert result.body == b""


def test_closed_port_is_a_connect_error(fetcher, closed_port):
    result = fetcher.fetch(f"http://127.0.0.1:{closed_port}/")
    assert result.error_kind == ErrorKind.CONNECT
    assert result.error == "Could not connect to 127.0.0.1: Connection refused"


def test_name_that_does_not_resolve_is_a_dns_error(fetcher):
    result = fetcher.fetch("http://no-such-host.invalid/page")
    assert result.error_kind == ErrorKind.DNS
    assert result.error.startswith("DNS lookup failed for no-such-host.invalid")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/file", "unsupported scheme 'ftp'"),
        ("http://", "no host"),
        ("not a url", "no scheme"),
        ("http://exa mple.com/", "whitespace or control character in host"),
        ("http://example.com:99999/", "unparsable"),
        ("javascript:alert(1)", "unsupported scheme 'javascript'"),
    ],
)
def test_invalid_urls_are_reported_without_a_request(fetcher, url, reason):
    result = fetcher.fetch(url)
    assert result.error_kind == ErrorKind.INVALID_URL
    assert reason in result.error
    assert result.status is None and result.redirects == []


def test_unexpected_exception_is_classified_as_protocol_error_named_by_type():
    kind, message = classify(RuntimeError("parser exploded"), host="h", timeout=1, deadline_passed=False)
    assert kind == ErrorKind.PROTOCOL
    assert message == "Bad response from h: RuntimeError: parser exploded"


def test_connections_are_reused_across_fetches_and_redirect_hops(raw_server, fetcher):
    accepted = []

    def keep_alive(conn: socket.socket, stop: threading.Event) -> None:
        accepted.append(conn)
        pending = b""
        while not stop.is_set():
            data = conn.recv(4096)
            if not data:
                return
            pending += data
            while b"\r\n\r\n" in pending:
                request, pending = pending.split(b"\r\n\r\n", 1)
                if request.split()[1] == b"/old":
                    conn.sendall(b"HTTP/1.1 301 Moved\r\nLocation: /new\r\nContent-Length: 5\r\n\r\nmoved")
                else:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")

    url = raw_server(keep_alive, read_request=False)
    results = [fetcher.fetch(url + "old") for _ in range(3)]
    assert [r.body for r in results] == [b"hello"] * 3
    assert len(accepted) == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork, as Celery's prefork pool does")
def test_total_timeout_still_holds_in_a_forked_worker(raw_server, fetcher):
    def handler(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        _drip(conn, stop, b"X-Slow: y\r\n")

    url = raw_server(handler)
    fetcher.fetch(url)  # Starts the watchdog thread in this, the parent, process.
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # The child: report the outcome through the pipe, never return into pytest.
        try:
            result = fetcher.fetch(url)
            os.write(write_end, f"{result.error_kind} {result.elapsed_ms}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        kind, elapsed_ms = pipe.read().split()
    os.waitpid(pid, 0)
    assert kind == ErrorKind.TIMEOUT
    assert int(elapsed_ms) < 2000
