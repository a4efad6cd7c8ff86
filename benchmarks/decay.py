"""Decay benchmarks (issue 7): exact decay of a crawl, a generated million-page graph, walks and the live mode.

    .venv/bin/python benchmarks/decay.py                 # everything; the test bed must be running
    .venv/bin/python benchmarks/decay.py --parts graph   # only the generated graph: solve and fix-first
    .venv/bin/python benchmarks/decay.py --parts agree   # walks vs exact, python docs with externals checked
    .venv/bin/python benchmarks/decay.py --parts graph --json out.json  # {"graph": {"pages", "links",
                                                         #   "solve_s", "fix_first_s", "peak_mb", ...}}

Each part runs in a fresh child process (its peak memory is that process's), webaudit's on a fresh SQLite database
in a temporary folder. Prints one JSON line a part and a summary table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.crawl import child_env  # noqa: E402

PYTHON_DOCS = "http://127.0.0.1:8101/"
# Pages scored one by one in the live mode (no crawl); the paper took ~7 minutes a page.
LIVE_URLS = [
    "library/os.html",
    "tutorial/index.html",
    "whatsnew/3.11.html",
    "reference/datamodel.html",
    "faq/programming.html",
]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def part_graph(args: argparse.Namespace) -> dict:
    """A random graph of `pages` nodes and `links` links a page (5% dead, 2% open): the solve to 1e-6, then the
    whole fix-first ranking (one adjoint solve, Sherman–Morrison for every dead target)."""
    import numpy as np

    from checks.decay.solver import DecayGraph, Kind, decay_solve, fix_first

    rng = np.random.default_rng(1)
    n, k = args.pages, args.links
    started = time.monotonic()
    draw = rng.random(n)
    kinds = np.where(draw < 0.05, Kind.DEAD, np.where(draw < 0.07, Kind.OPEN, Kind.LIVE)).astype(np.int8)
    live = np.flatnonzero(kinds == Kind.LIVE).astype(np.int32)
    sources = np.repeat(live, k)
    targets = rng.integers(0, n, len(sources), dtype=np.int32)
    graph = DecayGraph(kinds, sources, targets)
    built = time.monotonic()
    solution = decay_solve(graph, sigma=0.1, tol=1e-6)
    solved = time.monotonic()
    ranking = fix_first(graph, solution, tol=1e-6)
    ranked = time.monotonic()
    return {
        "part": "graph",
        "pages": n,
        "links": int(len(sources)),
        "generate_s": round(built - started, 2),
        "solve_s": round(solved - built, 2),
        "fix_first_s": round(ranked - solved, 2),
        "iterations": solution.iterations,
        "mean_decay": round(solution.mean_live, 4),
        "fix_targets": len(ranking),
        "peak_mb": round(_peak_mb()),
    }


def _django() -> None:
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _crawl(url: str, max_pages: int, *, check_external: bool = False):
    from django.contrib.auth import get_user_model

    from sites.services.crawls import crawl_run, crawl_start
    from sites.services.sites import site_create

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    site = site_create(owner=owner, url=url, check_external=check_external)
    crawl = crawl_run(
        crawl=crawl_start(site=site, requested_by=owner, enqueue=False, max_pages=max_pages, concurrency=8)
    )
    return crawl


def part_exact(args: argparse.Namespace) -> dict:
    """Exact decay (graph read from the database, solve, fix-first, paths to death) of the whole python docs."""
    _django()
    from checks.decay.services import decay_exact

    crawl = _crawl(PYTHON_DOCS, 100_000)
    times, result = [], None
    for _ in range(args.repeat):
        started = time.monotonic()
        result = decay_exact(crawl=crawl, sigmas=[0.1])
        times.append(time.monotonic() - started)
    return {
        "part": "exact",
        "pages": len(result.pages),
        "links": crawl.links_found,
        "seconds_median": round(statistics.median(times), 3),
        "seconds": [round(t, 3) for t in times],
        "mean_decay": round(result.mean_decay[0.1], 4),
        "fix_first": len(result.fix_first),
        "residual": result.residual,
    }


def part_walk(args: argparse.Namespace) -> dict:
    """The walk method (300 walks a page, fetching beyond the crawl) over a 500-page crawl of the python docs."""
    _django()
    from checks.decay.services import decay_exact, decay_walk

    crawl = _crawl(PYTHON_DOCS, 500)
    started = time.monotonic()
    walked = decay_walk(crawl=crawl, sigmas=[0.1], walks=args.walks, live=True, seed=1)
    seconds = time.monotonic() - started
    exact = {page.url: page.decay[0.1] for page in decay_exact(crawl=crawl, sigmas=[0.1]).pages}
    gaps = [abs(page.decay[0.1] - exact[page.url]) for page in walked.pages]
    return {
        "part": "walk",
        "pages": len(walked.pages),
        "walks": args.walks,
        "fetches": walked.fetches,
        "fetches_per_page": round(walked.fetches / len(walked.pages), 3),
        "seconds": round(seconds, 2),
        "median_gap_to_exact": round(statistics.median(gaps), 4),
        "bound": round(walked.pages[0].error_bound, 4),
    }


def part_live(args: argparse.Namespace) -> dict:
    """One URL at a time, live, no crawl: seconds and HTTP requests a page."""
    _django()
    from checks.decay.services import decay_url

    rows = []
    for path in LIVE_URLS:
        started = time.monotonic()
        result = decay_url(url=PYTHON_DOCS + path, sigmas=[0.1], walks=args.walks, seed=1)
        rows.append((time.monotonic() - started, result.fetches, result.pages[0].decay[0.1]))
    return {
        "part": "live",
        "pages": len(rows),
        "walks": args.walks,
        "seconds_median": round(statistics.median(r[0] for r in rows), 2),
        "fetches_median": statistics.median(r[1] for r in rows),
        "per_page": [{"seconds": round(s, 2), "fetches": f, "decay": round(d, 3)} for s, f, d in rows],
    }


def part_agree(args: argparse.Namespace) -> dict:
    """Issue 23's case: the python docs crawled with external links checked (the crawl's default limits: other
    sites' pages checked up to max_pages, here every one fails at DNS or times out), decayed at external depth 1 by
    both methods: pages whose walk estimate is outside its 95% bound of the exact decay, and fetches a page."""
    _django()
    from checks.decay.services import decay_exact, decay_walk

    started = time.monotonic()
    crawl = _crawl(PYTHON_DOCS, 1000, check_external=True)
    crawled = time.monotonic() - started
    exact = decay_exact(crawl=crawl, sigmas=[0.1], external_depth=1)
    walked = decay_walk(crawl=crawl, sigmas=[0.1], walks=args.walks, live=True, seed=1, external_depth=1)
    by_url = {page.url: page.decay[0.1] for page in exact.pages}
    outside = [p for p in walked.pages if abs(p.decay[0.1] - by_url[p.url]) > p.error_bound]
    return {
        "part": "agree",
        "crawl_seconds": round(crawled, 1),
        "pages": len(walked.pages),
        "walks": args.walks,
        "outside_bound": len(outside),
        "within_share": round(1 - len(outside) / len(walked.pages), 4),
        "outside_higher": sum(1 for p in outside if p.decay[0.1] > by_url[p.url]),
        "walk_fetches": walked.fetches,
        "walk_fetches_per_page": round(walked.fetches / len(walked.pages), 3),
        "exact_fetches": exact.fetches,
        "external": exact.external,
        "mean_decay_exact": round(exact.mean_decay[0.1], 4),
        "mean_decay_walk": round(walked.mean_decay[0.1], 4),
        "paper_means_exact": exact.paper_means,
    }


PARTS = {"graph": part_graph, "exact": part_exact, "walk": part_walk, "live": part_live, "agree": part_agree}


def run_child(part: str, args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="webaudit-decay-bench-") as var_dir:
        env = child_env(var_dir, WEBAUDIT_CRAWL_DELAY="0")
        command = [
            sys.executable,
            __file__,
            "--child",
            part,
            "--pages",
            str(args.pages),
            "--links",
            str(args.links),
        ]
        command += ["--walks", str(args.walks), "--repeat", str(args.repeat)]
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"part {part} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--parts", default="exact,graph,walk,live")
    parser.add_argument("--pages", type=int, default=1_000_000, help="pages of the generated graph")
    parser.add_argument("--links", type=int, default=20, help="links a page of the generated graph")
    parser.add_argument("--walks", type=int, default=300)
    parser.add_argument(
        "--repeat", type=int, default=5, help="exact decay runs over the crawl; the median is quoted"
    )
    parser.add_argument(
        "--json", metavar="FILE", help='also write {"graph": {...}, ...}: each part\'s figures by part name'
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(PARTS[args.child](args)))
        return 0
    load = os.getloadavg()[0]
    figures = {}
    for part in args.parts.split(","):
        figures[part] = {**run_child(part, args), "load_1min": round(load, 2)}
        print(json.dumps(figures[part]), flush=True)
        load = os.getloadavg()[0]
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
