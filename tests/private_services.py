"""Redis and PostgreSQL servers of a test's own, on free ports in a folder of their own, which the test may stop
and start again at will: restarting the shared servers would break every other test running beside it.

Outside CI a missing binary (redis-server, PostgreSQL's initdb and pg_ctl) skips the test; in CI it fails it.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


class PrivateRedis:
    """A redis-server without persistence (as in the reported outage: a restart loses every queued message)."""

    def __init__(self, folder: Path) -> None:
        self.binary = shutil.which("redis-server")
        self.folder, self.port, self.process = folder, free_port(), None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            + ["--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait(lambda: _accepts(self.port), 10, "redis-server to accept connections")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)


class PrivatePostgres:
    """A throwaway PostgreSQL cluster (initdb) with one database, `webaudit`."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        bindir = Path(found[-1]).parent if found else None
        if bindir is None and shutil.which("initdb"):
            bindir = Path(shutil.which("initdb")).parent
        self.bindir = bindir
        # The server refuses to run as root: as root, it runs as the postgres user, in a folder it owns.
        self.user = "postgres" if os.geteuid() == 0 else None
        self.folder = Path(tempfile.mkdtemp(prefix="webaudit-test-pg-"))
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/webaudit"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        subprocess.run(prefix + list(command), check=True, capture_output=True, timeout=120)

    def create(self) -> None:
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.folder / "data"), "-U", "postgres", "-A", "trust"
        )
        self.start()
        self._run(
            str(self.bindir / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "webaudit",
        )

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off"
        data, log = str(self.folder / "data"), str(self.folder / "log")
        self._run(str(self.bindir / "pg_ctl"), "-D", data, "-l", log, "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """`fast` ends every session ("terminating connection due to administrator command"), as a restart does."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.folder / "data"), "-m", mode, "-w", "stop")

    def destroy(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass  # not running
        shutil.rmtree(self.folder, ignore_errors=True)
