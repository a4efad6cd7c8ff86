"""Page finding on the lost sheep paper's generated graphs (its appendix tables, side by side with ours)
and on the test bed's documentation sites.

    .venv/bin/python benchmarks/pagefinding.py --runs 150 --sizes 100,1000,10000
    .venv/bin/python benchmarks/pagefinding.py --live --per-site 30
    .venv/bin/python benchmarks/pagefinding.py --live --cases /tmp/cases.json --algorithms BESTFIRST  # a case file
    .venv/bin/python benchmarks/pagefinding.py --trail --runs 100 --sizes 1000,10000  # what links tell
    .venv/bin/python benchmarks/pagefinding.py --oracle --budget 200 --runs 60 --sizes 10000  # upper bounds
    .venv/bin/python benchmarks/pagefinding.py --sizes 1000 --runs 30 \
        --params text_copy=0.5,prototype_link=1 --skip HMM,HMM2F   # a generator variant
    .venv/bin/python benchmarks/pagefinding.py --generator los_hierarchy --sizes 10000 --runs 60  # LOS as a taxonomy
    .venv/bin/python benchmarks/pagefinding.py --sizes 10000 --runs 150 --only BESTFIRST --feedback 0.3  # the finder
        # with relevance feedback (off by default: no gain measured), paired with the default on the same draws

Every run draws one graph, one target and one query (seeded), and runs every algorithm on it (paired).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pagefinding_paper import PAPER  # noqa: E402

from benchmarks.pagefinding_graphs import GeneratedSite, GraphParameters, generate, make_query  # noqa: E402
from checks.pagefinding import finder  # noqa: E402
from checks.pagefinding.algorithms import search  # noqa: E402

# Rows as the paper names them: (row, algorithm, states); threshold-free rows are run once per graph.
THRESHOLD_FREE = [
    ("OPTIMAL", "OPTIMAL", 0),
    ("FOCUSED", "FOCUSED", 0),
    ("RW", "RW", 0),
    ("BESTFIRST", "BESTFIRST", 0),
]
WITH_THRESHOLD = (
    [(name, name, 0) for name in ("SIM", "DEG", "SIMDEG", "A*")]
    + [(f"LS S={s}", "LS", s) for s in (3, 100, 200, 400)]
    + [(f"LS2F S={s}", "LS2F", s) for s in (100, 200, 400)]
)
# HMM and HMM2F classify every node; the threshold does not enter them, so they run once per graph.
CLASSIFIERS = [(f"HMM S={s}", "HMM", s) for s in (3, 100, 200, 400)] + [
    (f"HMM2F S={s}", "HMM2F", s) for s in (100, 200, 400)
]


# Named readings of the paper's generator: GraphParameters overrides (a value given per N, as a dict, is
# taken at the run's N, interpolated on log N between the Ns it names).
# `paper`: calibrated to the paper's own OPTIMAL column (2.74 / 2.87 / 2.01 downloads at N = 100 / 1000 /
# 10,000): each new node is also linked from the start with the share that puts OPTIMAL's mean path there
# (measured over the benchmark's seeds: 0.13 → 2.71 at N = 100 (150 graphs), 0.23 → 2.87 at 1000, 0.98 →
# 2.00 at 10,000 (20 graphs); docs/benchmarks.md). At N = 10,000 the start links to nearly every page.
GENERATORS: dict[str, dict] = {
    "default": {},
    "los_hierarchy": {"los_hierarchy": True},
    "paper": {"start_link_share": {100: 0.13, 1000: 0.23, 10000: 0.98}},
}


def overrides_at(n: int, overrides: dict) -> dict:
    """The overrides for graphs of size n: per-N values taken at n (log-linear between the Ns given)."""
    out = {}
    for name, value in overrides.items():
        if not isinstance(value, dict):
            out[name] = value
            continue
        if n in value:
            out[name] = value[n]
            continue
        sizes = sorted(value)
        below = max((size for size in sizes if size < n), default=sizes[0])
        above = min((size for size in sizes if size > n), default=sizes[-1])
        if below == above:
            out[name] = value[below]
            continue
        share = (math.log(n) - math.log(below)) / (math.log(above) - math.log(below))
        out[name] = value[below] + share * (value[above] - value[below])
    return out


def parse_params(text: str) -> dict:
    """`name=value,…` overrides of GraphParameters (numbers, true/false, tuples as 10:40)."""
    known = GraphParameters.__dataclass_fields__
    out: dict = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if name not in known:
            raise SystemExit(f"unknown graph parameter {name!r}; choose from {', '.join(known)}")
        default = known[name].default
        if isinstance(default, str):
            out[name] = value
        elif isinstance(default, tuple) or ":" in value:  # a range or triple: 10:40
            out[name] = tuple(float(v) if "." in v else int(v) for v in value.split(":"))
        elif value.lower() in ("true", "false"):
            out[name] = value.lower() == "true"
        else:
            out[name] = (
                int(value) if isinstance(default, int) and not isinstance(default, bool) else float(value)
            )
    return out


def run_generated(
    sizes: list[int],
    runs: int,
    thresholds: list[float],
    seed: int,
    skip: set[str],
    overrides: dict,
    reading: dict | None = None,
) -> dict:
    """{(threshold or None, row): {N: [(hit, downloads), ...]}}"""
    results: dict = {}
    for n in sizes:
        started = time.monotonic()
        for run in range(runs):
            rng = random.Random(f"{seed}-{n}-{run}")
            params = GraphParameters(n=n, **overrides_at(n, overrides))
            graph = generate(params, rng)
            target = rng.randrange(1, n)
            query = make_query(graph, target, params, rng)
            jobs = [(None, row, name, states) for row, name, states in THRESHOLD_FREE + CLASSIFIERS]
            jobs += [(t, row, name, states) for t in thresholds for row, name, states in WITH_THRESHOLD]
            for threshold, row, name, states in jobs:
                if row in skip or name in skip:
                    continue
                result = search(
                    GeneratedSite(graph),
                    query,
                    name,
                    threshold=threshold or 0.75,
                    states=states or 100,
                    rng=random.Random(f"{seed}-{n}-{run}-{row}"),
                    target=target,
                    size_hint=n,
                    reading=reading if name in ("LS", "LS2F") else None,
                )
                results.setdefault((threshold, row), {}).setdefault(n, []).append(
                    (result.found == target, result.downloads)
                )
            if (run + 1) % 10 == 0:
                print(f"N={n}: {run + 1}/{runs} runs, {time.monotonic() - started:.0f} s", file=sys.stderr)
    return results


def json_rows(results: dict) -> list[dict]:
    """The tables as rows a program can check: one per algorithm row, threshold and N."""
    rows = []
    for (threshold, row), cells in results.items():
        for n, outcomes in sorted(cells.items()):
            rows.append(
                {
                    "algorithm": row,
                    "threshold": threshold,
                    "n": n,
                    "runs": len(outcomes),
                    "accuracy": round(sum(hit for hit, _ in outcomes) / len(outcomes), 4),
                    "downloads": round(statistics.mean(d for _, d in outcomes), 2),
                }
            )
    return rows


def _all_but(wanted: set[str]) -> set[str]:
    """The rows to skip so that only `wanted` (rows or algorithm names) run; nothing when none is named."""
    if not wanted:
        return set()
    rows = THRESHOLD_FREE + CLASSIFIERS + WITH_THRESHOLD
    return {row for row, name, _ in rows if row not in wanted and name not in wanted}


def trail(sizes: list[int], runs: int, seed: str, overrides: dict) -> str:
    """How much each link on the shortest path to the target tells a finder: the share of those links whose
    label holds a query word, and the query words on the page each leads to, by distance from the target."""
    lines = [
        "| N | link | label holds a query word | query words on the page it leads to | links |",
        "| --- | --- | --- | --- | --- |",
    ]
    for n in sizes:
        by_distance: dict[int, list[tuple[bool, int]]] = {}
        anywhere: list[bool] = []
        for run in range(runs):
            rng = random.Random(f"{seed}-{n}-{run}")
            params = GraphParameters(n=n, **overrides_at(n, overrides))
            graph = generate(params, rng)
            target = rng.randrange(1, n)
            query = set(make_query(graph, target, params, rng))
            path = GeneratedSite(graph).shortest_path(target)
            for step, (parent, child) in enumerate(zip(path, path[1:], strict=False)):
                label = graph.labels[parent][graph.out[parent].index(child)]
                by_distance.setdefault(len(path) - 2 - step, []).append(
                    (bool(query & set(label)), len(query & set(graph.texts[child])))
                )
            for source in range(0, n, max(1, n // 50)):
                anywhere += [bool(query & set(label)) for label in graph.labels[source]]
        names = {0: "into the target", 1: "into a parent of the target"}
        for distance, seen in sorted(by_distance.items()):
            share = sum(hit for hit, _ in seen) / len(seen)
            words = statistics.mean(count for _, count in seen)
            name = names.get(distance, f"{distance} links before the target")
            lines.append(f"| {n} | {name} | {share:.2f} | {words:.2f} | {len(seen)} |")
        lines.append(f"| {n} | any link | {sum(anywhere) / max(1, len(anywhere)):.3f} | | {len(anywhere)} |")
    return "\n".join(lines)


def oracle(sizes: list[int], runs: int, seed: str, overrides: dict, budget: int) -> str:
    """Upper bounds on what any finder can do on a generator.

    The label oracle sees every link label of the whole graph for free, ranks the pages by BM25 (k1 = 1.2,
    b = 0.75) of their in-link labels pooled and downloads its top `budget`: "in top" is the share of runs
    whose target is among them, "answered" the share where the answer among them is the target. The topic
    and label oracle also knows the target's topic and takes that topic's pages first. Reading
    every page instead: the best idf-weighted match, and the most likely target under the generator's own
    query model (each query word one of the target's with α, uniform over its distinct words, else a word of
    a random page's text), the best answer any algorithm can give from the query alone."""
    lines = [
        f"| N | runs | label oracle: target in top {budget} | label oracle, answered (most likely) "
        "| topic and label oracle, answered | every page read: best idf match | every page read: most likely |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for n in sizes:
        counts = [0, 0, 0, 0, 0]
        for run in range(runs):
            rng = random.Random(f"{seed}-{n}-{run}")
            params = GraphParameters(n=n, **overrides_at(n, overrides))
            graph = generate(params, rng)
            target = rng.randrange(1, n)
            query = set(make_query(graph, target, params, rng))
            pooled: list[list[str]] = [[] for _ in range(n)]
            for source in range(n):
                for child, label in zip(graph.out[source], graph.labels[source], strict=True):
                    pooled[child] += label
            ranked = _bm25_rank(pooled, query)
            top = [node for node in ranked if node != 0][:budget]
            texts = [set(text) for text in graph.texts]
            df = {term: sum(term in text for text in texts) for term in query}
            idf = {term: math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5)) for term in query}
            # The chance that a word "of another page" is this term: a random page, a random word of it.
            elsewhere = {
                term: max(sum(text.count(term) / len(text) for text in graph.texts) / n, 1e-9)
                for term in query
            }

            def match(node: int, texts: list[set[str]] = texts, idf: dict = idf) -> float:
                return sum(weight for term, weight in idf.items() if term in texts[node])

            # log P(query | target = node) less its value for a node holding no query word.
            odds = {term: params.alpha / ((1 - params.alpha) * chance) for term, chance in elsewhere.items()}

            def likelihood(node: int, texts: list[set[str]] = texts, odds: dict = odds) -> float:
                return sum(
                    math.log(ratio / len(texts[node])) for term, ratio in odds.items() if term in texts[node]
                )

            # Knowing the target's topic too (its subtheme on the LOS hierarchy): that topic's pages first.
            topical = [node for node in ranked if node and graph.topics[node] == graph.topics[target]]
            topical += [node for node in ranked if node and graph.topics[node] != graph.topics[target]]
            counts[0] += target in top
            counts[1] += max([0, *top], key=likelihood) == target
            counts[2] += max([0, *topical[:budget]], key=likelihood) == target
            counts[3] += max(range(n), key=match) == target
            counts[4] += max(range(n), key=likelihood) == target
        lines.append(f"| {n} | {runs} | " + " | ".join(f"{c / runs:.2f}" for c in counts) + " |")
    return "\n".join(lines)


