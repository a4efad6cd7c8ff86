"""The cost of turning a link into the URL to fetch and its page key, per link, against the canonical form alone.

    .venv/bin/python benchmarks/urls.py [--links 20000] [--repeat 7]

The crawl resolves every link of every page (~300 a documentation page) and keys every distinct one. Before
issue 18 `normalize_url` returned w3lib's canonical form, which was both the request and the key; now `link_url`
returns the URL as linked (w3lib `safe_url_string`) and `page_key` hashes the canonical form. Both sides run on the
same links: distinct links (nothing cached) and the repeats a crawl sees (each distinct URL ~10 times, cached).
Medians over --repeat passes, µs per link, and the ratio new / old.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import string
import sys
import time
from functools import lru_cache
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webaudit.settings")


def old_normalize():
    """normalize_url as of 99e636a: the canonical form, cached per absolute URL, then sha1 of it for the key."""
    from w3lib.url import canonicalize_url

    from sites.crawler.urls import _remove_dot_segments

    @lru_cache(maxsize=100_000)
    def absolute(url: str) -> str | None:
        parts = urlsplit(url)
        netloc = parts.hostname + (f":{parts.port}" if parts.port else "")
        path = _remove_dot_segments(parts.path or "/")
        return canonicalize_url(urlunsplit((parts.scheme.lower(), netloc, path, parts.query, "")))

    @lru_cache(maxsize=100_000)
    def join(base: str, ref: str) -> str:
        return urljoin(base, ref)

    def link(raw: str, base: str) -> tuple[str, str]:
        url = absolute(join(base[: base.rfind("/") + 1], raw).partition("#")[0])
        return url, hashlib.sha1(url.encode()).hexdigest()

    return link, [absolute, join]


def new_normalize():
    from sites.crawler import urls
    from sites.models import page_key

    def link(raw: str, base: str) -> tuple[str, str]:
        url = urls.link_url(raw, base)
        return url, page_key(url)

    return link, [urls._normalize_absolute, urls._join, urls.canonical_url, page_key]


def sample_links(count: int, rng: random.Random) -> list[tuple[str, str]]:
    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 10)))

    links = []
    for _ in range(count):
        base = f"http://docs.example.com/{word()}/{word()}/page.html"
        kind = rng.random()
        if kind < 0.5:
            raw = f"../{word()}/{word()}.html#{word()}"
        elif kind < 0.8:
            raw = f"/{word()}/{word()}/"
        else:
            raw = f"/doc?p={word()}/{word()}&lang=en&q={word()}+{word()}"
        links.append((raw, base))
    return links


def timed(link, caches, links, passes: int) -> float:
    """µs per link of `passes` runs over `links` from empty caches (so repeats inside a run hit them)."""
    for cache in caches:
        cache.cache_clear()
    started = time.perf_counter()
    for _ in range(passes):
        for raw, base in links:
            link(raw, base)
    return (time.perf_counter() - started) / (passes * len(links)) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    import django

    django.setup()
    links = sample_links(args.links, random.Random(1))
    sides = {"old (canonical as request)": old_normalize(), "new (as linked + key)": new_normalize()}
    print(f"{args.links} links, {args.repeat} runs, load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    medians = {}
    for label, passes in (("distinct links, uncached", 1), ("each link 10 times (a crawl's repeats)", 10)):
        runs: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.repeat):  # the sides alternate, so a change of load falls on both
            for name, (link, caches) in sides.items():
                runs[name].append(timed(link, caches, links, passes))
        for name in sides:
            medians[(label, name)] = statistics.median(runs[name])
            print(f"{label:40} {name:28} {medians[(label, name)]:7.2f} µs/link")
        old, new = (medians[(label, name)] for name in sides)
        print(f"{label:40} {'ratio new / old':28} {new / old:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
