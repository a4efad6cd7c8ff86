"""Page-finding cases, made exactly as the test bed's `pagefinding_cases.py` makes them (its code, imported), for
any documentation tree served on a local port: a site the finder was not tuned on.

    .venv/bin/python benchmarks/pagefinding_cases_tree.py --root /usr/share/doc/postgresql-doc-15/html \
        --port 8102 --seed unseen --per-site 20 -o /tmp/cases-postgres.json

Any tree works: `python3 -m http.server 8120 --bind 127.0.0.1 -d TREE` serves one.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

TESTBED = Path(os.environ.get("WEBAUDIT_TESTBED", "/work/shared/testbed"))


def load_case_maker():
    spec = importlib.util.spec_from_file_location("pagefinding_cases", TESTBED / "pagefinding_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", required=True, help="the tree's directory, as the server serves it")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--seed", default="unseen")
    parser.add_argument("--per-site", type=int, default=20)
    parser.add_argument("--name", default="")
    parser.add_argument("-o", "--out", default="-")
    args = parser.parse_args()
    maker = load_case_maker()
    info, cases = maker.site_cases(args.port, args.root, args.seed, args.host, args.per_site)
    for case in cases:
        case.pop("_path", None)
    doc = {
        "seed": args.seed,
        "max_clicks": maker.MAX_CLICKS,
        "query_words": maker.QUERY_WORDS,
        "max_df": maker.MAX_DF,
        "sites": [{"name": args.name or args.root, **info}],
        "cases": cases,
    }
    text = json.dumps(doc, indent=1) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text)
        print(f"{len(cases)} cases -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
