"""The command-line conventions every command shares: `--json FILE|-` checked before work and written whole,
exit status 2 on bad input (1 is for work that ran and failed)."""

from __future__ import annotations

import contextlib
import os
import tempfile

from django.core.management.base import CommandError

BAD_INPUT = 2


def bad_input(message: str) -> CommandError:
    return CommandError(message, returncode=BAD_INPUT)


def json_destination_check(path: str) -> None:
    """Refuse a --json path that cannot be written, before any work is done."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise bad_input(f"cannot write {path}: it is a directory")
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK):
        raise bad_input(f"cannot write {path}: {folder} is not a writable folder")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise bad_input(f"cannot write {path}: permission denied")


def json_write_atomically(path: str, text: str) -> None:
    """Write the whole report or nothing: a reader never sees half a file, and a failure keeps the old one."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".part")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
