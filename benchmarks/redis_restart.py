"""Why a Celery worker exited on a Redis restart (issue 12): a deterministic reproduction, and the fix.

    .venv/bin/python benchmarks/redis_restart.py            # every variant below, about 30 s each

Each variant starts webaudit's worker (its app and settings, `celery_worker_command`) on a redis-server of
its own (tests/private_services.py), sends it one task that holds its process for 20 s (with
`task_acks_late`, as every webaudit task, its message stays unacknowledged while it runs), stops Redis 1 s
into the task, starts it again 10 s later, and reports whether the worker lived and what it logged.

What makes the worker exit (docs/operations.md, "Why the worker exited on a Redis restart"): the consumer's
connection has more than the task channel (the remote-control channel, gossip's event channel) and the task
channel has a BRPOP pending (a process is free) besides the unacknowledged message of the running task. On
the connection loss Celery closes the connection; kombu's first close of the task channel stops at its
pending BRPOP, the close of another channel fails on the dead server and ends the transport's closing of its
channels, the transport is detached (`client = None`), and Celery's final `connection.close()` closes the
task channel again: restoring its unacknowledged message needs a new Redis pool, whose parameters come from
the detached transport: AttributeError, "Unrecoverable error".

Nothing here widens a window: the order of those closes is fixed, so the variants crash or live every time.
`REPRO_REMOTE_CONTROL=1` in the worker's environment turns Celery's remote control back on (webaudit's
settings turn it off) and `REPRO_CELERY_CONSUMER=1` puts back Celery's consumer with gossip and mingle
(webaudit's consumer leaves them out), so the variants can show the configuration before and after the fix.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webaudit.celery import app  # noqa: E402

if os.environ.get("REPRO_REMOTE_CONTROL"):
    app.conf.worker_enable_remote_control = True
if os.environ.get("REPRO_CELERY_CONSUMER"):
    # Celery's own consumer, with gossip and mingle (webaudit's leaves them out: webaudit/worker.py).
    app.conf.worker_consumer = "celery.worker.consumer:Consumer"

HOLD_SECONDS = 20
OUTAGE_SECONDS = 10

WITHOUT_GOSSIP = ("--without-gossip", "--without-mingle")

# (name, worker concurrency, gossip and mingle on, remote control on, --without-gossip --without-mingle given)
VARIANTS = [
    ("as reported: 2 processes, remote control, gossip", 2, True, True, False),
    ("2 processes, remote control, without gossip", 2, False, True, True),
    ("2 processes, gossip, no remote control", 2, True, False, False),
    ("1 process (no BRPOP pending while it works), remote control, gossip", 1, True, True, False),
    ("fixed by flags: 2 processes, no remote control, --without-gossip", 2, False, False, True),
    (
        "webaudit now: 2 processes, started as Celery's docs do (no flags), the app's consumer",
        2,
        False,
        False,
        False,
    ),
]


@app.task(name="benchmarks.redis_restart.hold")
def hold(seconds: float, marker: str) -> None:
    Path(marker + ".started").touch()
    time.sleep(seconds)
    Path(marker + ".done").touch()


def wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def run_variant(folder: Path, concurrency: int, gossip: bool, remote_control: bool, flags: bool) -> dict:
    from sites.management.commands.serve import celery_worker_command
    from tests.private_services import PrivateRedis

    folder.mkdir(parents=True)
    redis = PrivateRedis(folder)
    redis.start()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("WEBAUDIT_", "REPRO_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="webaudit.settings",
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        CELERY_BROKER_URL=redis.url,
        WEBAUDIT_VAR_DIR=str(folder),
        WEBAUDIT_PAGE_READERS="1",
    )
    if remote_control:
        env["REPRO_REMOTE_CONTROL"] = "1"
    if gossip:
        env["REPRO_CELERY_CONSUMER"] = "1"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True, timeout=300
    )
    log = folder / "worker.log"
    command = celery_worker_command(
        concurrency=concurrency, extra=("--schedule", str(folder / "beat-schedule"))
    )
    # This module's app (webaudit's, with the hold task and the REPRO_ settings applied before the worker reads
    # its consumer class: an --include is imported too late for that).
    command[command.index("-A") + 1] = "benchmarks.redis_restart"
    command = [option for option in command if option not in WITHOUT_GOSSIP]
    if flags:
        command += WITHOUT_GOSSIP
    worker = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
    )
    marker = str(folder / "hold")
    try:
        if not wait_for(lambda: "ready." in log.read_text(errors="replace"), 60):
            raise RuntimeError(f"the worker did not start: {log}")
        with app.connection_for_write(redis.url) as broker:
            hold.apply_async((HOLD_SECONDS, marker), connection=broker, queue="default")
        if not wait_for(lambda: Path(marker + ".started").exists(), 30):
            raise RuntimeError(f"the task did not start: {log}")
        time.sleep(1)
        redis.stop()
        time.sleep(OUTAGE_SECONDS)
        redis.start()
        wait_for(lambda: worker.poll() is not None or Path(marker + ".done").exists(), HOLD_SECONDS + 10)
        time.sleep(3)  # the task's acknowledgement, after its end, is the second place it can fail
        said = log.read_text(errors="replace")
        return {
            "worker lived": worker.poll() is None,
            "task ended": Path(marker + ".done").exists(),
            "Restoring": said.count("Restoring"),
            "Unrecoverable": "Unrecoverable error" in said,
            "hostname AttributeError": "attribute 'hostname'" in said,
        }
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
        redis.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", type=int, action="append", help="run only variant N (1-based; repeatable)")
    parser.add_argument("--keep", action="store_true", help="keep the folder with the worker logs")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="webaudit-redis-restart-"))
    os.environ.setdefault("WEBAUDIT_VAR_DIR", str(root))  # this process's settings: nothing under var/
    for number, (name, concurrency, gossip, remote_control, flags) in enumerate(VARIANTS, 1):
        if args.only and number not in args.only:
            continue
        started = time.monotonic()
        outcome = run_variant(root / f"variant{number}", concurrency, gossip, remote_control, flags)
        print(f"{number}. {name}: {outcome} ({time.monotonic() - started:.0f} s)", flush=True)
    print(f"logs in {root}" if args.keep else "", end="")
    if not args.keep:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
