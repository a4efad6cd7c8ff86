"""Page-finding cases, made exactly as the test bed's `pagefinding_cases.py` makes them (its code, imported), for
any documentation tree served on a local port: a site the finder was not tuned on.

    .venv/bin/python benchmarks/pagefinding_cases_tree.py --root /usr/share/doc/postgresql-doc-15/html \
        --port 8102 --seed unseen --per-site 20 -o /tmp/cases-postgres.json

Any tree works: `python3 -m http.server 8120 --bind 127.0.0.1 -d TREE` serves one.

`--script-menus`: a Doxygen site's menu bar (Main Page, Classes, Files…) is built in the browser from the
`menudata.js` every page loads; its entries count as links of every page that loads it, as a person sees them
(without it, a Doxygen main page without text of its own reaches no page).
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


def with_script_menus(maker, root: str) -> None:
    """Make the case maker read Doxygen's menu (`menudata.js`) as links of every page that loads it."""
    from urllib.parse import urljoin

    from checks.pagefinding.doxygenmenu import MENU_SCRIPT, NotAMenu, parse_doxygen_menu

    host = f"http://{maker.HOST}"
    menus: dict[str, list[str]] = {}

    def menu_links(src: str, page_url: str) -> list[str]:
        menu_url = urljoin(page_url, src)
        if menu_url not in menus:
            path = Path(root + menu_url[len(host) :])
            try:
                entries = parse_doxygen_menu(path.read_bytes() if path.is_file() else b"", menu_url=menu_url)
                menus[menu_url] = [entry.url for entry in entries]
            except NotAMenu:
                menus[menu_url] = []
        return menus[menu_url]

    class MenuPageParser(maker.PageParser):
        page_url = host + "/"  # the page being parsed: set as the maker opens its file

        def handle_starttag(self, tag, attrs):
            super().handle_starttag(tag, attrs)
            src = dict(attrs).get("src") or ""
            if tag == "script" and src.split("?", 1)[0].endswith(MENU_SCRIPT):
                self.hrefs.extend(menu_links(src, self.page_url))

    def tracking_open(file, *args, **kwargs):
        # The maker makes a parser per page without telling it the page: the page is the file it opens.
        name = str(file)
        if name.startswith(root) and name.endswith(".html"):
            MenuPageParser.page_url = f"{host}{maker.url_of(name[len(root) :])}"
        return open(file, *args, **kwargs)

    maker.PageParser = MenuPageParser
    maker.open = tracking_open  # the module's own `open`: builtins stay as they are


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
    parser.add_argument("--script-menus", action="store_true", help="Doxygen's menudata.js entries as links")
    args = parser.parse_args()
    maker = load_case_maker()
    if args.script_menus:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        with_script_menus(maker, args.root.rstrip("/"))
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
