"""Crawl-finished hooks for testing WEBAUDIT_CRAWL_FINISHED_HOOKS: one records, one fails."""

from __future__ import annotations

SEEN: list[int] = []


def record(*, crawl) -> None:
    SEEN.append(crawl.pk)


def explode(*, crawl) -> None:
    raise RuntimeError("this hook always fails")
