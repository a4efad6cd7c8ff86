"""Mean F1 over every (type, template) run of benchmarks/structure.py's labelled types, the shipped default
(feedback) beside the linkage rule: what a user with one template gets on average, tails included
(structure.py's figure is the median over a type's templates).

    .venv/bin/python benchmarks/structure_tails.py        # about 5 minutes: the 13 sites of structure.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import structure as B  # noqa: E402
from checks.structure.extract import dom_keys  # noqa: E402
from sites.crawler.parse import parse_document  # noqa: E402

RULES = (("default", "feedback"), ("default", "linkage"))


def f1(run) -> float:
    return 0.0 if run.pr + run.rr == 0 else 2 * run.pr * run.rr / (run.pr + run.rr)


def main() -> None:
    postgres = B.fetch_site()
    sites = {
        name: postgres if name == "postgres" else B.fetch_any_site(*where)
        for name, where in B.SITES.items()
        if where[1].is_dir()
    }
    blobs = {
        name: {url: dom_keys(parse_document(body)[0], url=url, body=body) for url, body in pages.items()}
        for name, pages in sites.items()
    }
    runs_of: dict[tuple[str, str], dict[str, list[float]]] = {rule: {} for rule in RULES}
    worst_of: dict[tuple[str, str], list[float]] = {rule: [] for rule in RULES}
    for site, pages in sites.items():
        for targets in B.site_type_targets(site, pages).values():
            runs = B.type_runs(blobs[site], targets)
            for rule in RULES:
                scores = [f1(run) for run in runs.get(rule, [])]
                if scores:
                    runs_of[rule].setdefault(site, []).extend(scores)
                    worst_of[rule].append(min(scores))
    for rule in RULES:
        every = [score for scores in runs_of[rule].values() for score in scores]
        by_site = {site: round(statistics.mean(scores), 3) for site, scores in runs_of[rule].items()}
        print(
            f"{rule[1]}: mean F1 over all runs {statistics.mean(every):.3f}; mean of each type's worst template "
            f"{statistics.mean(worst_of[rule]):.3f}; by site {by_site}"
        )


if __name__ == "__main__":
    main()