def _bm25_rank(documents: list[list[str]], query: set[str]) -> list[int]:
    """Document indices by BM25 against the query, best first (ties by index)."""
    n = len(documents)
    average = sum(map(len, documents)) / n or 1.0
    df = {term: sum(term in doc for doc in documents) for term in query}
    idf = {term: math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5)) for term in query}
    scores = []
    for index, doc in enumerate(documents):
        score = 0.0
        for term in query:
            tf = doc.count(term)
            if tf:
                score += idf[term] * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(doc) / average))
        scores.append((-score, index))
    return [index for _, index in sorted(scores)]


def noise(p: float, runs: int) -> float:
    """Two standard errors of an accuracy measured over `runs` runs (binomial), floor of one run."""
    return max(2 * math.sqrt(max(p * (1 - p), 0.25 / runs) / runs), 1 / runs)


def paper_row(threshold, row):
    if (threshold, row) in PAPER:
        return PAPER[(threshold, row)]
    for (t, r), figures in PAPER.items():
        if r == row and (threshold is None or t is None):
            return figures
    return None


def table(results: dict, sizes: list[int], thresholds: list[float]) -> str:
    lines = []
    sections = [
        ("no threshold", None, [r for r, _, _ in THRESHOLD_FREE]),
        ("classifiers (every node; the threshold does not enter)", None, [r for r, _, _ in CLASSIFIERS]),
    ]
    sections += [(f"threshold {t}", t, [r for r, _, _ in WITH_THRESHOLD]) for t in thresholds]
    header = "| algorithm | " + " | ".join(f"N={n} paper Ac / D | N={n} ours Ac / D" for n in sizes) + " |"
    rule = "| --- |" + " --- | --- |" * len(sizes)
    for title, threshold, rows in sections:
        lines += ["", f"**{title}**", "", header, rule]
        for row in rows:
            if (threshold, row) not in results:
                continue
            cells = []
            for n in sizes:
                outcomes = results[(threshold, row)].get(n, [])
                if not outcomes:
                    cells += ["", ""]
                    continue
                acc = sum(hit for hit, _ in outcomes) / len(outcomes)
                downloads = statistics.mean(d for _, d in outcomes)
                paper = paper_row(
                    threshold if threshold is not None else (0.25 if row.startswith("HMM") else None), row
                )
                if paper and n in paper:
                    p_acc, p_d = paper[n]
                    mark = (
                        " ≠" if abs(acc - p_acc) > noise(p_acc, len(outcomes)) + noise(p_acc, 150) / 2 else ""
                    )
                    cells.append(f"{p_acc:.2f} / {p_d:g}")
                    cells.append(f"{acc:.2f} / {downloads:.1f}{mark}")
                else:
                    cells += ["—", f"{acc:.2f} / {downloads:.1f}"]
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def set_finder_constant(assignment: str) -> None:
    """NAME=VALUE: one of finder.py's upper-case rules or constants (MODULE.NAME: of another module of
    checks.pagefinding), to the value's type (true/false, a number); ValueError, saying why, for any other name
    or value."""
    name, _, text = assignment.partition("=")
    module_name, _, name = name.rpartition(".")  # "htmlpage.CAMEL_PARTS": another module of the finder's
    try:
        module = importlib.import_module(f"checks.pagefinding.{module_name}") if module_name else finder
    except ImportError:
        raise ValueError(f"--set {assignment}: checks.pagefinding has no module {module_name!r}") from None
    current = getattr(module, name, None) if name.isupper() else None
    if current is None or not isinstance(current, (bool, int, float)):
        raise ValueError(f"--set {assignment}: {module.__name__} has no rule or constant named {name!r}")
    if isinstance(current, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(f"--set {assignment}: {name} is true or false")
        value: bool | float = text.lower() == "true"
    else:
        try:
            value = type(current)(text)
        except ValueError:
            raise ValueError(f"--set {assignment}: {name} is a number") from None
        if not math.isfinite(value):
            raise ValueError(f"--set {assignment}: {name} is a finite number")
    setattr(module, name, value)


def _django() -> None:
    """Django set up: live.py reaches the job models (checks.jobs.inflight imports through checks.jobs)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webaudit.settings")
    import django

    django.setup()


def run_live(ports: list[int], per_site: int, budget: int, algorithms: list[str], seed: int) -> dict:
    """Targets sampled from the test bed's ground truth; the query is the target's title, less the words of
    the site's home title; the search starts at the root with `budget` downloads."""
    _django()
    from checks.pagefinding.live import LiveSettings, LiveSite
    from checks.pagefinding.text import query_terms
    from sites.http import FetchSettings
    from tests.checks.pagefinding.testbed import fetch_title, sample_targets, title_query

    out: dict = {}
    for port in ports:
        home = fetch_title(f"http://127.0.0.1:{port}/")
        for url in sample_targets(port, per_site, seed):
            query = title_query(fetch_title(url), home)
            if not query_terms(query):
                continue
            for name in algorithms:
                env = LiveSite(
                    f"http://127.0.0.1:{port}/",
                    LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0)),
                    max_downloads=budget,
                )
                try:
                    env.open()
                    result = search(
                        env,
                        query_terms(query),
                        name,
                        rng=random.Random(seed),
                        query_text=query,
                        eager_stop=True,
                    )
                finally:
                    env.close()
                hit = result.found is not None and env.final_urls.get(result.found, result.found) == url
                out.setdefault(name, {}).setdefault(port, []).append((hit, result.downloads, url, query))
    return out


