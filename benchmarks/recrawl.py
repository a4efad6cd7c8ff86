"""What a recrawl of an unchanged site costs against its first crawl: bytes received, seconds, 304 answers.

    .venv/bin/python benchmarks/recrawl.py --sites python,postgres --repeat 3 --concurrency 8

Each repetition runs in its own process on a fresh SQLite database: a first crawl of the test-bed site, then a
second one, which asks every page conditionally with the ETag / Last-Modified nginx sent the first time
(docs/crawling.md, "Recrawls"). Seconds run from the start of a crawl to its end; bytes are body bytes
received for pages (robots.txt and soft-404 probes excluded, which only makes the first crawl look
cheaper). Figures: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.crawl import (  # noqa: E402
    MAX_PAGES,
    ROOT,
    RUN_TIMEOUT_SECONDS,
    SITES,
    _crawl_in_process,
    _webaudit_setup,
    child_env,
    testbed_problem,
)

FIELDS = ("pages", "seconds", "cpu_seconds", "bytes_received", "not_modified", "requests")


def measure(site_name: str, concurrency: int) -> dict:
    """Crawl the site twice in this process; the two crawls' figures."""
    _webaudit_setup()
    from django.contrib.auth import get_user_model

    from sites.models import Crawl
    from sites.services.crawls import crawl_start
    from sites.services.sites import site_create

    site = site_create(owner=get_user_model().objects.create(username="bench"), url=SITES[site_name])
    options = {"concurrency": concurrency, "delay": 0, "max_pages": MAX_PAGES, "check_external": False}
    figures = {}
    for label in ("first", "second"):
        crawl, seconds, cpu = _crawl_in_process(lambda: crawl_start(site=site, enqueue=False, **options))
        if crawl.status != Crawl.Status.FINISHED:
            raise RuntimeError(f"crawl {crawl.pk} ended {crawl.status}: {crawl.error}")
        figures[label] = {
            "pages": crawl.pages_done,
            "seconds": seconds,
            # This process and its page readers: steadier than seconds on a shared machine.
            "cpu_seconds": cpu,
            "bytes_received": crawl.bytes_received,
            "not_modified": crawl.not_modified,
            "requests": crawl.requests_made,
        }
    return figures


def run_child(site_name: str, args: argparse.Namespace) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", site_name]
    command += ["--concurrency", str(args.concurrency)]
    with tempfile.TemporaryDirectory(prefix="webaudit-recrawl-") as var_dir:
        env = child_env(var_dir)
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS
        )
    if done.returncode != 0:
        raise RuntimeError(f"recrawl of {site_name} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", default="python,postgres", help=f"comma-separated, of {', '.join(SITES)}")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args.concurrency)))
        return 0
    sites = [name.strip() for name in args.sites.split(",") if name.strip()]
    if unknown := [name for name in sites if name not in SITES]:
        parser.error(f"unknown site(s) {', '.join(unknown)}; choose from {', '.join(SITES)}")
    if args.repeat < 1 or args.concurrency < 1:
        parser.error("--repeat and --concurrency must be at least 1")
    if problem := testbed_problem([SITES[name] for name in sites]):
        print(problem, file=sys.stderr)
        return 2
    print(
        f"{'site':9} {'crawl':7} {'pages':>6} {'seconds':>8} {'bytes':>11} {'304s':>6} "
        f"{'bytes 2nd/1st':>13} {'time 2nd/1st':>12} {'304 share':>9} {'CPU 2nd/1st':>11}  "
        f"load {os.getloadavg()[0]:.1f}"
    )
    for site_name in sites:
        runs = []
        for repetition in range(args.repeat):
            run = run_child(site_name, args)
            runs.append(run)
            first, second = run["first"], run["second"]
            print(
                f"  [{repetition + 1}/{args.repeat}] {site_name}: {first['seconds']:.2f} s -> "
                f"{second['seconds']:.2f} s (ratio {second['seconds'] / first['seconds']:.3f}; CPU "
                f"{first['cpu_seconds']:.2f} -> {second['cpu_seconds']:.2f} s), "
                f"{first['bytes_received']} -> {second['bytes_received']} bytes, "
                f"{second['not_modified']}/{second['pages']} answered 304",
                file=sys.stderr,
                flush=True,
            )
        for label in ("first", "second"):
            median = {key: statistics.median(run[label][key] for run in runs) for key in FIELDS}
            ratios = ""
            if label == "second":
                byte_ratio = statistics.median(
                    run["second"]["bytes_received"] / max(1, run["first"]["bytes_received"]) for run in runs
                )
                time_ratio = statistics.median(
                    run["second"]["seconds"] / run["first"]["seconds"] for run in runs
                )
                share = statistics.median(
                    run["second"]["not_modified"] / run["second"]["pages"] for run in runs
                )
                cpu_ratio = statistics.median(
                    run["second"]["cpu_seconds"] / run["first"]["cpu_seconds"] for run in runs
                )
                ratios = f"{byte_ratio:13.3f} {time_ratio:12.3f} {share:9.3f} {cpu_ratio:11.3f}"
            print(
                f"{site_name:9} {label:7} {median['pages']:6g} {median['seconds']:8.2f} "
                f"{median['bytes_received']:11g} {median['not_modified']:6g} {ratios}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
