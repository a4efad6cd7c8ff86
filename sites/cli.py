"""What every command shares: exit status 2 and one line for bad input, bounded numeric options, and output
files checked before any work is done."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
from typing import NoReturn

from django.core.management.base import BaseCommand, CommandError, CommandParser

from sites.limits import CRAWL_RANGES, out_of_range

BAD_INPUT = 2  # exit status for input a command cannot work with; 1 is for work that ran and failed
# The status a shell gives a program killed by SIGPIPE (`yes | head -1` under pipefail): a reader that stopped early.
READER_GONE = 128 + signal.SIGPIPE


def bad_input(message: str) -> CommandError:
    return CommandError(message, returncode=BAD_INPUT)


def bounded(kind: type, low: float, high: float, name: str = "value"):
    """An argparse `type` reading an int or a finite float within [low, high]; else a one-line error."""

    def parse(raw: str):
        try:
            value = kind(raw)
        except (TypeError, ValueError):
            noun = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{raw!r} is not {noun}") from None
        problem = out_of_range("", value, low, high)  # argparse says "argument NAME: " before it
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def crawl_option(name: str):
    """The argparse type of a crawl setting's option (--max-pages, --delay …), bounded by sites.limits."""
    low, high = CRAWL_RANGES[name]
    kind = float if isinstance(low, float) else int
    return bounded(kind, low, high, "--" + name.replace("_", "-"))


def json_destination_check(path: str | None) -> None:
    """Refuse an output path that cannot be written, before any work is done ('-' and None pass)."""
    if path in (None, "-"):
        return
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


class OneLineParser(CommandParser):
    """argparse's errors as one line and exit status 2 (not the usage block), through call_command too."""

    def error(self, message: str) -> NoReturn:
        if self.called_from_command_line:
            sys.stderr.write(f"{self.prog}: error: {message}\n")
            sys.exit(BAD_INPUT)
        raise bad_input(f"Error: {message}")


def database_ready_check() -> None:
    """Refuse to start on a database that cannot be reached or is not migrated, with one line that says what to
    do: the first query would fail anyway, with a traceback naming a missing table ("no such table: auth_user")."""
    from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
        unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as exc:
        raise CommandError(f"the database cannot be reached: {str(exc).strip()}", returncode=1) from None
    if unapplied:
        raise CommandError(
            f"the database is not set up ({len(unapplied)} migrations not applied): "
            "run `manage.py migrate` first (scripts/run does)",
            returncode=1,
        )


class Command(BaseCommand):
    """Base of webaudit's commands: bad input, including argparse's, exits 2 with one line; a database that is
    not ready stops the command before it starts (exit 1, one line)."""

    requires_database = True

    def execute(self, *args, **options):
        if self.requires_database:
            database_ready_check()
        return super().execute(*args, **options)

    def run_from_argv(self, argv: list[str]) -> None:
        """A reader that stops early (`findpage … --json - | head -1`) closes the pipe under the command: it ends
        quietly with READER_GONE, as a C tool killed by SIGPIPE does, not with a traceback. The work is done
        by then (reports are written after it); only what the reader did not want is lost."""
        try:
            super().run_from_argv(argv)
            sys.stdout.flush()  # a short report sits in the buffer: its write fails here, not at exit
        except BrokenPipeError:
            # Python flushes stdout again at exit; pointed at /dev/null that flush cannot fail and print.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(READER_GONE)

    def create_parser(self, prog_name: str, subcommand: str, **kwargs) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.__class__ = OneLineParser  # Django builds a CommandParser; this changes only its error()
        return parser
