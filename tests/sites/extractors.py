"""Extractors for testing the page readers' hook: plain functions over the parsed page, no Django."""

from __future__ import annotations


def title_and_size(root, *, url: str, body: bytes) -> bytes:
    """The page's title, its URL and its body size: enough to see each page got its own reading."""
    title = next(root.iter("title"), None)
    return f"{(title.text if title is not None else '') or ''}|{url}|{len(body)}".encode()


def nothing(root, *, url: str, body: bytes) -> None:
    return None


def broken(root, *, url: str, body: bytes) -> bytes:
    if url.endswith("/a"):
        raise RuntimeError("this extractor cannot read page a")
    return b"read"


def wanted(site) -> bool:
    """Run this module's extractors only for sites whose name does not say otherwise."""
    return site.name != "no extracts"
