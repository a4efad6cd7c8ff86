"""Soft-404 detection on the test bed truth: probe only, classifier only, combined, and the 2017 soft404 package.

    .venv/bin/python benchmarks/soft404.py --n 200 --repeat 5

Verdicts come from checks.checking.urls_check, the code behind `check_url` and the crawl (one probe per
directory, the model in force, WEBAUDIT_SOFT404_THRESHOLD); parked pages count as soft-404. Timings run on the
2xx HTML bodies fetched once from the test bed, --repeat passes: each page's median over the passes, then
p50/p90 over the distinct pages. Requests per page come from full crawls of the six sites. Figures and their
reading: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# ../shared/testbed beside the checkout, else the workplace's (a git worktree lives one folder deeper).
TESTBED = next(
    (path for path in (ROOT.parent / "shared" / "testbed", Path("/work/shared/testbed")) if path.is_dir()),
    ROOT.parent / "shared" / "testbed",
)
DATA = ROOT / "tests" / "data" / "soft404"
PORTS = (8101, 8102, 8103, 8104, 8105, 8106, 8107)
POSITIVE = frozenset({"soft404", "parked"})  # truth verdicts of the soft-404 class
DETECTORS = ("probe", "classifier", "combined")
PEER = "soft404 (PyPI 2017)"
PEER_THRESHOLD = 0.5  # the package's probability of the 404 class; 0.5 is predict()'s cut
PEER_VENV_HINT = (
    "/root/.pyenv/versions/3.6.15/bin/python -m venv /tmp/soft404-venv && PIP_CONFIG_FILE=/dev/null "
    'PIP_FIND_LINKS= /tmp/soft404-venv/bin/pip install "scikit-learn==0.19.2" "numpy<1.17" "scipy<1.3" '
    'soft404 "html-text==0.5.2" "parsel<1.7"'
)
# The Apache pages say "Error 404" in English under their translated text; removing that one line shows what
# each classifier makes of the translated text alone.
ENGLISH_LINE = "<h2>Error 404</h2>"
MAX_PAGES = 100_000
# The peer runs in its own Python 3.6 venv (its pickled scikit-learn 0.19 model loads nowhere newer). It reads
# {"html"} JSON lines and prints {"probability", "ns"} per page in order; the warm-up call loads the model.
PEER_HELPER = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
from soft404 import probability
repeat = int(sys.argv[1])
pages = [json.loads(line)["html"] for line in sys.stdin if line.strip()]
probability("<html><head><title>warm-up</title></head><body>warm-up</body></html>")
probs, times = [0.0] * len(pages), [[] for _ in pages]
for _ in range(repeat):
    for i, html in enumerate(pages):
        started = time.perf_counter()
        probs[i] = probability(html)
        times[i].append(int((time.perf_counter() - started) * 1e9))
for p, ns in zip(probs, times):
    print(json.dumps({"probability": p, "ns": ns}))
"""


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, truth: bool, predicted: bool) -> None:
        if truth:
            self.tp, self.fn = self.tp + predicted, self.fn + (not predicted)
        else:
            self.fp, self.tn = self.fp + predicted, self.tn + (not predicted)

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


@dataclass
class Judged:
    """One truth URL with each detector's answer (True: soft-404)."""

    url: str
    port: int
    truth: str
    predicted: dict[str, bool]
    evidence: str


