"""Content Extract generation, deserialization and size over every page of the test bed's sites, beside the
MWIM paper's figures (Hassan & Hussain, §X: 350.77 ms to generate, 5.47 ms to deserialize, CE 33.5% of HTML).

    .venv/bin/python benchmarks/mwim.py [--repeat 3] [--json out.json] [--limit N]

The pages are the files the test bed serves (`../shared/testbed/README.md`): the python, postgres and django
documentation trees and the parked page, each read from disk once, so that the figures are the extractor's and
not the network's. Generation is what a crawl's page reader does for a page: parse the bytes with the crawl's
parser, build the extract, encode it (the paper's parsing, information collection and serialization stages).
Deserialization is `mwim.ce.decode` of the file. Each page is timed `--repeat` times and its fastest time kept
(the machine is shared: the minimum is the page's cost, the rest is other people's work). Figures:
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mwim.ce import content_extract_build, decode, encode  # noqa: E402
from sites.crawler.parse import parse_document  # noqa: E402

TREES = {
    "python (8101, 8104, 8105)": ("http://127.0.0.1:8101/", Path("/usr/share/doc/python3.11/html")),
    "postgres (8102, 8107)": ("http://127.0.0.1:8102/", Path("/usr/share/doc/postgresql-doc-15/html")),
    "django (8103)": ("http://127.0.0.1:8103/", Path("/usr/share/doc/python-django-doc/html")),
}
PAPER = {"generation_ms": 350.77, "deserialization_ms": 5.47, "size_ratio": 0.335}


def _parked() -> Path:
    for folder in (ROOT.parent / "shared" / "testbed", Path("/work/shared/testbed")):
        if (folder / "parked.html").exists():
            return folder / "parked.html"
    raise SystemExit("the test bed's folder (../shared/testbed) is missing")


def pages(limit: int | None) -> list[tuple[str, bytes]]:
    found = []
    for base, folder in TREES.values():
        if not folder.is_dir():
            raise SystemExit(f"{folder} is missing: install the test bed (../shared/testbed/serve start)")
        for path in sorted(folder.rglob("*.html")):
            if path.is_file():
                found.append((base + path.relative_to(folder).as_posix(), path.read_bytes()))
    found.append(("http://127.0.0.1:8106/", _parked().read_bytes()))
    return found[:limit] if limit else found


def measure(url: str, body: bytes, repeat: int) -> dict:
    generation, deserialization = [], []
    data = b""
    for _ in range(repeat):
        started = time.perf_counter()
        root, _ = parse_document(body)
        data = encode(content_extract_build(root, url=url, body=body))
        generation.append(time.perf_counter() - started)
        started = time.perf_counter()
        decode(data)
        deserialization.append(time.perf_counter() - started)
    return {
        "url": url,
        "html_bytes": len(body),
        "ce_bytes": len(data),
        "html_gzip_bytes": len(gzip.compress(body, 6)),
        "generation_ms": min(generation) * 1000,
        "deserialization_ms": min(deserialization) * 1000,
    }


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def summary(rows: list[dict]) -> dict:
    generation = [row["generation_ms"] for row in rows]
    deserialization = [row["deserialization_ms"] for row in rows]
    ratios = [row["ce_bytes"] / row["html_bytes"] for row in rows]
    html, ce = sum(row["html_bytes"] for row in rows), sum(row["ce_bytes"] for row in rows)
    return {
        "pages": len(rows),
        "generation_ms": {"median": statistics.median(generation), "p95": percentile(generation, 0.95),
                          "mean": statistics.fmean(generation)},
        "deserialization_ms": {"median": statistics.median(deserialization),
                               "p95": percentile(deserialization, 0.95), "mean": statistics.fmean(deserialization)},
        "size_ratio": {"median": statistics.median(ratios), "p95": percentile(ratios, 0.95),
                       "overall": ce / html},
        "html_bytes": html,
        "ce_bytes": ce,
        "html_gzip_bytes": sum(row["html_gzip_bytes"] for row in rows),
        "savings_bytes": html - ce,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages (a quick look)")
    parser.add_argument("--json", help="write every page's figures and the summary to this file")
    args = parser.parse_args()
    corpus = pages(args.limit)
    measure(*corpus[0], 1)  # loads the stop words and the stemmer, as a reader does once for its life
    rows = [measure(url, body, args.repeat) for url, body in corpus]
    result = {"summary": summary(rows), "by_site": {}, "paper": PAPER}
    for name, (base, _) in TREES.items():
        site_rows = [row for row in rows if row["url"].startswith(base)]
        if site_rows:
            result["by_site"][name] = summary(site_rows)
    total = result["summary"]
    print(f"{total['pages']} pages, {total['html_bytes']:,} bytes of HTML")
    print(f"{'':28}{'median':>10}{'p95':>10}{'mean':>10}{'paper':>10}")
    for key, label in (("generation_ms", "generation (ms)"), ("deserialization_ms", "deserialization (ms)")):
        row = total[key]
        print(f"{label:28}{row['median']:10.2f}{row['p95']:10.2f}{row['mean']:10.2f}{PAPER[key]:10.2f}")
    ratio = total["size_ratio"]
    print(
        f"{'CE / HTML size':28}{ratio['median']:10.1%}{ratio['p95']:10.1%}{ratio['overall']:>10.1%}{0.335:10.1%}"
    )
    print(
        f"(overall = all CE bytes / all HTML bytes; gzip of the HTML: {total['html_gzip_bytes'] / total['html_bytes']:.1%})"
    )
    for name, site in result["by_site"].items():
        print(f"  {name}: {site['pages']} pages, generation median {site['generation_ms']['median']:.2f} ms, "
              f"size median {site['size_ratio']['median']:.1%}")  # fmt: skip
    if args.json:
        result["pages"] = rows
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
