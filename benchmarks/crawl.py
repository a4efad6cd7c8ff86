"""Crawl throughput of webaudit's engine against a minimal Scrapy spider on the shared test bed.

    .venv/bin/python benchmarks/crawl.py --sites python,postgres --repeat 3 --concurrency 8
    .venv/bin/python benchmarks/crawl.py --generated 5000,20000,100000   # cost per page as a crawl grows

Each measurement runs in its own process: webaudit on a fresh database (SQLite in a temporary folder, or a
PostgreSQL database created for it with --database-url), Scrapy in a fresh Twisted reactor. The two tools
alternate within each repetition so that drift in the machine's load hits both alike. Both count pages the
same way: every URL fetched (HTML or not, any status), robots.txt excluded; seconds run from the start of the
crawl to its end, process start-up and migrations excluded. Figures and their reading: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit, urlunsplit

# The webaudit tree measured by default: the one holding this file. A child process measures its working
# directory, so --tree can point at a snapshot (git archive) while this checkout is being edited.
ROOT = Path(__file__).resolve().parent.parent
SITES = {"python": "http://127.0.0.1:8101/", "postgres": "http://127.0.0.1:8102/"}
TOOLS = ("webaudit", "scrapy")
TESTBED_HINT = "start it with ../shared/testbed/serve start"
# One crawl of either site takes well under a minute on 2 cores; a run past this is stuck, not slow.
RUN_TIMEOUT_SECONDS = 900
MAX_PAGES = 100_000
MEDIANS = ("pages", "requests", "seconds", "cpu_seconds", "pages_per_second", "load")
# The same limits our fetcher applies by default, so neither tool reads or waits for more than the other.
FETCH_TIMEOUT_SECONDS = 10
FETCH_MAX_BYTES = 5_000_000


@dataclass
class Run:
    """One crawl of one site by one tool."""

    site: str
    tool: str
    pages: int  # URLs fetched, robots.txt excluded
    requests: int  # HTTP requests, redirect hops included, robots.txt excluded
    seconds: float
    cpu_seconds: float  # CPU time of the crawling processes over the crawl, all threads
    load: float = 0.0  # the machine's 1-minute load average when the crawl ended
    statuses: dict[str, int] = field(default_factory=dict)
    urls: list[str] = field(default_factory=list)

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds

    def __str__(self) -> str:
        return (
            f"{self.site:8} {self.tool:8} {self.pages:5} pages {self.seconds:7.2f} s {self.pages_per_second:7.1f} "
            f"pages/s {self.cpu_seconds:6.1f} CPU s, load {self.load:.1f}"
        )


def _cpu_seconds(root: int | None = None) -> float:
    """CPU time so far of this process (or `root`) and all its live descendants, from /proc on Linux."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return time.process_time()
    total, pending, tick = 0.0, [root or os.getpid()], os.sysconf("SC_CLK_TCK")
    while pending:
        current = pending.pop()
        try:
            # Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command's ")".
            fields = (proc / str(current) / "stat").read_text().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in (proc / str(current) / "task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue  # the process ended meanwhile
    return total


# The webaudit side (runs in a child process) ----------------------------------------------------------------


def child_env(var_dir: str, **settings: str) -> dict[str, str]:
    """The environment a benchmark's webaudit child runs in: this one, with its own var folder (SQLite, file
    broker), the test bed's loopback addresses allowed, warnings only, and `settings` (WEBAUDIT_...) on top; no
    DATABASE_URL or broker from the caller's shell (a child that wants PostgreSQL is given it in `settings`)."""
    env = {
        key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "CELERY_BROKER_URL")
    }
    env.update(
        WEBAUDIT_VAR_DIR=var_dir,
        DJANGO_SETTINGS_MODULE="webaudit.settings",
        WEBAUDIT_ALLOWED_NETWORKS="127.0.0.0/8",
        WEBAUDIT_LOG_LEVEL="WARNING",
        **settings,
    )
    return env


