"""Page-finding cases whose page the site does not have: each query of one case file, asked from the start of
another site's (issue 19, session 11: what a "not found" search costs). The target is a page no site has, so
every answer is wrong; `benchmarks/pagefinding.py --live --cases FILE` then measures the downloads a search
spends before it answers "not found", and how often it answers a page anyway.

    .venv/bin/python benchmarks/pagefinding_absent_cases.py --site /work/hs/cases/cio.json \\
        --queries /work/hs/cases/pg.json --limit 10 -o /tmp/absent-cio-pg.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def absent_cases(site: dict, queries: dict, limit: int) -> dict:
    """`site`'s start and `queries`' queries (the first `limit`), each with a target no site has."""
    start = site["cases"][0]["start"]
    missing = start.rstrip("/") + "/__absent__.html"
    cases = [{"start": start, "target": missing, "query": case["query"]} for case in queries["cases"][:limit]]
    return {"seed": f"absent from {queries.get('seed', '')}", "sites": site.get("sites", []), "cases": cases}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--site", type=Path, required=True, help="a case file: the site asked (its start)")
    parser.add_argument(
        "--queries", type=Path, required=True, help="a case file of another site: the queries"
    )
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args()
    made = absent_cases(json.loads(args.site.read_text()), json.loads(args.queries.read_text()), args.limit)
    args.out.write_text(json.dumps(made, indent=1))
    print(f"{len(made['cases'])} cases -> {args.out}")


if __name__ == "__main__":
    main()