@dataclass
class Body:
    """One distinct 2xx HTML answer of the test bed, and the truth URLs that received it."""

    html: bytes
    final_url: str
    charset: str | None
    urls: list[str] = field(default_factory=list)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of `values` (inclusive method; the median for q = 0.5)."""
    if len(values) < 2 or q == 0.5:
        return statistics.median(values)
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


# Set-up ------------------------------------------------------------------------------------------------------


def django_setup(var_dir: str) -> None:
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "webaudit.settings",
            "WEBAUDIT_ALLOWED_NETWORKS": "127.0.0.0/8",
            "WEBAUDIT_CRAWL_DELAY": "0",
            "WEBAUDIT_VAR_DIR": var_dir,
            "WEBAUDIT_LOG_LEVEL": "WARNING",
        }
    )
    os.environ.pop("DATABASE_URL", None)  # a fresh SQLite database in var_dir
    os.environ.pop("CELERY_BROKER_URL", None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def testbed_problem() -> str | None:
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the test bed is local: no proxy
    for port in PORTS:
        try:
            with direct.open(f"http://127.0.0.1:{port}/", timeout=5):
                pass
        except (urllib.error.URLError, OSError) as exc:
            return f"the test bed does not answer on port {port} ({exc}); start it: ../shared/testbed/serve start"
    return None


def load_truth(args: argparse.Namespace) -> dict:
    if args.truth:
        return json.loads(Path(args.truth).read_text())
    command = [sys.executable, str(args.testbed / "truth.py"), "--n", str(args.n)]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def the_model():
    from django.conf import settings

    from sites.crawler.soft404.shipped import soft404_model

    return soft404_model(settings.WEBAUDIT_SOFT404_MODEL), settings.WEBAUDIT_SOFT404_THRESHOLD


def model_identity() -> str:
    model, threshold = the_model()
    meta = model.metadata
    return (
        f"{meta.get('model')} trained {meta.get('trained_at')} on {meta.get('training_pages')} pages "
        f"(sha256 {str(meta.get('model_sha256'))[:12]}), threshold {threshold}"
    )


# Detectors on the truth --------------------------------------------------------------------------------------


def judge_truth(urls: list[dict], concurrency: int) -> list[Judged]:
    """Check every truth URL once, as check_url does, and read the three detectors off each result."""
    from checks.checking import urls_check

    _, threshold = the_model()
    judged = []
    checks = urls_check(urls=[u["url"] for u in urls], concurrency=concurrency, delay=0)
    for record, check in zip(urls, checks, strict=True):
        answered_html = check.soft404_probability is not None and 200 <= (check.status or 0) < 300
        probability = check.soft404_probability if answered_html else None
        probe = check.probe or {}  # None: the page itself failed, so no probe was needed (probe-only: dead)
        predicted = {
            "probe": probe.get("verdict") == "soft404",
            "classifier": probability is not None and probability >= threshold,
            "combined": check.verdict == "soft404",
        }
        evidence = (
            f"{check.verdict} ({check.reason}); probe {probe.get('verdict')} ({probe.get('reason', '')}); "
            f"p={_fmt(probability)}"
        )
        judged.append(Judged(record["url"], record["port"], record["verdict"], predicted, evidence))
    return judged


def scores(judged: list[Judged], predictions) -> dict[tuple[str, str], Score]:
    """Scores per (detector, site) and over all sites; `predictions(j)` gives {detector: soft-404?}."""
    table: dict[tuple[str, str], Score] = {}
    for j in judged:
        for detector, predicted in predictions(j).items():
            for site in ("all", str(j.port)):
                table.setdefault((detector, site), Score()).add(j.truth in POSITIVE, predicted)
    return dict(sorted(table.items(), key=lambda item: (item[0][0], item[0][1] != "all", item[0][1])))


def print_scores(title: str, table: dict[tuple[str, str], Score]) -> None:
    print(f"\n{title}")
    print(
        f"{'detector':20} {'site':5} {'precision':>9} {'recall':>7} {'TP':>5} {'FP':>5} {'FN':>5} {'TN':>5}"
    )
    for (detector, site), s in table.items():
        print(
            f"{detector:20} {site:5} {_fmt(s.precision):>9} {_fmt(s.recall):>7} {s.tp:5} {s.fp:5} {s.fn:5} {s.tn:5}"
        )


def print_misclassified(judged: list[Judged], limit: int = 10) -> None:
    for detector in DETECTORS:
        wrong = [j for j in judged if j.predicted[detector] != (j.truth in POSITIVE)]
        print(
            f"\n{detector}: {len(wrong)} misclassified URL(s){f', first {limit}' if len(wrong) > limit else ''}"
        )
        for j in wrong[:limit]:
            print(f"  {'FP' if j.predicted[detector] else 'FN'} {j.url} truth {j.truth}: {j.evidence}")


def table_json(table: dict[tuple[str, str], Score]) -> list[dict]:
    return [
        {"detector": d, "site": s, **asdict(v), "precision": v.precision, "recall": v.recall}
        for (d, s), v in table.items()
    ]


# Timing of features + classification -------------------------------------------------------------------------


def fetch_bodies(urls: list[dict], concurrency: int) -> dict[str, Body]:
    """Fetch every truth URL once (redirects followed, no proxy); keep the 2xx HTML answers, one per body."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def fetch(url: str) -> tuple[str, bytes, str, str | None] | None:
        try:
            with opener.open(url, timeout=10) as response:
                if "html" not in response.headers.get_content_type():
                    return None
                return url, response.read(), response.geturl(), response.headers.get_content_charset()
        except (urllib.error.URLError, OSError):
            return None  # 4xx and 5xx: no page to classify

    bodies: dict[str, Body] = {}
    with ThreadPoolExecutor(concurrency) as pool:
        for answer in filter(None, pool.map(fetch, [u["url"] for u in urls])):
            url, html, final_url, charset = answer
            # The final URL's host is a feature (off-site links), so a body is distinct per host.
            key = hashlib.sha256(html + final_url.split("/")[2].encode()).hexdigest()
            bodies.setdefault(key, Body(html, final_url, charset)).urls.append(url)
    return bodies