def _webaudit_setup() -> None:
    sys.path.insert(0, os.getcwd())
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    # A worker process starts its page readers when it starts (sites/tasks.py); so does this one, before timing.
    try:
        from django.conf import settings

        from sites.crawler.reading import shared_reader
    except ImportError:  # a --tree from before page readers
        return
    reader = shared_reader(settings.WEBAUDIT_PAGE_READERS)
    reader.warm()
    reader.load_model("")  # returns once a reader has started and loaded the model
    try:
        from sites.startup import prepare_crawling_process
    except ImportError:  # a --tree from before it
        return
    prepare_crawling_process()  # as a worker process (sites/tasks.py) and `manage.py audit` do before crawling


@contextmanager
def _celery_worker(log_path: Path) -> Iterator[subprocess.Popen]:
    """Run a real Celery worker (the settings' broker) until the block ends; return once it is ready."""
    # One worker process per lane, so that a crawl split in lanes runs on as many processes (and GILs).
    lanes = os.environ.get("WEBAUDIT_CRAWL_LANES", "1")
    command = [
        sys.executable,
        *f"-m celery -A webaudit worker -Q crawl,default -c {lanes} --loglevel INFO".split(),
    ]
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while b" ready." not in log_path.read_bytes():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start:\n{log_path.read_text()[-2000:]}")
            time.sleep(0.1)
        _wait_until_idle(worker.pid)
        yield worker
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()


def _wait_until_idle(pid: int, quiet_seconds: float = 1.0, limit_seconds: float = 60) -> None:
    """Wait for the worker's start-up work to end (its page readers load the classifier after it says ready):
    a worker that has been up for a while, as a deployed one has, is what is measured."""
    deadline, before = time.monotonic() + limit_seconds, _cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(quiet_seconds)
        now = _cpu_seconds(pid)
        if now - before < 0.05 * quiet_seconds:
            return
        before = now


def _crawl_in_process(start: Callable[[], Any]) -> tuple[Any, float, float]:
    """Start the crawl and run it to its end in this process: (crawl, seconds, CPU seconds)."""
    from sites.services.crawls import crawl_run

    cpu, started = _cpu_seconds(), time.monotonic()
    crawl = crawl_run(crawl=start(), step_seconds=30)
    return crawl, time.monotonic() - started, _cpu_seconds() - cpu


def _crawl_on_worker(start: Callable[[], Any]) -> tuple[Any, float, float]:
    """Hand the crawl to a real Celery worker and wait for its end: (crawl, seconds, CPU seconds)."""
    log_path = Path(os.environ["WEBAUDIT_VAR_DIR"]) / "worker.log"
    with _celery_worker(log_path) as worker:
        # This process and the worker's tree: the worker's start-up is over, its crawl work is counted.
        cpu, started = _cpu_seconds(), time.time()
        crawl = start()
        # Give up before the parent's timeout kills this process, which would leave the worker running.
        deadline = time.monotonic() + RUN_TIMEOUT_SECONDS - 60
        while crawl.is_active:
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the crawl did not finish on the worker:\n{log_path.read_text()[-2000:]}")
            time.sleep(0.05)
            crawl.refresh_from_db()
        cpu = _cpu_seconds() - cpu
    return crawl, crawl.finished_at.timestamp() - started, cpu


def measure_webaudit(
    *, site_name: str, concurrency: int, via_worker: bool, mwim: bool = False, url: str = ""
) -> Run:
    _webaudit_setup()
    from django.contrib.auth import get_user_model
    from django.db.models import Count

    from sites.models import Crawl, Page, RobotsFile
    from sites.services.crawls import crawl_start
    from sites.services.sites import site_create

    site = site_create(owner=get_user_model().objects.create(username="bench"), url=url or SITES[site_name])
    if mwim:  # the page readers then build every page's content extract too (docs/mwim.md)
        from mwim.models import MwimSite

        MwimSite.objects.create(site=site)

    def start() -> Crawl:
        options = {"concurrency": concurrency, "delay": 0, "max_pages": MAX_PAGES, "check_external": False}
        return crawl_start(site=site, enqueue=via_worker, **options)

    crawl, seconds, cpu = (_crawl_on_worker if via_worker else _crawl_in_process)(start)
    if crawl.status != Crawl.Status.FINISHED:
        raise RuntimeError(f"crawl {crawl.pk} ended {crawl.status}: {crawl.error}")
    fetched = Page.objects.filter(crawl=crawl, state=Page.State.DONE).exclude(error_kind="robots")
    statuses = fetched.values_list("status_code").annotate(n=Count("id"))
    return Run(
        site=site_name,
        tool="webaudit",
        pages=fetched.count(),
        requests=crawl.requests_made - RobotsFile.objects.filter(crawl=crawl).count(),
        seconds=seconds,
        cpu_seconds=cpu,
        load=os.getloadavg()[0],
        statuses={str(code): n for code, n in statuses},
        urls=sorted(fetched.values_list("url", flat=True)),
    )


