"""Structural filtering (MFPSDDP) and page types on the test bed's postgres docs: speed and PR/RR.

    .venv/bin/python benchmarks/structure.py --templates 31 --json /tmp/structure.json

Fetches every page of the test bed's postgres docs (127.0.0.1:8102, the pages of its document tree), then:
- the crawl-time extraction (`dom_keys`, parse excluded, in ms of CPU a page; the parse alone beside it), on
  these pages and on the python docs' (127.0.0.1:8101), which are bigger;
- the filter over stored extracts, decode included, on one core: seconds per 1,000 pages for one template and
  for five (the paper's Java: 19.7 s per 1,000 pages, parse included);
- page-type discovery of 10,000 pages (the site's pages copied with one key dropped at random, so that no
  two are the same);
- PR and RR (Formulas 2 and 3) with the target set known from the pages themselves: the reference pages
  (`<div class="refentry">`, 307 of them), each of `--templates` reference pages in turn as the one template,
  for the default method (threshold calibrated from the score distribution), CSR at 0.2 and RPSA at 0.4 (the
  paper's), and each relation at its best threshold by §3.3 (labels known). Medians and minima are printed.
Figures and their reading: docs/benchmarks.md and docs/structure.md.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checks.structure import similarity as S  # noqa: E402
from checks.structure.extract import decode, dom_keys  # noqa: E402
from checks.structure.pagetypes import page_types  # noqa: E402
from sites.crawler.parse import parse_document  # noqa: E402

BASE = "http://127.0.0.1:8102/"
DOCROOT = Path("/usr/share/doc/postgresql-doc-15/html")
# The python docs' pages are bigger (~2,000 elements against ~800): the extraction is timed on them too.
PYTHON_BASE = "http://127.0.0.1:8101/"
PYTHON_DOCROOT = Path("/usr/share/doc/python3.11/html")
TARGET_MARK = b'class="refentry"'


def fetch_site(base: str = BASE, docroot: Path = DOCROOT) -> dict[str, bytes]:
    """Every page of a test-bed site's document tree, fetched from the test bed."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    pages = {}
    for path in sorted(docroot.rglob("*.html")):
        url = base + path.relative_to(docroot).as_posix()
        with opener.open(url, timeout=10) as reply:
            pages[url] = reply.read()
    return pages


def time_extraction(bodies: dict[str, bytes]) -> dict:
    roots = {}
    started = time.process_time()
    for url, body in bodies.items():
        roots[url] = parse_document(body)[0]
    parse = time.process_time() - started
    started = time.process_time()
    blobs = {url: dom_keys(root, url=url, body=bodies[url]) for url, root in roots.items()}
    extract = time.process_time() - started
    n = len(bodies)
    return {
        "blobs": blobs,
        "parse_ms_per_page": 1000 * parse / n,
        "extract_ms_per_page": 1000 * extract / n,
        "extract_bytes_per_page": statistics.mean(len(b) for b in blobs.values()),
        "body_bytes_per_page": statistics.mean(len(b) for b in bodies.values()),
    }


def filter_scores(blobs: dict[str, bytes], templates: list[str], relation: str | None) -> dict[str, float]:
    """What a filter job does over stored extracts: decode, key, compare with every template."""
    doms = {url: decode(blob) for url, blob in blobs.items()}
    method = S.method_for(relation)
    keyer = S.Keyer(method, common=S.common_values(doms.values()) if method.needs_frequencies else None)
    sequences = {url: keyer.keys(dom) for url, dom in doms.items()}
    score = keyer.scorer([sequences[url] for url in templates])
    return {url: score(sequence) for url, sequence in sequences.items()}


def time_filter(blobs: dict[str, bytes], templates: list[str], repeat: int = 3) -> float:
    runs = []
    for _ in range(repeat):
        # CPU time of this process: the machine is shared, and the goal is about one core's work.
        started = time.process_time()
        filter_scores(blobs, templates, None)
        runs.append(time.process_time() - started)
    return 1000 * statistics.median(runs) / len(blobs)