def time_ours(bodies: dict[str, Body], repeat: int) -> dict[str, dict]:
    """Per body: the probability, and nanoseconds per pass of page_probability, its parse, features and model."""
    from sites.crawler.soft404 import features

    model, _ = the_model()
    # The crawler classifies the tree it parsed for its links, when the model has that API (judging.py).
    from_tree = getattr(model, "probability_of_tree", None)
    parts = ("total", "parse", "classify") + (("tree",) if from_tree else ())
    results: dict[str, dict] = {key: {part: [] for part in parts} for key in bodies}
    for body in bodies.values():  # warm-up: phrase automata, parsers, compiled model
        model.page_probability(body.html, body.final_url)
    clock = time.perf_counter_ns
    for _ in range(repeat):
        gc.collect()
        for key, body in bodies.items():
            row = results[key]
            started = clock()
            row["probability"] = model.page_probability(body.html, body.final_url)  # as the crawler calls it
            row["total"].append(clock() - started)
            started = clock()
            root = features.parse(body.html)
            row["parse"].append(clock() - started)
            if from_tree and root is not None:
                started = clock()
                from_tree(root, page_bytes=len(body.html), url=body.final_url)
                row["tree"].append(clock() - started)
            vector = features.extract(body.html, body.final_url).vector()
            started = clock()
            model.probability(vector)
            row["classify"].append(clock() - started)
    return results


def timing_summary(bodies: dict[str, Body], nanoseconds: dict[str, list[int]]) -> dict[str, float]:
    """Milliseconds: p50/p90 of each page's median over the passes, p50 of each page's best pass, p50 per URL."""
    median = {key: statistics.median(ns) / 1e6 for key, ns in nanoseconds.items()}
    per_url = [median[key] for key, body in bodies.items() for _ in body.urls]
    return {
        "pages": len(median),
        "p50": percentile(list(median.values()), 0.5),
        "p90": percentile(list(median.values()), 0.9),
        "best_p50": statistics.median(min(ns) / 1e6 for ns in nanoseconds.values()),
        "urls": len(per_url),
        "url_p50": percentile(per_url, 0.5),
    }


def print_timing(label: str, t: dict[str, float]) -> None:
    print(
        f"{label:44} {t['p50']:8.3f} {t['p90']:8.3f} {t['best_p50']:9.3f} {t['url_p50']:8.3f}   "
        f"({t['pages']} pages, {t['urls']} URLs)"
    )


# The 2017 soft404 package ------------------------------------------------------------------------------------


def peer_python(venv: Path) -> tuple[Path | None, str]:
    """The venv's interpreter if it can import soft404, else None and why not."""
    python = venv / "bin" / "python"
    if not python.exists():
        return None, f"no Python at {python}"
    tried = subprocess.run([str(python), "-c", "import soft404"], capture_output=True, text=True, timeout=300)
    if tried.returncode != 0:
        return None, f"{python} cannot import soft404: {(tried.stderr.strip().splitlines() or ['?'])[-1]}"
    return python, ""


def decode(html: bytes, charset: str | None) -> str:
    try:
        return html.decode(charset or "utf-8")
    except (LookupError, UnicodeDecodeError):
        return html.decode("utf-8", "replace")


