"""What the words of a case set allow: every page of each site read for free (the case maker's own reading of
its tree, every .html file) and ranked by BM25 for the case's query, as issue 19's reference finder does ("a
finder that downloads every page of the site and ranks them by BM25 answers 0.875 of the unseen cases").

    .venv/bin/python benchmarks/pagefinding_ceiling.py /work/hs/cases/pandas.json [/work/hs/cases/*.json]

Prints, per case file and over all of them, the share of cases whose target this ranking puts first and among
its first three, and how many pages tie with the target (score within 1e-9: pages a ranking by words cannot
tell apart, such as pandas' per-offset method pages; a tie counts as broken at random). A finder that reads a few dozen pages cannot beat this
ranking on top-3 unless it weighs what the words do not say (titles, URLs, links); the gap between the
finder's figure and this one is what reach costs.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import math
import os
import sys
from pathlib import Path

TESTBED = Path(os.environ.get("WEBAUDIT_TESTBED", "/work/shared/testbed"))
K1, B = 1.2, 0.75


def load_case_maker():
    spec = importlib.util.spec_from_file_location("pagefinding_cases", TESTBED / "pagefinding_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SiteRanking:
    """Every page of one tree, as BM25 over the case maker's words of it."""

    def __init__(self, maker, root: str) -> None:
        site = maker.parse_site(root)
        self.pages = list(site)
        self.counts = [collections.Counter(words) for _, words in site.values()]
        self.lengths = [len(words) for _, words in site.values()]
        self.average = sum(self.lengths) / max(1, len(self.lengths))
        self.df = collections.Counter(word for counts in self.counts for word in counts)
        common = {w for w, c in self.df.items() if c > maker.MAX_DF * len(self.pages)}
        # Each page's own words, most frequent first, as the case maker ranks them (site-common words left out).
        self.own = [
            {
                w: rank
                for rank, (w, _) in enumerate(
                    sorted(
                        ((w, n) for w, n in counts.items() if w not in common), key=lambda kv: (-kv[1], kv[0])
                    )
                )
            }
            for counts in self.counts
        ]

    def own_scores(self, query: list[str]) -> list[float]:
        """How far the query is the page's own most frequent words: each query word among its len(query) first
        counts 1, a BM25 share below 1 breaks ties (the query was made this way from its target)."""
        bm25 = self.scores(query)
        top = max(bm25, default=0.0) or 1.0
        size = len(query)
        return [
            sum(1 for w in query if own.get(w, size) < size) + score / top / 2
            for own, score in zip(self.own, bm25, strict=True)
        ]

    def scores(self, query: list[str]) -> list[float]:
        n = len(self.pages)
        idf = {w: math.log(1 + (n - self.df[w] + 0.5) / (self.df[w] + 0.5)) for w in query}
        out = []
        for counts, length in zip(self.counts, self.lengths, strict=True):
            norm = K1 * (1 - B + B * length / max(1.0, self.average))
            out.append(sum(idf[w] * counts[w] * (K1 + 1) / (counts[w] + norm) for w in query if counts[w]))
        return out


def page_path(maker, root: str, url: str) -> str | None:
    from urllib.parse import urlsplit

    return maker.page_of(root, urlsplit(url).path or "/")


def measure(maker, case_file: Path, rankings: dict[str, SiteRanking]) -> list[dict]:
    data = json.loads(case_file.read_text())
    roots = {site["base"]: site["root"] for site in data["sites"]}
    rows = []
    for case in data["cases"]:
        base = next(b for b in roots if case["target"].startswith(b))
        root = roots[base]
        if root not in rankings:
            rankings[root] = SiteRanking(maker, root)
        ranking = rankings[root]
        target = page_path(maker, root, case["target"])
        query = case["query"].split()
        row = {}
        for name, scores in (("bm25", ranking.scores(query)), ("own", ranking.own_scores(query))):
            mine = scores[ranking.pages.index(target)] if target in ranking.pages else -1.0
            above = sum(1 for s in scores if s > mine + 1e-9)
            ties = sum(1 for s in scores if abs(s - mine) <= 1e-9) - 1
            # Ties broken at random: first with chance 1 / (ties + 1), among three with (3 - above) / (ties + 1).
            row[name] = {
                "first": 1 / (ties + 1) if above == 0 else 0.0,
                "top3": min(1.0, (3 - above) / (ties + 1)) if above < 3 else 0.0,
                "ties": ties,
            }
        rows.append(row)
    return rows


def line(name: str, rows: list[dict]) -> str:
    n = len(rows)
    parts = []
    for ranking in ("bm25", "own"):
        first = sum(r[ranking]["first"] for r in rows) / n
        top3 = sum(r[ranking]["top3"] for r in rows) / n
        tied = sum(1 for r in rows if r[ranking]["ties"]) / n
        parts.append(f"{ranking} {first:.3f} / {top3:.3f} (tied {tied:.2f})")
    return f"{name:14} " + "   ".join(parts) + f"   ({n} cases)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="+", type=Path)
    args = parser.parse_args()
    maker = load_case_maker()
    everything: list[dict] = []
    for case_file in args.cases:
        if not case_file.is_file():
            print(f"pagefinding_ceiling: no case file {case_file}", file=sys.stderr)
            sys.exit(2)
        try:
            rows = measure(maker, case_file, {})
        except (OSError, ValueError, KeyError, TypeError, StopIteration) as error:
            # A file that is not a case file (broken JSON, no sites, a target on no site it names): refused whole.
            print(f"pagefinding_ceiling: {case_file}: not a case file ({error!r})", file=sys.stderr)
            sys.exit(2)
        everything += rows
        print(line(case_file.stem, rows), flush=True)
    if len(args.cases) > 1:
        print(line("all", everything))


if __name__ == "__main__":
    main()
