"""The page readers' extractor hook: per-page data later analyses need, read from the tree already parsed.

An analysis registers an extractor by dotted path in `WEBAUDIT_PAGE_EXTRACTORS` (docs/analysis-jobs.md); the
engine never imports it by name. An extractor is `extract(root, *, url, body) -> bytes | None`, run in the
reader processes (no Django there), and its module may define `wanted(site) -> bool` to run only for some
sites' crawls.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

log = logging.getLogger(__name__)

Extractor = Callable[..., bytes | None]


@cache
def _attribute(path: str) -> Any:
    """`package.module:name` resolved to the object it names (once per process)."""
    module_name, _, name = path.partition(":")
    if not module_name or not name:
        raise ValueError(f"{path!r} is not of the form 'package.module:function'")
    return getattr(importlib.import_module(module_name), name)


def extractors_for(site: Any, configured: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The (name, path) pairs of the configured extractors that a crawl of `site` runs."""
    chosen = []
    for name, path in configured.items():
        wanted = getattr(importlib.import_module(path.partition(":")[0]), "wanted", None)
        if wanted is None or wanted(site):
            chosen.append((name, path))
    return tuple(chosen)


def extractors_check(configured: Mapping[str, str]) -> None:
    """Import every configured extractor now, so that a wrong path stops the app instead of every crawl."""
    for name, path in configured.items():
        if len(name.encode()) > 16:
            raise ValueError(f"extractor name {name!r} is longer than 16 bytes")
        if not callable(_attribute(path)):
            raise ValueError(f"extractor {name!r}: {path!r} is not a function")


def extracts_read(
    extractors: Iterable[tuple[str, str]], root: Any, *, url: str, body: bytes
) -> dict[str, bytes]:
    """Run each extractor over a parsed page; one that fails loses only its own result for this page."""
    extracts: dict[str, bytes] = {}
    for name, path in extractors:
        try:
            data = _attribute(path)(root, url=url, body=body)
        except Exception:  # an analysis' bug or an odd page must never lose the page itself
            log.exception("extractor %s failed on %s", name, url)
            continue
        if data is not None:
            extracts[name] = bytes(data)
    return extracts
