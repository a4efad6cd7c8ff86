"""The labelled soft-404 corpus: pages with where each came from, written as files plus a JSON-lines manifest."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

SOFT404, NORMAL = 1, 0
PARKED_SOURCE = (
    "parked-synthetic"  # the soft-404 pages of parked domains (checks.soft404.corpus.parked_pages)
)
MANIFEST_NAME = "manifest.jsonl"
# The test bed's documentation trees and pages are test data; nothing under them may enter the corpus.
TEST_DATA_ROOTS = (
    "/usr/share/doc/python3.11",
    "/usr/share/doc/postgresql-doc-15",
    "/usr/share/doc/python-django-doc",
    "/work/shared/testbed",
)
_LANG_RE = re.compile(rb"<html[^>]*?\blang=[\"']?([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?)", re.I)


@dataclass(frozen=True)
class CorpusPage:
    source: str  # e.g. "django-admin-404", "debian-handbook"
    name: str  # unique within the source
    label: int  # SOFT404 or NORMAL
    lang: str
    url: str  # where the page is or would be served; features read its host
    package: str  # package and version the page comes from
    license: str
    origin: str  # file or template inside the package
    html: bytes = field(repr=False)
    synthetic: bool = False  # written for this corpus; left out of every evaluation

    @property
    def id(self) -> str:
        return f"{self.source}/{self.name}"


@dataclass(frozen=True)
class ManifestEntry:
    id: str
    source: str
    label: int
    lang: str
    url: str
    package: str
    license: str
    origin: str
    synthetic: bool
    file: str
    sha256: str
    bytes: int


def html_lang(html: bytes, default: str = "und") -> str:
    """Return the lang attribute of <html>, lower-cased, or `default`."""
    match = _LANG_RE.search(html[:4096])
    return match[1].decode().replace("_", "-").lower() if match else default


def is_test_data(path: str | Path) -> bool:
    resolved = str(Path(path).resolve())
    return any(resolved == root or resolved.startswith(root + "/") for root in TEST_DATA_ROOTS)


def stable_sample(pages: list[CorpusPage], limit: int | None) -> list[CorpusPage]:
    """Keep `limit` pages chosen by a hash of their id: the same inputs give the same sample on any machine."""
    ordered = sorted(pages, key=lambda p: hashlib.sha256(p.id.encode()).hexdigest())
    return sorted(ordered if limit is None else ordered[:limit], key=lambda p: p.id)


def deduplicate(pages: list[CorpusPage]) -> tuple[list[CorpusPage], int]:
    """Drop byte-identical pages (untranslated copies, symlinked trees), keeping the first id; count the drops."""
    seen: set[str] = set()
    kept = []
    for page in sorted(pages, key=lambda p: p.id):
        digest = hashlib.sha256(page.html).hexdigest()
        if digest not in seen:
            seen.add(digest)
            kept.append(page)
    return kept, len(pages) - len(kept)


def write_corpus(pages: list[CorpusPage], directory: Path) -> Path:
    """Replace `directory` with the pages and a manifest sorted by id; return the manifest path."""
    if directory.exists():
        shutil.rmtree(directory)
    (directory / "pages").mkdir(parents=True)
    lines = []
    for index, page in enumerate(sorted(pages, key=lambda p: p.id)):
        relative = f"pages/{page.source}/{index:05d}.html"
        (directory / relative).parent.mkdir(exist_ok=True)
        (directory / relative).write_bytes(page.html)
        record = {k: v for k, v in asdict(page).items() if k not in ("html", "name")}
        record.update(
            id=page.id, file=relative, sha256=hashlib.sha256(page.html).hexdigest(), bytes=len(page.html)
        )
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True))
    manifest = directory / MANIFEST_NAME
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest


def read_manifest(directory: Path) -> list[ManifestEntry]:
    with open(directory / MANIFEST_NAME, encoding="utf-8") as handle:
        return [ManifestEntry(**json.loads(line)) for line in handle if line.strip()]


def manifest_sha256(directory: Path) -> str:
    return hashlib.sha256((directory / MANIFEST_NAME).read_bytes()).hexdigest()
