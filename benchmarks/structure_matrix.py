"""The default's page types in seconds: every site's full matrix of the default's similarities, kept on disk,
and the feedback rule and its measured variants scored over it, leave-one-site-out (issue 23, eleventh session).

    .venv/bin/python benchmarks/structure_matrix.py                 # first run ~1 min (the matrices), then ~1 min
    .venv/bin/python benchmarks/structure_matrix.py --types          # and each type's median PR / RR per candidate
    .venv/bin/python benchmarks/structure_matrix.py --only feedback,linkage

`benchmarks/structure.py --parts types` scores every candidate afresh (5 min for 13 sites). The default's similarity
between two pages depends only on the two pages and the crawl's key weights, and every rule of the default (the
feedback rule's nearest pages, its mean over templates, the linkage rule's samples) reads only such similarities,
so one matrix a site (the pairs of its ≤ 1,200 pages: 1-10 s a site) serves every rule: a page's score against
a template is a row of it, against several templates the mean of their rows. The chance level still shuffles the
real sequences. The figures equal `structure.py`'s to the third decimal (the feedback rule: 0.804 over 59 types,
27 meeting PR and RR >= 0.9, the tails 0.774). Candidates: benchmarks/structure_variants.py.

The matrices are kept in `var/structure-matrix/` (`--cache DIR`), one pickle a site; delete them when a site's
Debian package or the default's keys change.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import structure as B  # noqa: E402
from benchmarks.structure_variants import CANDIDATES, Run  # noqa: E402
from checks.structure import similarity as S  # noqa: E402
from checks.structure.extract import decode, dom_keys  # noqa: E402
from checks.structure.lcs import WeightedLCS  # noqa: E402
from sites.crawler.parse import parse_document  # noqa: E402

SHIPPED = "feedback"
CEILING = "ceiling (labels)"
FED_BACK_CEILING = "ceiling (labels), fed-back scores"
GOAL = 0.9


def site_matrix(site: str, cache: Path) -> dict:
    """The site's pages (URLs, key sequences, key weights), its labelled types, its background similarity and
    the matrix of the default's similarity between every two of its pages; read from `cache` when there."""
    path = cache / f"{site}.pickle"
    if path.exists():
        return pickle.loads(path.read_bytes())
    base, docroot = B.SITES[site]
    bodies = B.fetch_site() if site == "postgres" else B.fetch_any_site(base, docroot)
    doms = {
        url: decode(dom_keys(parse_document(body)[0], url=url, body=body)) for url, body in bodies.items()
    }
    keyer = S.Keyer(S.method_for("default"), common=S.common_values(doms.values()))
    by_url = keyer.keyed(doms)
    urls = list(by_url)
    sequences = [by_url[url] for url in urls]
    matrix = np.zeros((len(urls), len(urls)))
    for i, sequence in enumerate(sequences):
        lcs = WeightedLCS(sequence, keyer.weights)
        for j in range(i, len(urls)):
            matrix[i, j] = matrix[j, i] = lcs.similarity(sequences[j])
    data = {
        "urls": urls,
        "sequences": sequences,
        "weights": keyer.weights,
        "matrix": matrix,
        "types": {name: sorted(pages) for name, pages in B.site_type_targets(site, bodies).items()},
        # As structure.type_runs draws it: over the sequences in the crawl's order.
        "background": S.background_similarity(sequences, keyer.pair_similarity()),
    }
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(data))
    return data