def peer_scores(python: Path, pages: list[str], repeat: int) -> list[dict]:
    """Run the soft404 package on each HTML text: [{"probability", "ns": [one per pass]}] in order."""
    done = subprocess.run(
        [str(python), "-W", "ignore", "-c", PEER_HELPER, str(repeat)],
        input="".join(json.dumps({"html": html}) + "\n" for html in pages),
        capture_output=True,
        text=True,
        timeout=7200,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the soft404 package failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def compare_with_peer(python: Path, judged, bodies, ours, repeat: int) -> dict:
    """Classifier only, both models on the same fetched pages; a URL without a 2xx HTML body is a no for both."""
    keys = list(bodies)
    answers = peer_scores(python, [decode(bodies[k].html, bodies[k].charset) for k in keys], repeat)
    theirs = dict(zip(keys, answers, strict=True))
    _, threshold = the_model()
    by_url = {url: (ours[k]["probability"], theirs[k]["probability"]) for k in keys for url in bodies[k].urls}

    def predictions(j: Judged) -> dict[str, bool]:
        mine, peer = by_url.get(j.url, (0.0, 0.0))
        return {"webaudit classifier": mine >= threshold, PEER: peer >= PEER_THRESHOLD}

    table = scores(judged, predictions)
    print_scores(f"Classifier only on the same fetched pages (webaudit at {threshold}, {PEER} at 0.5)", table)
    return {
        "scores": table_json(table),
        "timing": timing_summary(bodies, {k: v["ns"] for k, v in theirs.items()}),
    }


# Multilingual check ------------------------------------------------------------------------------------------


def multilingual_pages() -> list[dict]:
    """The saved test pages: Apache's 404 in 21 languages, a Spanish not-found page and three normal pages."""
    from checks.soft404.corpus.apache_errors import error_documents

    apache = error_documents("HTTP_NOT_FOUND", directory=DATA / "apache-error")
    saved = (
        ("notfound-es.html", "es", True),
        ("handbook-ru-config-printing.html", "ru", False),
        ("handbook-ja-ftp-file-server.html", "ja", False),
        ("git-mktree.html", "en", False),
    )
    return [
        {
            "page": f"apache-error HTTP_NOT_FOUND [{doc.lang}]",
            "lang": doc.lang,
            "soft404": True,
            "html": doc.html,
        }
        for doc in apache
    ] + [
        {"page": name, "lang": lang, "soft404": label, "html": (DATA / name).read_text(encoding="utf-8")}
        for name, lang, label in saved
    ]


def multilingual_check(python: Path | None) -> list[dict]:
    """Score every saved page, and each non-English one without the English line, with both classifiers."""
    model, _ = the_model()
    pages = multilingual_pages()
    stripped = [p for p in pages if p["lang"] != "en" and ENGLISH_LINE in p["html"]]
    texts = [p["html"] for p in pages] + [p["html"].replace(ENGLISH_LINE, "") for p in stripped]
    peer = iter([r["probability"] for r in peer_scores(python, texts, 1)] if python else [None] * len(texts))
    for page in pages:
        page.update(webaudit=model.page_probability(page["html"]), pypi=next(peer))
    for page in stripped:
        html = page["html"].replace(ENGLISH_LINE, "")
        page.update(webaudit_stripped=model.page_probability(html), pypi_stripped=next(peer))
    for page in pages:
        del page["html"]
    return pages


def print_multilingual(rows: list[dict]) -> None:
    _, threshold = the_model()
    print(f"\nMultilingual check, tests/data/soft404 (webaudit at {threshold}, {PEER} at 0.5); the last two")
    print(f"columns: the same page without its English '{ENGLISH_LINE}' line")
    print(f"{'page':42} {'truth':7} {'webaudit':>8} {'soft404':>8} {'webaudit':>9} {'soft404':>8}")
    for r in rows:
        print(
            f"{r['page']:42} {'soft404' if r['soft404'] else 'ok':7} {r['webaudit']:8.3f} {_fmt(r['pypi']):>8} "
            f"{_fmt(r.get('webaudit_stripped')):>9} {_fmt(r.get('pypi_stripped')):>8}"
        )
    foreign = [r for r in rows if r["soft404"] and r["lang"] != "en"]
    normal = [r for r in rows if not r["soft404"]]
    for label, key, cut in (("webaudit", "webaudit", threshold), (PEER, "pypi", PEER_THRESHOLD)):
        if foreign[0][key] is None:
            continue
        stripped = [r[f"{key}_stripped"] for r in foreign if f"{key}_stripped" in r]
        print(
            f"{label}: {sum(r[key] >= cut for r in foreign)}/{len(foreign)} non-English not-found pages caught "
            f"({sum(p >= cut for p in stripped)}/{len(stripped)} without the English line), "
            f"{sum(r[key] >= cut for r in normal)}/{len(normal)} normal pages flagged"
        )


# Requests per page on full crawls ----------------------------------------------------------------------------


def crawl_site(port: int, concurrency: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.db.models import Sum

    from sites.models import DirectoryProbe, Page, RobotsFile
    from sites.services.crawls import crawl_run, crawl_start
    from sites.services.sites import site_create

    owner, _ = get_user_model().objects.get_or_create(username="soft404-bench")
    site = site_create(owner=owner, url=f"http://127.0.0.1:{port}/")
    started = time.monotonic()
    options = {"delay": 0, "concurrency": concurrency, "max_pages": MAX_PAGES, "check_external": False}
    crawl = crawl_run(crawl=crawl_start(site=site, enqueue=False, **options), step_seconds=30)
    probes = DirectoryProbe.objects.filter(crawl=crawl)
    return {
        "port": port,
        "status": crawl.status,
        "seconds": time.monotonic() - started,
        "pages": crawl.pages_done,
        "requests": crawl.requests_made,
        "probe_requests": probes.count() + (probes.aggregate(n=Sum("redirects"))["n"] or 0),
        "robots": RobotsFile.objects.filter(crawl=crawl).count(),
        "verdicts": dict(Counter(Page.objects.filter(crawl=crawl).values_list("verdict", flat=True))),
    }


def print_crawls(rows: list[dict]) -> dict:
    print("\nFull crawls: requests_made / pages_done (requests include redirect hops, probes and robots.txt)")
    print(
        f"{'site':5} {'pages':>6} {'requests':>8} {'probes':>6} {'robots':>6} {'req/page':>8} {'seconds':>7}  verdicts"
    )
    total = {key: sum(row[key] for row in rows) for key in ("pages", "requests", "probe_requests", "robots")}
    for row in [*rows, {"port": "all", "seconds": sum(r["seconds"] for r in rows), "verdicts": "", **total}]:
        row["requests_per_page"] = row["requests"] / max(row["pages"], 1)
        print(
            f"{row['port']:5} {row['pages']:6} {row['requests']:8} {row['probe_requests']:6} {row['robots']:6} "
            f"{row['requests_per_page']:8.3f} {row['seconds']:7.1f}  {row['verdicts']}"
        )
    return total | {"requests_per_page": total["requests"] / max(total["pages"], 1)}


# Orchestration -----------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="truth.py --n: real and missing URLs per site")
    parser.add_argument(
        "--truth", metavar="FILE", help="read this truth.py output instead of running truth.py"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timing passes over the pages (medians quoted)")
    parser.add_argument("--concurrency", type=int, default=8, help="concurrent requests per host")
    parser.add_argument(
        "--soft404-venv",
        type=Path,
        default=Path("/tmp/soft404-venv"),
        help="a Python 3.6 venv with the soft404 package; without one that part is skipped with a note",
    )
    parser.add_argument("--skip-crawls", action="store_true", help="leave out the full crawls")
    parser.add_argument("--testbed", type=Path, default=TESTBED, help="the folder holding truth.py")
    parser.add_argument("--json", metavar="FILE", help="also write every figure here")
    args = parser.parse_args(argv)
    if min(args.n, args.repeat, args.concurrency) < 1:
        parser.error("--n, --repeat and --concurrency must be at least 1")
    return args


def _judge_goal(value: float | None, op: str, goal: float) -> str:
    if value is None:
        return "not run"
    met = {">=": value >= goal, "<=": value <= goal, "<": value < goal}[op]
    return "met" if met else "NOT met"


def print_goals(table: dict, timing: dict, crawls: dict | None) -> None:
    combined = table[("combined", "all")]
    print("\nGoals (issues 3 and 11)")
    goals = [
        ("combined precision, soft-404", combined.precision, ">=", 0.99),
        ("combined recall, soft-404", combined.recall, ">=", 0.98),
    ]
    for (detector, site), score in table.items():
        if detector == "combined" and site != "all":  # every kind of site: issue 11
            goals += [(f"  site {site}: precision", score.precision, ">=", 0.99)]
            goals += [(f"  site {site}: recall", score.recall, ">=", 0.98)]
    goals += [
        ("features + classification, p50 ms", timing["p50"], "<=", 1.0),
        ("requests per page, full crawls", crawls["requests_per_page"] if crawls else None, "<", 1.15),
    ]
    for name, value, op, goal in goals:
        if value is None and name.startswith("  site"):
            continue  # a site without soft-404 URLs (8101) has no recall, and no precision when nothing flagged
        print(f"  {name:36} {_fmt(value):>7} {op} {goal}: {_judge_goal(value, op, goal)}")


def run_detectors(urls: list[dict], concurrency: int, report: dict) -> tuple[list[Judged], dict]:
    judged = judge_truth(urls, concurrency)
    table = scores(judged, lambda j: j.predicted)
    print_scores("Soft-404 class on the test bed truth (parked counts as soft-404)", table)
    print_misclassified(judged)
    report["scores"] = table_json(table)
    report["misclassified"] = [asdict(j) for j in judged if j.predicted["combined"] != (j.truth in POSITIVE)]
    return judged, table


def run_timing(bodies: dict[str, Body], repeat: int, report: dict) -> dict[str, dict]:
    ours = time_ours(bodies, repeat)
    sizes = [len(body.html) / 1024 for body in bodies.values()]
    print(
        f"\nMilliseconds per page, {repeat} passes; a page's figure is its median over the passes. Pages: "
        f"p50 {percentile(sizes, 0.5):.0f} KiB, p90 {percentile(sizes, 0.9):.0f} KiB"
    )
    print(f"{'':44} {'p50':>8} {'p90':>8} {'best p50':>9} {'URL p50':>8}")
    for part, label in (
        ("total", "webaudit: parse + features + model"),
        ("parse", "  of which the lxml parse"),
        ("classify", "  of which the model"),
        ("tree", "webaudit: features + model on a parsed tree"),
    ):
        if not all(v.get(part) for v in ours.values()):
            continue  # no probability_of_tree in this tree, or a page lxml could not parse
        report[f"timing_{part}"] = timing_summary(bodies, {k: v[part] for k, v in ours.items()})
        print_timing(label, report[f"timing_{part}"])
    return ours


def run(args: argparse.Namespace, report: dict) -> None:
    truth = load_truth(args)
    urls = [u for u in truth["urls"] if u["port"] in PORTS]
    report.update(truth={"seed": truth["seed"], "n": truth["n"], "urls": len(urls)}, model=model_identity())
    print(
        f"soft-404 detection: {len(urls)} truth URLs (seed {truth['seed']}, --n {truth['n']}); model "
        f"{report['model']}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
        flush=True,
    )
    judged, table = run_detectors(urls, args.concurrency, report)
    bodies = fetch_bodies(urls, args.concurrency)
    ours = run_timing(bodies, args.repeat, report)
    python, why = peer_python(args.soft404_venv)
    if python is None:
        print(f"\n{PEER} comparison skipped: {why}. Create the venv with:\n  {PEER_VENV_HINT}")
        report["soft404_pypi"] = {"skipped": why}
    else:
        report["soft404_pypi"] = compare_with_peer(python, judged, bodies, ours, args.repeat)
        print_timing(f"{PEER}, Python 3.6, ms per page", report["soft404_pypi"]["timing"])
    report["multilingual"] = multilingual_check(python)
    print_multilingual(report["multilingual"])
    if not args.skip_crawls:
        report["crawls"] = [crawl_site(port, args.concurrency) for port in PORTS]
        report["crawl_total"] = print_crawls(report["crawls"])
    print_goals(table, report["timing_total"], report.get("crawl_total"))
    print(f"load {os.getloadavg()[0]:.1f} at the end")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    problem = testbed_problem()
    if problem:
        print(f"benchmarks/soft404.py: {problem}", file=sys.stderr)
        return 2
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="webaudit-soft404-bench-") as var_dir:
        django_setup(var_dir)
        from sites.crawler.soft404.errors import ModelVersionError

        try:
            model_identity()
        except ModelVersionError as exc:  # e.g. the features changed and the model is not retrained yet
            print(f"benchmarks/soft404.py: the soft-404 model cannot be loaded: {exc}", file=sys.stderr)
            return 2
        run(args, report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
