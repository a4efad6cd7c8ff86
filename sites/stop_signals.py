"""Stop signals for commands: SIGTERM (what `timeout`, systemd and container runtimes send) and SIGHUP (a closed
terminal) delivered as Ctrl-C, so that a command cancels its work and says so, whichever stopped it."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = tuple(sig for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if sig is not None)


class Stopped(KeyboardInterrupt):
    """A stop signal, delivered as Ctrl-C's KeyboardInterrupt so that every path handles both alike."""


@contextmanager
def signals_interrupt() -> Iterator[None]:
    def interrupt(signum, frame):
        raise Stopped(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, interrupt) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stop_signals_ignore() -> None:
    """Ignore further stop signals while the work is cancelled and what was found is written."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


def stopped_by(exc: KeyboardInterrupt) -> str:
    """'Stopped by SIGTERM' or 'Interrupted' (Ctrl-C)."""
    return f"Stopped by {exc}" if isinstance(exc, Stopped) else "Interrupted"