def _same_page(a: str, b: str) -> bool:
    """A directory URL and its index.html are one page (the case files name directories)."""

    def key(url: str) -> str:
        url = url.split("#", 1)[0]
        return url[: -len("index.html")] if url.endswith("/index.html") else url

    return key(a) == key(b)


def run_cases(
    path: str,
    budget: int,
    algorithms: list[str],
    seed: int,
    limit: int = 0,
    site_search: bool = True,
    term_index: bool = False,
    symbol_index: bool | None = None,
    give_up: bool | None = None,
) -> dict:
    """Every case of a case file (the shape `pagefinding_cases.py` writes: start, target, query): one search
    per case and algorithm from the case's start, every request counted. {algorithm: {site: [outcome]}},
    an outcome (hit, downloads, target, query, top-3 hit, found, target read)."""
    _django()
    from checks.pagefinding.live import LiveSettings, LiveSite
    from checks.pagefinding.text import query_terms
    from sites.http import FetchSettings

    cases = json.loads(Path(path).read_text())["cases"]
    if limit:
        cases = cases[:limit]
    out: dict = {}
    for case in cases:
        query = case["query"]
        for name in algorithms:
            env = LiveSite(
                case["start"],
                LiveSettings(
                    fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0),
                    use_site_search=site_search,
                    use_term_index=term_index,
                    **({} if symbol_index is None else {"use_symbol_index": symbol_index}),
                    **({} if give_up is None else {"give_up": give_up}),
                ),
                max_downloads=budget,
            )
            try:
                env.open()
                result = search(
                    env, query_terms(query), name, rng=random.Random(seed), query_text=query, eager_stop=True
                )
            finally:
                env.close()
            shown = [env.final_urls.get(node, str(node)) for node, _ in result.candidates]
            found = env.final_urls.get(result.found, str(result.found)) if result.found is not None else None
            hit = found is not None and _same_page(found, case["target"])
            top3 = any(_same_page(url, case["target"]) for url in shown[:3])
            site = case["start"].split("/")[2]
            read = any(
                _same_page(env.final_urls.get(entry.node, str(entry.node)), case["target"])
                for entry in result.log
                if entry.ok
            )
            out.setdefault(name, {}).setdefault(site, []).append(
                (hit, result.downloads, case["target"], query, top3, found, read)
            )
    return out


