"""Where the recording thread's time goes as a crawl grows: thread CPU and wall ms a page of `frontier_record`
and its parts, for each 5,000-page slice of one crawl of a generated site (docs/benchmarks.md, "Generated
sites"). A diagnosis, not a comparison: it wraps the frontier's functions with timers.

    .venv/bin/python benchmarks/recording_parts.py 20000 [--port 8191] [--database-url postgres://...]

Runs in-process on a fresh SQLite database in a temporary folder (kept, its path printed) unless
--database-url is given; the site is served by its own nginx on --port (not 8190, which crawl.py --generated
uses, so both can run side by side).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLICE = 5000
PARTS = (
    "frontier_record",
    "_admit_and_link",
    "_existing_ids",
    "_insert_links",
    "_update_done",
    "_count_progress",
    "frontier_claim",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", type=int, help="size of the generated site")
    parser.add_argument("--port", type=int, default=8191)
    parser.add_argument("--database-url", help="a PostgreSQL database to crawl into (default: SQLite)")
    args = parser.parse_args(argv)
    if args.pages < 1:
        parser.error("pages must be at least 1")
    var_dir = tempfile.mkdtemp(prefix="webaudit-recording-parts-")
    os.environ.update(
        WEBAUDIT_VAR_DIR=var_dir,
        DJANGO_SETTINGS_MODULE="webaudit.settings",
        WEBAUDIT_ALLOWED_NETWORKS="127.0.0.0/8",
        WEBAUDIT_LOG_LEVEL="WARNING",
        WEBAUDIT_CRAWL_LANES="1",
        WEBAUDIT_MWIM_READER_EXTRACTS="0",
    )
    os.environ.pop("DATABASE_URL", None)
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    sys.path.insert(0, str(ROOT))
    from benchmarks import crawl as bench
    from benchmarks.generated import generate, served

    bench._webaudit_setup()
    import sites.services.crawls as crawls
    from sites.services import frontier

    slices: dict[int, dict[str, list[float]]] = {}
    recorded, lock = [0], threading.Lock()

    def timed(name: str):
        inner = getattr(frontier, name)

        def wrapper(*positional, **named):
            cpu, wall = time.thread_time(), time.perf_counter()
            result = inner(*positional, **named)
            with lock:
                spent = slices.setdefault(recorded[0] // SLICE, {}).setdefault(name, [0.0, 0.0])
                spent[0] += time.thread_time() - cpu
                spent[1] += time.perf_counter() - wall
                if name == "frontier_record":
                    recorded[0] += result.pages
            return result

        return wrapper

    for name in PARTS:
        setattr(frontier, name, timed(name))
        if hasattr(crawls, name):  # imported by name there
            setattr(crawls, name, getattr(frontier, name))
    with served(generate(args.pages), port=args.port) as url:
        run = bench.measure_webaudit(site_name="python", concurrency=8, via_worker=False, url=url)
    print(f"{run.pages} pages in {run.seconds:.1f} s, {run.cpu_seconds:.1f} CPU s; database in {var_dir}")
    print("thread CPU / wall ms a page, per slice of " + f"{SLICE:,} pages")
    print(f"{'pages':>8} " + " ".join(f"{name.strip('_'):>19}" for name in PARTS))
    for index in sorted(slices):
        pages = min(SLICE, recorded[0] - index * SLICE)
        if pages <= 0:
            continue  # the calls after the last page was recorded
        cells = [slices[index].get(name, [0.0, 0.0]) for name in PARTS]
        print(
            f"{index * SLICE:8} "
            + " ".join(f"{1000 * cpu / pages:9.3f}/{1000 * wall / pages:<9.3f}" for cpu, wall in cells)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
