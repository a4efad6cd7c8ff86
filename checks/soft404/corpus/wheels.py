"""Fetch pinned PyPI distributions with pip (no install) and read files out of them, for the corpus sources."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

# Pinned so the phrase list and the corpus are reproducible; bump deliberately and rebuild both.
WAGTAIL = ("wagtail", "8.0.1")
SPHINX_NOTFOUND_PAGE = ("sphinx-notfound-page", "1.1.0")
MKDOCS_MATERIAL = ("mkdocs-material", "9.8.1")
NEWSPAPER4K_SDIST = ("newspaper4k", "0.9.6")


def fetch(name: str, version: str, cache: Path, *, sdist: bool = False) -> Path:
    """Return the path of `name==version` downloaded into `cache`, downloading it once with pip."""
    cache.mkdir(parents=True, exist_ok=True)
    stem = name.replace("-", "_").lower()
    for path in sorted(cache.iterdir()):
        lowered = path.name.lower().replace("-", "_")
        is_sdist = path.name.endswith(".tar.gz")
        if lowered.startswith(f"{stem}_{version}") and is_sdist == sdist:
            return path
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(cache)]
    command += ["--no-binary", ":all:"] if sdist else ["--only-binary", ":all:"]
    subprocess.run([*command, f"{name}=={version}"], check=True)
    return fetch(name, version, cache, sdist=sdist)


def read_member(archive: Path, member: str) -> bytes:
    """Return one file of a wheel (zip) or an sdist (tar.gz)."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf:
            return zf.read(member)
    with tarfile.open(archive) as tf:
        extracted = tf.extractfile(member)
        if extracted is None:
            raise KeyError(member)
        return extracted.read()


def members(archive: Path) -> list[str]:
    """List the file names inside a wheel or an sdist, sorted."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf:
            return sorted(zf.namelist())
    with tarfile.open(archive) as tf:
        return sorted(m.name for m in tf.getmembers() if m.isfile())