def cases_table(results: dict) -> str:
    lines = [
        "| algorithm | site | cases | accuracy | top-3 accuracy | median downloads | mean downloads |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, by_site in results.items():
        every = [o for outcomes in by_site.values() for o in outcomes]
        rows = [*by_site.items(), ("all", every)] if len(by_site) > 1 else list(by_site.items())
        for site, outcomes in rows:
            acc = sum(o[0] for o in outcomes) / len(outcomes)
            top3 = sum(o[4] for o in outcomes) / len(outcomes)
            downloads = [o[1] for o in outcomes]
            lines.append(
                f"| {name} | {site} | {len(outcomes)} | {acc:.2f} | {top3:.2f} | "
                f"{statistics.median(downloads):g} | {statistics.mean(downloads):.1f} |"
            )
    return "\n".join(lines)


def live_table(results: dict) -> str:
    lines = [
        "| algorithm | site | targets | accuracy | median downloads | mean downloads |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, by_port in results.items():
        every = [o for outcomes in by_port.values() for o in outcomes]
        for port, outcomes in [*by_port.items(), ("all", every)]:
            acc = sum(o[0] for o in outcomes) / len(outcomes)
            downloads = [o[1] for o in outcomes]
            lines.append(
                f"| {name} | {port} | {len(outcomes)} | {acc:.2f} | {statistics.median(downloads):g} | "
                f"{statistics.mean(downloads):.1f} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--runs", type=int, default=150, help="runs per cell (the paper's 150)")
    parser.add_argument("--thresholds", default="0.25,0.75")
    parser.add_argument("--skip", default="", help="rows or algorithms to leave out, comma-separated")
    parser.add_argument("--only", default="", help="run only these rows or algorithms, comma-separated")
    parser.add_argument(
        "--feedback",
        type=float,
        default=finder.FEEDBACK,
        help=f"BESTFIRST's relevance-feedback weight (default {finder.FEEDBACK}: off; docs/pagefinding.md)",
    )
    parser.add_argument("--seed", default="1")
    parser.add_argument("--params", default="", help="generator overrides, e.g. text_copy=0.5,sections=true")
    parser.add_argument(
        "--generator",
        choices=sorted(GENERATORS),
        default="default",
        help="a named generator reading (docs/pagefinding.md); --params applies on top of it",
    )
    parser.add_argument(
        "--reading",
        default="",
        help="a reading of the lost sheep's open steps, e.g. sheep_start=middle,sheep_clock=herd,"
        "stop_sum=survivors (docs/pagefinding.md)",
    )
    parser.add_argument("--live", action="store_true", help="the test bed's documentation sites instead")
    parser.add_argument(
        "--cases",
        help="with --live: a case file (pagefinding_cases.py's shape) instead of title queries on --ports",
    )
    parser.add_argument("--limit", type=int, default=0, help="with --cases: only the first N cases")
    parser.add_argument("--verbose", action="store_true", help="with --cases: one line per case")
    parser.add_argument(
        "--no-site-search",
        action="store_true",
        help="with --cases: do not use the site's search (its index or form): a site without one",
    )
    parser.add_argument(
        "--term-index",
        action="store_true",
        help='with --cases: read the site\'s term index page (its "Index" link) as an index (off by default)',
    )
    parser.add_argument(
        "--symbol-index",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with --cases: read (or not) the symbol index of a Javadoc or Doxygen site (default: the setting's)",
    )
    parser.add_argument(
        "--give-up",
        action=argparse.BooleanOptionalAction,
        default=None,
        help='with --cases: answer "not found" before the budget when reading on looks vain (default: the setting\'s)',
    )
    parser.add_argument("--ports", default="8101,8102,8103")
    parser.add_argument("--per-site", type=int, default=30)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--algorithms", default="BESTFIRST,LS2F,SIM")
    parser.add_argument(
        "--json",
        help='write {"rows": [{"algorithm", "threshold", "n", "runs", "accuracy", "downloads"}]} here (--live: the outcomes)',
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one of the finder's rules or constants for this run (--set ABOUT_TO_STOP=false): ablations",
    )
    parser.add_argument("--trail", action="store_true", help="what the links on the path to the target tell")
    parser.add_argument(
        "--oracle", action="store_true", help="upper bounds: a finder that sees every link label for free"
    )
    args = parser.parse_args()
    overrides = {**GENERATORS[args.generator], **parse_params(args.params)}
    finder.FEEDBACK = args.feedback
    for assignment in args.set:
        try:
            set_finder_constant(assignment)
        except ValueError as refused:
            parser.error(str(refused))
    started = time.monotonic()
    if args.trail:
        sizes = [int(n) for n in args.sizes.split(",")]
        print(trail(sizes, args.runs, args.seed, overrides))
        return
    if args.oracle:
        sizes = [int(n) for n in args.sizes.split(",")]
        print(oracle(sizes, args.runs, args.seed, overrides, args.budget))
        return
    if args.live and args.cases:
        results = run_cases(
            args.cases,
            args.budget,
            args.algorithms.split(","),
            int(args.seed),
            args.limit,
            site_search=not args.no_site_search,
            term_index=args.term_index,
            symbol_index=args.symbol_index,
            give_up=args.give_up,
        )
        if args.verbose:
            for name, by_site in results.items():
                for outcomes in by_site.values():
                    for hit, downloads, target, query, top3, found, read in outcomes:
                        mark = "hit" if hit else ("top3" if top3 else ("read" if read else "MISS"))
                        print(f"{name} {mark:4} {downloads:3} {query!r} {target} -> {found}")
        print(cases_table(results))
        raw = {name: by_site for name, by_site in results.items()}
    elif args.live:
        results = run_live(
            [int(p) for p in args.ports.split(",")],
            args.per_site,
            args.budget,
            args.algorithms.split(","),
            int(args.seed),
        )
        print(live_table(results))
        raw = {name: {str(p): o for p, o in by_port.items()} for name, by_port in results.items()}
    else:
        sizes = [int(n) for n in args.sizes.split(",")]
        thresholds = [float(t) for t in args.thresholds.split(",")]
        results = run_generated(
            sizes,
            args.runs,
            thresholds,
            args.seed,
            set(filter(None, args.skip.split(","))) | _all_but(set(filter(None, args.only.split(",")))),
            overrides,
            dict(item.split("=", 1) for item in filter(None, args.reading.split(","))),
        )
        print(table(results, sizes, thresholds))
        raw = {"rows": json_rows(results)}
    print(f"\n{time.monotonic() - started:.0f} s; load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(raw))


if __name__ == "__main__":
    main()