def time_page_types(blobs: dict[str, bytes], total: int = 10_000) -> tuple[float, int]:
    doms = [decode(blob) for blob in blobs.values()]
    keyer = S.Keyer(S.method_for(None), common=S.common_values(doms))
    base = [keyer.keys(dom) for dom in doms]
    rng = random.Random(1)
    sequences = {}
    for n in range(total):
        sequence = list(base[n % len(base)])
        if len(sequence) > 2:
            del sequence[rng.randrange(len(sequence))]
        sequences[n] = sequence
    started = time.process_time()
    types = page_types(sequences)
    return time.process_time() - started, len(types)


def accuracy_table(blobs: dict[str, bytes], targets: set[str], templates: list[str]) -> dict:
    rows: dict[str, list[dict]] = {}
    for template in templates:
        table = {}
        for relation in ("default", "csr", "rpsa", "rsn"):
            scores = filter_scores(blobs, [template], relation)
            others = {url: s for url, s in scores.items() if url != template}
            if relation == "default":
                threshold = S.calibrated_threshold(list(others.values()), _chance(blobs, template))
            else:
                threshold = S.PAPER_THRESHOLDS[relation]
            row = S.accuracy(others, targets - {template}, threshold, relation=relation)
            rows.setdefault(f"{relation} (as shipped)", []).append(row.as_dict())
            table[relation] = others
        non_targets = set(blobs) - targets
        for row in S.select_relation(table, targets - {template}, non_targets):
            rows.setdefault(f"{row.relation} (§3.3 best threshold)", []).append(row.as_dict())
    summary = {}
    for name, values in rows.items():
        pr = [v["PR"] for v in values]
        rr = [v["RR"] for v in values]
        th = [v["threshold"] for v in values]
        summary[name] = {
            "PR median": statistics.median(pr),
            "PR min": min(pr),
            "RR median": statistics.median(rr),
            "RR min": min(rr),
            "threshold median": statistics.median(th),
            "templates": len(values),
        }
    return summary


def _chance(blobs: dict[str, bytes], template: str) -> float:
    doms = {url: decode(blob) for url, blob in blobs.items()}
    keyer = S.Keyer(S.method_for(None), common=S.common_values(doms.values()))
    sequences = {url: keyer.keys(dom) for url, dom in doms.items()}
    return S.chance_level([sequences[template]], list(sequences.values()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--templates", type=int, default=31, help="reference pages tried as the template")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = parser.parse_args(argv)
    try:
        bodies = fetch_site()
    except OSError as exc:
        print(f"the test bed is not answering ({exc}); start it with ../shared/testbed/serve start")
        return 2
    targets = {url for url, body in bodies.items() if TARGET_MARK in body}
    print(f"{len(bodies)} pages fetched from {BASE}, {len(targets)} reference pages (the target set)")
    figures = time_extraction(bodies)
    blobs = figures.pop("blobs")
    python = time_extraction(fetch_site(PYTHON_BASE, PYTHON_DOCROOT))
    python.pop("blobs")
    figures.update({f"python_docs_{name}": value for name, value in python.items()})
    for name, value in figures.items():
        print(f"{name:40s} {value:10.3f}")
    reference = sorted(targets)
    for count in (1, 5):
        chosen = reference[:: max(1, len(reference) // count)][:count]
        figures[f"filter_s_per_1000_pages_{count}_template"] = seconds = time_filter(blobs, chosen)
        print(f"filter, {count} template(s): {seconds:.3f} s per 1,000 pages (decode included, one core)")
    seconds, types = time_page_types(blobs)
    figures["page_types_10000_pages_s"] = seconds
    print(f"page types of 10,000 pages: {seconds:.2f} s, {types} types")
    step = max(1, len(reference) // args.templates)
    summary = accuracy_table(blobs, targets, reference[::step][: args.templates])
    figures["accuracy"] = summary
    print(f"\n{'method':34s} {'PR med':>7s} {'PR min':>7s} {'RR med':>7s} {'RR min':>7s} {'thr med':>7s}")
    for name, row in summary.items():
        print(
            f"{name:34s} {row['PR median']:7.3f} {row['PR min']:7.3f} {row['RR median']:7.3f}"
            f" {row['RR min']:7.3f} {row['threshold median']:7.2f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