def type_templates(urls: list[str]) -> list[str]:
    """The templates structure.type_runs tries: TYPE_TEMPLATES spread over the type's URLs in sorted order."""
    ordered = sorted(urls)
    return ordered[:: max(1, len(ordered) // B.TYPE_TEMPLATES)][: B.TYPE_TEMPLATES]


def score_runs(
    sites: dict[str, dict], candidates: dict[str, Callable]
) -> dict[tuple[str, str], dict[str, list[S.Accuracy]]]:
    """(site, type) -> candidate -> one Accuracy per template, as structure.type_runs; plus the ceilings: the best
    threshold by the type's labels over the template's own scores, and over the shipped rule's fed-back scores."""
    runs: dict[tuple[str, str], dict[str, list[S.Accuracy]]] = {}
    for site, data in sites.items():
        position = {url: i for i, url in enumerate(data["urls"])}
        for name, urls in data["types"].items():
            targets = {position[url] for url in urls}
            for template in type_templates(urls):
                run = Run(data, position[template])
                others = targets - {run.template}
                row = runs.setdefault((site, name), {})
                for candidate, rule in candidates.items():
                    scores, cut = rule(run)
                    selected = dict(zip(run.pages, scores, strict=True))
                    row.setdefault(candidate, []).append(S.accuracy(selected, others, cut))
                    if candidate == SHIPPED:
                        # What a cut could do on the fed-back scores: their best threshold by labels.
                        best = S.best_threshold(selected, others, set(selected) - others)
                        row.setdefault(FED_BACK_CEILING, []).append(best)
                scores = dict(zip(run.pages, run.scores, strict=True))
                best = S.best_threshold(scores, others, set(scores) - others)
                row.setdefault(CEILING, []).append(best)
    return runs


def _median(rows: list[S.Accuracy], what: str) -> float:
    return statistics.median(getattr(row, what) for row in rows)


def meets_goal(rows: list[S.Accuracy]) -> bool:
    return _median(rows, "pr") >= GOAL and _median(rows, "rr") >= GOAL


def figures(runs: dict, candidate: str, sites: list[str] | None = None) -> dict:
    """Mean F1 of the per-type medians (all types, and site by site), the types meeting the goal, and the tails:
    the mean F1 over every run and the mean over types of the worst template's."""
    keys = [key for key in runs if sites is None or key[0] in sites]
    by_site: dict[str, list[float]] = {}
    for site, name in keys:
        by_site.setdefault(site, []).append(_median(runs[(site, name)][candidate], "f1"))
    every = [row.f1 for key in keys for row in runs[key][candidate]]
    return {
        "types": statistics.mean(f for values in by_site.values() for f in values),
        "goal": sum(meets_goal(runs[key][candidate]) for key in keys),
        "tails": statistics.mean(every),
        "worst": statistics.mean(min(row.f1 for row in runs[key][candidate]) for key in keys),
        "by_site": {site: statistics.mean(values) for site, values in by_site.items()},
    }


def leave_one_site_out(runs: dict, names: list[str], site_names: list[str]) -> list[dict]:
    """For each site: the candidate with the best mean F1 over the other sites' types, and its figures on the
    held-out site's types."""
    folds = []
    for site in site_names:
        others = [other for other in site_names if other != site]
        chosen = max(names, key=lambda name: (figures(runs, name, others)["types"], name == SHIPPED))
        held = figures(runs, chosen, [site])
        folds.append({"site": site, "chosen": chosen, **held})
    return folds


def losses(runs: dict, candidate: str = SHIPPED, margin: float = 0.05) -> dict:
    """Where `candidate` loses F1 against the best threshold by labels (by more than `margin`), run by run: with
    its cut above the best one (recall lost) or below it (precision lost)."""
    tally = {"above": [0, 0.0], "below": [0, 0.0]}
    for row in runs.values():
        for got, best in zip(row[candidate], row[CEILING], strict=True):
            if best.f1 - got.f1 > margin:
                side = tally["above" if got.threshold > best.threshold else "below"]
                side[0] += 1
                side[1] += best.f1 - got.f1
    return {"runs": sum(len(row[candidate]) for row in runs.values()), **tally}


# Types that look like two layouts under one label (docs/benchmarks.md, session 11), and pairs of labels that
# look like one layout: each split in two by 2-medoids over the default's similarity (`a|b`: the two labels).
LAYOUTS = (
    ("junit4", "class-use pages"),
    ("commons-lang3", "class-use pages"),
    ("pytest", "release announcements"),
    ("celery", "API reference pages"),
    ("xerces-c", "header file pages"),
    ("gio", "class pages"),
    ("gio", "class pages|function-group pages"),
    ("pango", "method pages|function pages"),
)


def _within(matrix: np.ndarray, pages: list[int]) -> float:
    block = matrix[np.ix_(pages, pages)]
    return float((block.sum() - np.trace(block)) / (len(pages) * (len(pages) - 1)))


def two_medoids(matrix: np.ndarray, pages: list[int]) -> tuple[list[int], list[int]]:
    """The pages in two groups around two medoids (distance 1 − similarity), from the most central page and the
    page farthest from it."""
    distance = 1 - matrix[np.ix_(pages, pages)]
    medoids = [int(np.argmin(distance.sum(axis=1)))]
    medoids.append(int(np.argmax(distance[medoids[0]])))
    for _ in range(50):
        second = distance[:, medoids[1]] < distance[:, medoids[0]]
        groups = [np.flatnonzero(~second), np.flatnonzero(second)]
        moved = [int(g[np.argmin(distance[np.ix_(g, g)].sum(axis=1))]) for g in groups]
        if moved == medoids:
            break
        medoids = moved
    return [pages[i] for i in groups[0]], [pages[i] for i in groups[1]]


def layouts(sites: dict[str, dict]) -> list[dict]:
    """For each of LAYOUTS: the two groups' sizes, their own mean similarity over pairs (W), the mean across them,
    the site's background, and the distinct key sequences in each group."""
    rows = []
    for site, names in LAYOUTS:
        if site not in sites:
            continue
        data = sites[site]
        matrix, position = data["matrix"], {url: i for i, url in enumerate(data["urls"])}
        variants: list[S.Accuracy] = []
        if "|" in names:
            groups = [[position[url] for url in data["types"][name]] for name in names.split("|")]
        else:
            groups = list(two_medoids(matrix, [position[url] for url in data["types"][names]]))
            # The shipped rule's templates of the type, each scored against its own group, not the type.
            for template in type_templates(data["types"][names]):
                run = Run(data, position[template])
                own = next(set(group) for group in groups if run.template in group) - {run.template}
                scores, cut = CANDIDATES[SHIPPED](run)
                variants.append(S.accuracy(dict(zip(run.pages, scores, strict=True)), own, cut))
        rows.append(
            {
                "type": f"{site} / {names}",
                "sizes": [len(group) for group in groups],
                "within": [round(_within(matrix, group), 2) for group in groups],
                "across": round(float(matrix[np.ix_(groups[0], groups[1])].mean()), 2),
                "background": round(data["background"], 2),
                "structures": [len({tuple(data["sequences"][i]) for i in group}) for group in groups],
                "examples": [data["urls"][group[0]].rsplit("/", 1)[-1] for group in groups],
                "against its group": (
                    f"{_median(variants, 'pr'):.2f} / {_median(variants, 'rr'):.2f}" if variants else ""
                ),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=ROOT / "var" / "structure-matrix")
    parser.add_argument("--only", help="comma-separated candidates (default: all of structure_variants)")
    parser.add_argument("--types", action="store_true", help="print each type's median PR / RR per candidate")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(CANDIDATES)
    unknown = [name for name in names if name not in CANDIDATES]
    if unknown:
        parser.error(f"unknown candidates {unknown}: choose among {list(CANDIDATES)}")
    sites = {name: site_matrix(name, args.cache) for name, where in B.SITES.items() if where[1].is_dir()}
    runs = score_runs(sites, {name: CANDIDATES[name] for name in names})
    print(
        f"{'candidate':44s} {'types':>6s} {'goal':>4s} {'tails':>6s} {'worst':>6s}  "
        + " ".join(f"{site[:7]:>7s}" for site in sites)
    )
    for name in [*names, CEILING, *([FED_BACK_CEILING] if SHIPPED in names else [])]:
        row = figures(runs, name)
        print(
            f"{name:44s} {row['types']:6.3f} {row['goal']:4d} {row['tails']:6.3f} {row['worst']:6.3f}  "
            + " ".join(f"{row['by_site'][site]:7.3f}" for site in sites)
        )
    folds = leave_one_site_out(runs, names, list(sites))
    print("\nleave-one-site-out (chosen on the other sites by mean F1, scored on the held-out one):")
    for fold in folds:
        print(
            f"  {fold['site']:14s} chosen {fold['chosen']:40s} F1 {fold['types']:.3f}  goal {fold['goal']}"
            f"  tails {fold['tails']:.3f}"
        )
    shipped = [figures(runs, SHIPPED, [fold["site"]]) for fold in folds] if SHIPPED in names else []
    print(
        f"  held-out mean F1 {statistics.mean(fold['types'] for fold in folds):.3f}, types meeting the goal "
        f"{sum(fold['goal'] for fold in folds)}"
        + (
            f" (the shipped rule on every site: {statistics.mean(row['types'] for row in shipped):.3f}, "
            f"{sum(row['goal'] for row in shipped)})"
            if shipped
            else ""
        )
    )
    if SHIPPED in names:
        lost = losses(runs)
        print(
            f"\n{SHIPPED} against the best threshold by labels, of {lost['runs']} runs (F1 lower by > 0.05): cut above "
            f"it {lost['above'][0]} runs, F1 lost {lost['above'][1]:.1f}; below it {lost['below'][0]} runs, "
            f"{lost['below'][1]:.1f}"
        )
    print("\ntypes as two groups by 2-medoids (or two labels): sizes, W each, across, background, structures")
    for row in layouts(sites):
        print(
            f"  {row['type']:45s} {row['sizes']} W {row['within']} across {row['across']:.2f}"
            f" background {row['background']:.2f} distinct structures {row['structures']} e.g. {row['examples']};"
            f" {SHIPPED} against the template's own group {row['against its group'] or '-'}"
        )
    if args.types:
        for (site, name), row in runs.items():
            cells = "  ".join(
                f"{candidate[:16]} {_median(rows, 'pr'):.2f}/{_median(rows, 'rr'):.2f}"
                for candidate, rows in row.items()
            )
            print(f"  {site}/{name}: {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
