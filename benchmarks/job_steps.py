"""How long the steps of every registered analysis kind take against their budget (issue 18: every step returns
within twice its budget).

    WEBAUDIT_VAR_DIR=var/bench WEBAUDIT_CRAWL_DELAY=0 .venv/bin/python benchmarks/job_steps.py --crawl 1
    ... --copies 10          # the crawl's HTML pages copied ten times over into a new, generated crawl first

Runs each kind of `checks.jobs.kinds.KIND_PATHS` over a finished crawl (or its site, for site-scoped kinds) in
this process, one `job_step` after another with the command line's budget (1 s unless `--budget`), and prints
each kind's number of steps, longest step, median step and total, plus the ratio of the longest step to the
budget. A kind that needs a setting first gets it (the `ce` kind registers the site for MWIM).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webaudit.settings")

import django  # noqa: E402

django.setup()

from django.db import transaction  # noqa: E402

from checks.jobs import job_start, job_step  # noqa: E402
from checks.jobs.kinds import KIND_PATHS  # noqa: E402
from checks.structure.extract import decode, encode  # noqa: E402
from sites.models import Crawl, Link, Page, PageExtract  # noqa: E402

# A reference page of the postgres docs (the structural filter's template in docs/structure.md).
TEMPLATE_PATH = "sql-createtable.html"
FINDPAGE_QUERY = "drop schema"
# A query no page answers: the search spends its whole download budget, the longest search there is.
FINDPAGE_LONG_QUERY = "xylophone quokka"


def parameters_for(kind: str, crawl: Crawl, args) -> dict:
    if kind == "filter":
        return {"templates": [crawl.site.url + TEMPLATE_PATH]}
    if kind == "decay":
        return {
            "method": args.decay_method,
            "walks": 30,
            "live": False,
            "external_depth": args.external_depth,
        }
    if kind == "findpage":
        return {"query": args.query, "max_downloads": args.downloads}
    return {}


def kind_ready(kind: str, crawl: Crawl) -> None:
    if kind == "ce":
        from mwim.models import MwimSite

        MwimSite.objects.get_or_create(site=crawl.site)


def run_kind(kind: str, crawl: Crawl, budget: float, args) -> dict:
    kind_ready(kind, crawl)
    job = job_start(
        kind=kind, crawl=crawl, site=crawl.site, parameters=parameters_for(kind, crawl, args), enqueue=False
    )
    steps = []
    while True:
        started = time.perf_counter()
        more = job_step(job_id=job.pk, budget_seconds=budget)
        steps.append(time.perf_counter() - started)
        if not more:
            break
    job.refresh_from_db()
    return {
        "kind": kind,
        "status": job.status,
        "error": job.error[:200],
        "steps": len(steps),
        "longest": round(max(steps), 3),
        "median": round(statistics.median(steps), 3),
        "total": round(sum(steps), 3),
        "longest_per_budget": round(max(steps) / budget, 2),
        "over_twice": sum(step > 2 * budget for step in steps),
        "progress": job.progress_done,
        "first_steps": [round(step, 2) for step in steps[:12]],
    }


def perturbed(data: bytes, rng: random.Random) -> bytes:
    """The extract with one node dropped at random, so that no two copies of a page are the same (as
    benchmarks/structure.py makes its 10,000 pages): page types then compare every copy."""
    if not data:
        return data
    dom = decode(data)
    nodes = list(dom.nodes)
    if len(nodes) > 2:
        del nodes[rng.randrange(len(nodes))]
    return encode([(tag, *attributes) for tag, attributes in dom.signatures], nodes)


def copied_crawl(crawl: Crawl, copies: int) -> Crawl:
    """A new finished crawl of the same site holding the crawl's HTML pages `copies` times (URLs suffixed
    ?copy=N, the first copy as it was), with their `dom` extracts and their links within each copy."""
    rng = random.Random(1)
    with transaction.atomic():
        big = Crawl.objects.create(
            site=crawl.site,
            status=Crawl.Status.FINISHED,
            settings=crawl.settings,
            started_at=crawl.started_at,
            finished_at=crawl.finished_at,
        )
        pages = list(Page.objects.filter(crawl=crawl))
        extracts = dict(
            PageExtract.objects.filter(page__crawl=crawl, name="dom").values_list("page_id", "data")
        )
        links = list(
            Link.objects.filter(crawl=crawl, target__isnull=False).values_list("source_id", "target_id")
        )
        for copy in range(copies):
            mapping = {}
            for page in pages:
                old = page.pk
                page.pk = None
                page.crawl = big
                if copy:
                    page.url = f"{page.url}{'&' if '?' in page.url else '?'}copy={copy}"
                    page.url_key = page.url
                page.save(force_insert=True)
                mapping[old] = page.pk
                page.pk = old
                page.url = page.url.split("?copy=")[0].split("&copy=")[0]
            PageExtract.objects.bulk_create(
                [
                    PageExtract(
                        page_id=mapping[pid], name="dom", data=perturbed(bytes(data), rng) if copy else data
                    )
                    for pid, data in extracts.items()
                ],
                batch_size=500,
            )
            Link.objects.bulk_create(
                [
                    Link(crawl=big, source_id=mapping[s], target_id=mapping[t], target_url="")
                    for s, t in links
                ],
                batch_size=1000,
            )
    return big


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crawl", type=int, help="a finished crawl (default: the latest)")
    parser.add_argument(
        "--copies", type=int, default=1, help="run over a generated crawl of this many copies"
    )
    parser.add_argument("--budget", type=float, default=1.0, help="the step budget, seconds (CLI: 1)")
    parser.add_argument("--kinds", default=",".join(KIND_PATHS), help="comma-separated kinds")
    parser.add_argument("--decay-method", default="walk", choices=("walk", "exact"))
    parser.add_argument(
        "--external-depth",
        type=int,
        default=1,
        help="decay's depth into other sites (their hosts may time out)",
    )
    parser.add_argument("--query", default=FINDPAGE_LONG_QUERY, help="the page search's query")
    parser.add_argument("--downloads", type=int, default=300, help="the page search's download budget")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    crawls = Crawl.objects.filter(status=Crawl.Status.FINISHED).order_by("-pk")
    crawl = crawls.get(pk=args.crawl) if args.crawl else crawls.first()
    if args.copies > 1:
        crawl = copied_crawl(crawl, args.copies)
    html = Page.objects.filter(crawl=crawl, content_type__icontains="html").count()
    print(f"crawl {crawl.pk} of {crawl.site.url}: {html:,} HTML pages; budget {args.budget} s", flush=True)
    rows = []
    for kind in args.kinds.split(","):
        row = run_kind(kind, crawl, args.budget, args)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"crawl": crawl.pk, "budget": args.budget, "kinds": rows}, indent=1)
        )


if __name__ == "__main__":
    main()
