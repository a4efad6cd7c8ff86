"""One page-finding case, download by download: what BESTFIRST read, through which link, with what score, how
much of the query each page holds, when the best page changed, which rule ended the search, and where the
target stood then (read, in the frontier at rank R, or never seen). For reading a single miss of
`heldout_sites.py run` without rewriting a tracer each time.

    .venv/bin/python benchmarks/pagefinding_trace.py /work/hs/cases/celery.json 5
    .venv/bin/python benchmarks/pagefinding_trace.py /work/hs/cases/celery.json 5 --no-stop   # read to the budget

`--no-stop` turns the stopping rule off, to see whether the target would have been reached had the search read
on. Exit status 2 for a case file that cannot be read or an index outside it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pagefinding import _django, _same_page  # noqa: E402


def load_case(path: Path, index: int) -> dict:
    try:
        cases = json.loads(path.read_text())["cases"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"pagefinding_trace: {path}: not a case file ({error})") from None
    if not 0 <= index < len(cases):
        raise SystemExit(f"pagefinding_trace: case {index} is outside {path} (0 to {len(cases) - 1})")
    return cases[index]


def explained(search_state, urls: list[str], target: str) -> list[str]:
    """What each of the best pages' relevance is made of (finder.BestFirst.coverage's parts), and the target's."""
    from checks.pagefinding import finder

    lines = [
        "",
        "relevance = held + bm25 + dominance + title; own ranks: the page's own words above each query word",
    ]
    if not any(_same_page(url, target) for url in urls) and target in search_state.relevance:
        urls = [*urls, target]
    for url in urls:
        page = search_state.env.download(url)  # in memory
        if page is None:
            continue
        total = search_state.coverage(page)
        parts = (
            search_state.held(page),
            search_state.bm25(page),
            finder.DOMINANCE * search_state.dominance(page),
        )
        title = total - sum(parts)
        lines.append(
            f"  {total:.3f} = {parts[0]:.3f} + {parts[1]:.3f} + {parts[2]:.3f} + {title:.3f}"
            f"  ranks {search_state.own_ranks(page)}  {url}"
        )
    return lines


def trace(case: dict, budget: int, stop: bool, explain: bool = False) -> list[str]:
    """The lines of the trace of one case (see the module's docstring)."""
    _django()
    from checks.pagefinding import finder
    from checks.pagefinding.algorithms import search
    from checks.pagefinding.live import LiveSettings, LiveSite
    from checks.pagefinding.text import query_terms
    from sites.http import FetchSettings

    lines: list[str] = []
    ended: list[str] = []
    target_read: list[int] = []
    searches: list[finder.BestFirst] = []
    original_read, original_stops, original_gives_up = (
        finder.BestFirst.read,
        finder.BestFirst._stops,
        finder.BestFirst._gives_up,
    )
    target = case["target"]

    def read(self, node, page, depth):
        if not searches:
            searches.append(self)
        original_read(self, node, page, depth)
        held = self.held(page) if page is not None else 0.0
        mark = ""
        if _same_page(str(node), target):
            mark = "  <- TARGET"
            target_read.append(self.env.downloads)
        lines.append(
            f"{self.env.downloads:4} d{depth} held {held:.2f} rel {self.relevance.get(node, 0.0):.3f}"
            f" about {'y' if page is not None and self.about(page) else 'n'}  {node}{mark}"
        )

    def stops(self, best_score, best_node, improved_at):
        stopped = stop and original_stops(self, best_score, best_node, improved_at)
        if stopped:
            ended.append(f"stopping rule: best {best_node} ({best_score:.3f}) since download {improved_at}")
        return stopped

    def gives_up(self, top_score, best_node, improved_at):
        given_up = original_gives_up(self, top_score, best_node, improved_at)
        if given_up:
            ended.append(f"gave up (top link {top_score:.3f})")
        return given_up

    finder.BestFirst.read, finder.BestFirst._stops, finder.BestFirst._gives_up = read, stops, gives_up
    settings = LiveSettings(fetch=FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0))
    env = LiveSite(case["start"], settings, max_downloads=budget)
    try:
        env.open()
        result = search(
            env,
            query_terms(case["query"]),
            "BESTFIRST",
            rng=random.Random(0),
            query_text=case["query"],
            eager_stop=True,
        )
    finally:
        env.close()
        finder.BestFirst.read, finder.BestFirst._stops, finder.BestFirst._gives_up = (
            original_read,
            original_stops,
            original_gives_up,
        )
    head = [f"query {case['query']!r}", f"target {target}", ""]
    found = result.found
    tail = ["", f"ended: {ended[0] if ended else 'budget, frontier or a complete page'}", f"found: {found}"]
    tail.append("hit" if found is not None and _same_page(str(found), target) else "MISS")
    tail.extend(f"  candidate {url} {score:.3f}" for url, score in result.candidates[:5])
    if explain and searches:
        tail.extend(explained(searches[0], [url for url, _ in result.candidates[:5]], target))
    if searches and not target_read:
        search_state = searches[0]
        ranked = sorted(
            ((search_state.link_score(c), str(c.node), c.link.text) for c in search_state.frontier.values()),
            reverse=True,
        )
        place = next((i for i, (_, url, _) in enumerate(ranked) if _same_page(url, target)), None)
        if place is None:
            tail.append("target never read and not in the frontier")
        else:
            score, _, text = ranked[place]
            tail.append(
                f"target unread: frontier rank {place + 1} of {len(ranked)}, score {score:.3f}, via {text!r}"
            )
    return head + lines + tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", type=Path, help="a case file (pagefinding_cases.py's shape)")
    parser.add_argument("index", type=int, help="the case's place in the file, from 0")
    parser.add_argument("--budget", type=int, default=100, help="downloads at most, 1 to 10,000")
    parser.add_argument("--no-stop", action="store_true", help="turn the stopping rule off")
    parser.add_argument("--explain", action="store_true", help="what the best pages' relevance is made of")
    args = parser.parse_args()
    if not 1 <= args.budget <= 10_000:
        parser.error(f"--budget {args.budget}: from 1 to 10,000 downloads")
    try:
        case = load_case(args.cases, args.index)
    except SystemExit as refused:
        print(refused, file=sys.stderr)
        sys.exit(2)
    print("\n".join(trace(case, args.budget, stop=not args.no_stop, explain=args.explain)))


if __name__ == "__main__":
    main()