# The Scrapy side (runs in a child process) ------------------------------------------------------------------


def _is_robots(url: str) -> bool:
    return urlsplit(url).path == "/robots.txt"


def _scrapy_settings(concurrency: int) -> dict:
    return {
        "ROBOTSTXT_OBEY": True,
        "DOWNLOAD_DELAY": 0,
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
        "AUTOTHROTTLE_ENABLED": False,
        "HTTPCACHE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "HTTPPROXY_ENABLED": False,  # an http_proxy in the environment must not carry the crawl elsewhere
        # The cookie middleware splits domains with tldextract, which downloads the public suffix list from
        # the internet on first use; webaudit keeps no cookies either.
        "COOKIES_ENABLED": False,
        "DOWNLOAD_TIMEOUT": FETCH_TIMEOUT_SECONDS,
        "DOWNLOAD_MAXSIZE": FETCH_MAX_BYTES,
        "USER_AGENT": "scrapy-bench (webaudit benchmarks/crawl.py)",
    }


def _spider_class(start_url: str):
    """A spider following every a[href] and img[src] on the start URL's host and port; it stores nothing."""
    from scrapy import Request, Spider
    from scrapy.http import HtmlResponse

    netloc = urlsplit(start_url).netloc

    class BenchSpider(Spider):
        name = "bench"
        allowed_domains = [urlsplit(start_url).hostname]

        async def start(self):
            # Not start_urls: those skip the dupefilter, so the start page would be fetched again when linked.
            yield Request(start_url, callback=self.parse)

        def parse(self, response):
            if not isinstance(response, HtmlResponse):
                return
            # One request per distinct target of the page (as LinkExtractor's unique=True does): the
            # dupefilter would drop the repeats anyway, after paying for a Request and its fingerprint.
            targets = {
                urldefrag(response.urljoin(href.strip()))[0]
                for href in response.xpath("//a/@href | //img/@src").getall()
            }
            for target in sorted(targets):
                parts = urlsplit(target)
                if parts.scheme in ("http", "https") and parts.netloc == netloc:
                    yield Request(target, callback=self.parse)

    return BenchSpider


def measure_scrapy(*, site_name: str, concurrency: int) -> Run:
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    process = CrawlerProcess(settings=_scrapy_settings(concurrency))
    crawler = process.create_crawler(_spider_class(SITES[site_name]))
    seen = {"pages": 0, "requests": 0, "opened": 0.0, "closed": 0.0, "cpu": 0.0}
    statuses: dict[str, int] = {}
    urls: list[str] = []

    def received(response, request, spider) -> None:
        if not _is_robots(response.url):
            seen["pages"] += 1
            statuses[str(response.status)] = statuses.get(str(response.status), 0) + 1
            urls.append(request.meta.get("redirect_urls", [request.url])[0])

    def downloaded(response, request, spider) -> None:
        seen["requests"] += not _is_robots(response.url)

    def opened(spider) -> None:
        seen.update(opened=time.monotonic(), cpu=_cpu_seconds())

    def closed(spider) -> None:
        seen.update(closed=time.monotonic(), cpu=_cpu_seconds() - seen["cpu"])

    # Scrapy holds signal receivers by weak reference: these locals live until process.start() returns.
    for receiver, signal in (
        (received, signals.response_received),
        (downloaded, signals.response_downloaded),
        (opened, signals.spider_opened),
        (closed, signals.spider_closed),
    ):
        crawler.signals.connect(receiver, signal=signal)
    process.crawl(crawler)
    process.start()
    return Run(
        site=site_name,
        tool="scrapy",
        pages=seen["pages"],
        requests=seen["requests"],
        seconds=seen["closed"] - seen["opened"],
        cpu_seconds=seen["cpu"],
        load=os.getloadavg()[0],
        statuses=statuses,
        urls=sorted(urls),
    )


# Orchestration (the parent process) -------------------------------------------------------------------------


def testbed_problem(urls: list[str]) -> str | None:
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the test bed is local: no proxy
    for url in urls:
        try:
            with direct.open(url, timeout=5):
                pass
        except (urllib.error.URLError, OSError) as exc:
            return f"the test bed does not answer at {url} ({exc}); {TESTBED_HINT}"
    return None


@contextmanager
def _fresh_postgres(server_url: str | None) -> Iterator[str | None]:
    """Create an empty database on the server of `server_url` for one run, and drop it afterwards."""
    if server_url is None:
        yield None
        return
    import psycopg

    name = f"webaudit_bench_{uuid.uuid4().hex[:12]}"
    parts = urlsplit(server_url)
    admin_url = urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, ""))
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_child(*, tool: str, site_name: str, args: argparse.Namespace) -> Run:
    """Measure one crawl in a fresh process; webaudit also gets a fresh database."""
    options = f"--child {tool} --sites {site_name} --concurrency {args.concurrency}"
    command = [sys.executable, str(Path(__file__).resolve()), *options.split()]
    command += ["--via-worker"] if args.via_worker else []
    command += ["--mwim"] if args.mwim else []
    command += ["--generated-url", args.generated_url] if getattr(args, "generated_url", None) else []
    with (
        tempfile.TemporaryDirectory(prefix="webaudit-bench-") as var_dir,
        _fresh_postgres(args.database_url if tool == "webaudit" else None) as database_url,
    ):
        # The worker mode uses the embedded file broker in var_dir.
        env = child_env(
            var_dir,
            WEBAUDIT_CRAWL_LANES=str(args.lanes),
            WEBAUDIT_MWIM_READER_EXTRACTS="1" if args.mwim else "0",
            **({"DATABASE_URL": database_url} if database_url else {}),
        )
        done = subprocess.run(
            command, cwd=args.tree, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS
        )
    if done.returncode != 0:
        raise RuntimeError(f"{tool} on {site_name} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return Run(**json.loads(done.stdout.strip().splitlines()[-1]))


def run_all(args: argparse.Namespace) -> list[Run]:
    runs = []
    for repetition in range(args.repeat):
        for site_name in args.sites:
            # Alternating which tool goes first spreads warm-cache and load drift evenly over both.
            for tool in TOOLS if repetition % 2 == 0 else TOOLS[::-1]:
                run = run_child(tool=tool, site_name=site_name, args=args)
                print(f"  [{repetition + 1}/{args.repeat}] {run}", file=sys.stderr, flush=True)
                runs.append(run)
    return runs


def summarize(runs: list[Run], sites: list[str]) -> list[dict]:
    """One row per site and tool with medians; the webaudit row carries the ratios to Scrapy."""
    rows = []
    for site_name in sites:
        by_tool = {tool: [run for run in runs if (run.site, run.tool) == (site_name, tool)] for tool in TOOLS}
        for tool, chosen in by_tool.items():
            medians = {key: statistics.median(getattr(run, key) for run in chosen) for key in MEDIANS}
            rows.append(
                {"site": site_name, "tool": tool, **medians, "runs": [run.pages_per_second for run in chosen]}
            )
        ours, theirs = rows[-2], rows[-1]
        ours["ratio"] = ours["pages_per_second"] / theirs["pages_per_second"]
        pairs = zip(by_tool["webaudit"], by_tool["scrapy"], strict=True)
        ours["ratios"] = [a.pages_per_second / b.pages_per_second for a, b in pairs]
    return rows


def print_table(rows: list[dict]) -> None:
    print(
        f"{'site':9} {'tool':9} {'pages':>6} {'requests':>8} {'seconds':>8} {'pages/s':>8} {'CPU s':>7} "
        f"{'load':>5} {'webaudit/scrapy':>15}  per run: pages/s (ratio)"
    )
    for row in rows:
        ratio = f"{row['ratio']:.2f}" if "ratio" in row else ""
        runs = ", ".join(f"{rate:.1f}" for rate in row["runs"])
        runs += f" ({', '.join(f'{r:.2f}' for r in row['ratios'])})" if "ratios" in row else ""
        print(
            f"{row['site']:9} {row['tool']:9} {row['pages']:6g} {row['requests']:8g} {row['seconds']:8.2f} "
            f"{row['pages_per_second']:8.1f} {row['cpu_seconds']:7.1f} {row['load']:5.1f} {ratio:>15}  {runs}"
        )


def print_coverage(runs: list[Run], sites: list[str]) -> None:
    """Say which URLs one tool fetched and the other did not (first repetition): the counts must compare."""
    from w3lib.url import canonicalize_url

    for site_name in sites:
        first = {run.tool: run for run in reversed(runs) if run.site == site_name}
        ours = set(first["webaudit"].urls)
        theirs = {canonicalize_url(url) for url in first["scrapy"].urls}
        for label, only in (("only webaudit", ours - theirs), ("only scrapy", theirs - ours)):
            sample = ", ".join(sorted(only)[:3])
            print(f"{site_name}: {label}: {len(only)} URL(s){': ' + sample if only else ''}")
        for tool in TOOLS:
            print(f"{site_name}: {tool} statuses: {dict(sorted(first[tool].statuses.items()))}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", default="python,postgres", help=f"comma-separated, of {', '.join(SITES)}")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool and site (medians quoted)")
    parser.add_argument("--concurrency", type=int, default=8, help="concurrent requests per host, both tools")
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="run webaudit on this PostgreSQL server (postgres://postgres@127.0.0.1:5432/postgres), "
        "in a database created for each run and dropped after it",
    )
    parser.add_argument(
        "--via-worker",
        action="store_true",
        help="run webaudit's crawl on a real Celery worker (file broker) instead of in-process",
    )
    parser.add_argument(
        "--lanes",
        type=int,
        default=1,
        help="with --via-worker: split the crawl in this many lanes and worker processes",
    )
    parser.add_argument(
        "--mwim",
        action="store_true",
        help="register the site for MWIM, with WEBAUDIT_MWIM_READER_EXTRACTS=1: the readers also build CE files",
    )
    parser.add_argument("--tree", type=Path, default=ROOT, help="the webaudit source tree to measure")
    parser.add_argument("--json", metavar="FILE", help="also write every run and the summary here")
    parser.add_argument(
        "--generated",
        metavar="N[,N...]",
        help="crawl generated sites of these sizes (webaudit alone, in-process, SQLite or --database-url) and "
        "print pages/s and memory at each size (benchmarks/generated.py)",
    )
    parser.add_argument("--child", choices=TOOLS, help=argparse.SUPPRESS)
    parser.add_argument("--generated-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generated:
        try:
            args.generated = [int(size) for size in args.generated.split(",")]
        except ValueError:
            parser.error("--generated takes page counts separated by commas, e.g. 5000,20000,100000")
        if min(args.generated) < 1:
            parser.error("--generated sizes must be at least 1")
    args.sites = [name.strip() for name in args.sites.split(",") if name.strip()]
    unknown = [name for name in args.sites if name not in SITES]
    if unknown or not args.sites:
        parser.error(f"unknown site(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(SITES)}")
    if not (args.tree / "webaudit" / "settings.py").is_file():
        parser.error(f"--tree {args.tree} is not a webaudit source tree")
    if min(args.repeat, args.concurrency, args.lanes) < 1:
        parser.error("--repeat, --concurrency and --lanes must be at least 1")
    if args.lanes > 1 and not args.via_worker:
        parser.error("--lanes needs --via-worker: lanes are task chains spread over worker processes")
    return args


def child_main(args: argparse.Namespace) -> int:
    site_name = args.sites[0]
    if args.generated_url:
        import resource

        run = measure_webaudit(
            site_name=site_name, concurrency=args.concurrency, via_worker=False, url=args.generated_url
        )
        run.urls = []  # 100,000 of them are not worth the pipe
        run.statuses["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    elif args.child == "webaudit":
        run = measure_webaudit(
            site_name=site_name, concurrency=args.concurrency, via_worker=args.via_worker, mwim=args.mwim
        )
    else:
        run = measure_scrapy(site_name=site_name, concurrency=args.concurrency)
    print(json.dumps(asdict(run)))
    return 0


def run_generated(args: argparse.Namespace) -> int:
    """Crawl generated sites of each size in a fresh process each; print pages/s, its ratio to the smallest
    size and the crawling process's peak resident memory."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.generated import generate, served

    print(
        f"generated sites {args.generated}; concurrency {args.concurrency}; {args.repeat} repetition(s); "
        f"webaudit ({args.tree.resolve()}) in-process on {'PostgreSQL' if args.database_url else 'SQLite'}",
        file=sys.stderr,
    )
    rows = []
    for size in args.generated:
        root = generate(size)
        with served(root) as url:
            runs = []
            for repetition in range(args.repeat):
                args.generated_url = url
                run = run_child(tool="webaudit", site_name="python", args=args)
                print(
                    f"  [{repetition + 1}/{args.repeat}] {size} pages: {run}, "
                    f"{run.statuses['max_rss_mb']} MB",
                    file=sys.stderr,
                    flush=True,
                )
                runs.append(run)
        rows.append(
            {
                "size": size,
                "pages": statistics.median(run.pages for run in runs),
                "seconds": statistics.median(run.seconds for run in runs),
                "pages_per_second": statistics.median(run.pages_per_second for run in runs),
                "cpu_ms_per_page": statistics.median(
                    1000 * run.cpu_seconds / max(run.pages, 1) for run in runs
                ),
                "max_rss_mb": statistics.median(run.statuses["max_rss_mb"] for run in runs),
                "runs": [round(run.pages_per_second, 1) for run in runs],
            }
        )
    # CPU time a page (this process and its page readers) is the steadier measure on a shared machine.
    base, base_cpu = rows[0]["pages_per_second"], rows[0]["cpu_ms_per_page"]
    print(
        f"{'size':>7} {'pages':>7} {'seconds':>8} {'pages/s':>8} {'vs first':>8} {'CPU ms/page':>11} "
        f"{'vs first':>8} {'max RSS MB':>10}  per run"
    )
    for row in rows:
        print(
            f"{row['size']:7} {row['pages']:7g} {row['seconds']:8.1f} {row['pages_per_second']:8.1f} "
            f"{row['pages_per_second'] / base:8.2f} {row['cpu_ms_per_page']:11.2f} "
            f"{row['cpu_ms_per_page'] / base_cpu:8.2f} {row['max_rss_mb']:10g}  {row['runs']}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"generated": rows}, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        return child_main(args)
    if args.generated:
        return run_generated(args)
    problem = testbed_problem([SITES[name] for name in args.sites])
    if problem:
        print(f"benchmarks/crawl.py: {problem}", file=sys.stderr)
        return 2
    try:
        import scrapy  # noqa: F401
    except ImportError:
        print("benchmarks/crawl.py: Scrapy is missing; run scripts/install bench", file=sys.stderr)
        return 2
    mode = f"Celery worker, {args.lanes} lane(s)" if args.via_worker else "in-process"
    database = "PostgreSQL" if args.database_url else "SQLite"
    print(
        f"crawl throughput: {', '.join(args.sites)}; concurrency {args.concurrency}; "
        f"{args.repeat} repetition(s); webaudit ({args.tree.resolve()}) {mode} on {database}",
        file=sys.stderr,
    )
    try:
        runs = run_all(args)
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"benchmarks/crawl.py: {exc}", file=sys.stderr)
        return 1
    rows = summarize(runs, args.sites)
    print_table(rows)
    print_coverage(runs, args.sites)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"summary": rows, "runs": [asdict(run) for run in runs]}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
