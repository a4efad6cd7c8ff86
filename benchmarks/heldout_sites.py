"""The page-finding case sets of issue 19, rebuilt on a new machine in one command: every documentation site the
rounds measured (Debian 12 doc packages), copied to a folder of its own, served on its port, and its cases made
with the seed the round used, so figures are comparable across sessions.

    .venv/bin/python benchmarks/heldout_sites.py install          # apt-get install every package (as root)
    .venv/bin/python benchmarks/heldout_sites.py serve            # copy trees to --root, serve each on its port
    .venv/bin/python benchmarks/heldout_sites.py cases            # make the case files (--root/cases/NAME.json)
    .venv/bin/python benchmarks/heldout_sites.py run [NAME ...]   # measure BESTFIRST on each set, one table
    .venv/bin/python benchmarks/heldout_sites.py list

`run` prints accuracy / top-3 / median / mean downloads per set and per generator group, the table of
docs/benchmarks.md ("Where issue 19 stands"), and keeps each case's line in ROOT/runs/LABEL/NAME.txt; `--tree`
measures another checkout's finder (a detached worktree of an older commit, say: `--tree /tmp/base --label
base`); options it does not know go to `pagefinding.py` (`--symbol-index`, `--budget 60`, `--set ABOUT_TO_STOP=false` for an ablation). Sites whose package is missing are left out with a line saying so.
Fresh packages for held-out figures (never measured): see docs/benchmarks.md; add them here once measured. Session 14's
seven (seed fresh11: pydicom, pil, nibabel, h5py, geos, jsoup, codec) were made and measured before its changes;
session 15's eight (seed fresh12: sfml, mbedtls, box2d, skimage, rdflib, statsmodels, math3, jfreechart) likewise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTBED = Path(os.environ.get("WEBAUDIT_TESTBED", "/work/shared/testbed"))


@dataclass(frozen=True)
class Site:
    name: str
    port: int
    package: str  # Debian 12 package; "" for the test bed's own sites
    tree: str  # the documentation tree, under /usr/share/doc unless absolute
    seed: str
    generator: str
    script_menus: bool = False
    # A readthedocs build ships the robots.txt of readthedocs' domain (everything but /en/latest/ disallowed): at
    # the served tree's root it forbids the start page, so the copy leaves it out.
    drop_robots: bool = False


SITES = [
    Site("celery", 8122, "python-celery-doc", "python-celery-doc/html", "unseen", "sphinx"),
    Site("cio", 8141, "libcommons-io-java-doc", "libcommons-io-java/api", "unseen", "javadoc"),
    Site("clang3", 8142, "libcommons-lang3-java-doc", "libcommons-lang3-java/api", "unseen", "javadoc"),
    Site("octave", 8143, "octave-doc", "octave/octave.html", "unseen", "other"),
    Site("gio", 8144, "libglib2.0-doc", "/usr/share/gtk-doc/html/gio", "unseen", "other"),
    Site("dvbv5", 8145, "libdvbv5-doc", "libdvbv5-dev/html", "unseen", "doxygen"),
    Site("git", 8160, "git-doc", "git-doc", "fresh", "other"),
    Site("sqla", 8161, "python-sqlalchemy-doc", "python-sqlalchemy-doc/html", "fresh", "sphinx"),
    Site("sdl2", 8162, "libsdl2-doc", "libsdl2-doc/html", "fresh", "doxygen", script_menus=True),
    Site("jsoncpp", 8163, "libjsoncpp-doc", "libjsoncpp-doc", "fresh", "doxygen"),
    Site(
        "log4cplus", 8164, "liblog4cplus-doc", "liblog4cplus-dev/html", "unseen", "doxygen", script_menus=True
    ),
    Site("kombu", 8170, "python-kombu-doc", "python-kombu-doc/html", "fresh2", "sphinx"),
    Site("tornado", 8171, "python-tornado-doc", "python-tornado-doc/html", "fresh2", "sphinx"),
    Site("scrapy", 8172, "python-scrapy-doc", "python-scrapy-doc/html", "fresh2", "sphinx"),
    Site("sigcpp", 8173, "libsigc++-2.0-doc", "libsigc++-2.0-doc/reference/html", "fresh2", "doxygen"),
    Site("junit4", 8174, "junit4-doc", "junit4/api", "fresh2", "javadoc"),
    Site("jsonglib", 8175, "libjson-glib-doc", "json-glib-1.0", "fresh2", "other"),
    Site("flask", 8180, "python-flask-doc", "python-flask-doc/html", "fresh3", "sphinx"),
    Site("werkzeug", 8181, "python-werkzeug-doc", "python-werkzeug-doc/html", "fresh3", "sphinx"),
    Site("cryptography", 8182, "python-cryptography-doc", "python-cryptography-doc/html", "fresh3", "sphinx"),
    Site("eigen", 8183, "libeigen3-doc", "libeigen3-dev/html", "fresh3", "doxygen"),
    Site("pint", 8184, "python-pint-doc", "python-pint-doc/html", "fresh3", "sphinx"),
    Site("pygments", 8185, "python-pygments-doc", "python-pygments-doc/html", "fresh3", "sphinx"),
    Site("gtk3", 8186, "libgtk-3-doc", "/usr/share/gtk-doc/html/gtk3", "fresh4", "other"),
    Site("pytest", 8187, "python-pytest-doc", "python-pytest-doc/html", "fresh4", "sphinx"),
    Site("dask", 8188, "python-dask-doc", "python-dask-doc/html", "fresh4", "sphinx"),
    Site("hypothesis", 8189, "python-hypothesis-doc", "python-hypothesis-doc/html", "fresh4", "sphinx"),
    Site("setuptools", 8191, "python-setuptools-doc", "python-setuptools-doc/html", "fresh4", "sphinx"),
    Site("cairomm", 8192, "libcairomm-1.0-doc", "libcairomm-1.0-doc/reference/html", "fresh5", "doxygen"),
    Site("xmlpp", 8193, "libxml++2.6-doc", "libxml++2.6-doc/reference/html", "fresh5", "doxygen"),
    Site("pqxx", 8194, "libpqxx-doc", "libpqxx-doc/html/Reference", "fresh5", "doxygen"),
    Site("cppunit", 8195, "libcppunit-doc", "libcppunit-doc/html", "fresh5", "doxygen"),
    Site("qwt", 8196, "libqwt-doc", "libqwt-doc/html", "fresh5", "doxygen"),
    Site("msgpack", 8197, "libmsgpack-doc", "libmsgpack-dev/html", "fresh5", "doxygen", script_menus=True),
    Site("assimp", 8198, "libassimp-doc", "libassimp-doc/apiref", "fresh6", "doxygen", script_menus=True),
    Site("bullet", 8199, "libbullet-doc", "libbullet-dev/html", "fresh6", "doxygen"),
    Site("xerces", 8200, "libxerces-c-doc", "libxerces-c-doc/html", "fresh6", "doxygen", script_menus=True),
    Site("lxml", 8201, "python-lxml-doc", "python-lxml/html/apidoc", "fresh6", "sphinx"),
    Site("tinyxml", 8202, "libtinyxml-doc", "libtinyxml-dev/docs", "fresh6", "doxygen"),
    # Session 11's fresh Doxygen sets (branch doxy; seed fresh7).
    Site("glibmm", 8210, "libglibmm-2.4-doc", "libglibmm-2.4-doc/reference/html", "fresh7", "doxygen"),
    Site("gecode", 8211, "libgecode-doc", "libgecode-doc/html", "fresh7", "doxygen"),
    Site("soapysdr", 8212, "libsoapysdr-doc", "libsoapysdr-doc/html", "fresh7", "doxygen", script_menus=True),
    # Session 11's held-out sets (the lead's; seed fresh9), measured before and after the session's changes.
    Site("pangomm", 8230, "libpangomm-1.4-doc", "libpangomm-1.4-doc/reference/html", "fresh9", "doxygen"),
    Site(
        "atkmm",
        8231,
        "libatkmm-1.6-doc",
        "libatkmm-1.6-doc/reference/html",
        "fresh9",
        "doxygen",
        script_menus=True,
    ),
    Site("gtkmm", 8232, "libgtkmm-3.0-doc", "libgtkmm-3.0-doc/reference/html", "fresh9", "doxygen"),
    # Session 11 (branch jvx), held out: Javadoc and Sphinx sites nobody had measured.
    Site(
        "coll4",
        8220,
        "libcommons-collections4-java-doc",
        "libcommons-collections4-java/api",
        "fresh8",
        "javadoc",
    ),
    Site("javassist", 8221, "libjavassist-java-doc", "libjavassist-java/api", "fresh8", "javadoc"),
    Site("janino", 8222, "libjanino-java-doc", "libjanino-java/api", "fresh8", "javadoc"),
    Site("sympy", 8223, "python-sympy-doc", "python-sympy-doc/html", "fresh8", "sphinx"),
    Site(
        "astropy", 8224, "python-astropy-doc", "python-astropy-doc/html", "fresh8", "sphinx", drop_robots=True
    ),
    # Session 12's fresh sets (seed fresh10), made before that session's changes; its commits were lost with its
    # CI, and session 13 rebuilt the sets from its note (main at its start: 0.675 / 0.792 / 32 on these six).
    Site("scipy", 8240, "python-scipy-doc", "python-scipy-doc/html", "fresh10", "sphinx"),
    Site("pandas", 8241, "python-pandas-doc", "python-pandas-doc/html", "fresh10", "sphinx"),
    Site("sklearn", 8242, "python-sklearn-doc", "python-sklearn-doc/html", "fresh10", "sphinx"),
    Site("gloox", 8243, "libgloox-doc", "libgloox-doc/html", "fresh10", "doxygen"),
    Site("icu", 8244, "icu-doc", "icu-doc/html", "fresh10", "doxygen"),
    Site("jackson", 8245, "libjackson-json-java-doc", "libjackson-json-java/api", "fresh10", "javadoc"),
    # Session 14's held-out sets (seed fresh11): measured at the session's start and end only, never traced.
    Site("pydicom", 8250, "python-pydicom-doc", "python-pydicom-doc/html", "fresh11", "sphinx"),
    Site("pil", 8251, "python-pil-doc", "python-pil-doc/html", "fresh11", "sphinx"),
    Site("nibabel", 8252, "python-nibabel-doc", "python-nibabel-doc/html", "fresh11", "sphinx"),
    Site("h5py", 8253, "python-h5py-doc", "python-h5py-doc/api/html", "fresh11", "sphinx"),
    Site("geos", 8254, "libgeos-doc", "libgeos-dev/html", "fresh11", "doxygen", script_menus=True),
    Site("jsoup", 8255, "libjsoup-java-doc", "libjsoup-java/api", "fresh11", "javadoc"),
    Site("codec", 8256, "libcommons-codec-java-doc", "libcommons-codec-java/api", "fresh11", "javadoc"),
    # Session 15's held-out sets (seed fresh12): measured at the session's start and end only, never traced.
    Site("sfml", 8260, "libsfml-doc", "libsfml-dev/html", "fresh12", "doxygen"),
    Site("mbedtls", 8261, "libmbedtls-doc", "libmbedtls-dev/apidoc", "fresh12", "doxygen", script_menus=True),
    Site("box2d", 8262, "libbox2d-doc", "libbox2d-dev/html", "fresh12", "doxygen", script_menus=True),
    Site("skimage", 8263, "python-skimage-doc", "python-skimage-doc/html", "fresh12", "sphinx"),
    Site("rdflib", 8264, "python-rdflib-doc", "python-rdflib-doc/html", "fresh12", "sphinx"),
    Site("statsmodels", 8265, "python-statsmodels-doc", "python-statsmodels-doc/html", "fresh12", "sphinx"),
    Site("math3", 8266, "libcommons-math3-java-doc", "libcommons-math3-java/api", "fresh12", "javadoc"),
    Site("jfreechart", 8267, "libjfreechart-java-doc", "libjfreechart-java/javadoc", "fresh12", "javadoc"),
]
# The test bed's own sites (served by ../shared/testbed/serve): the visible cases and postgres, held out.
TESTBED_SETS = [
    ("visible", "testbed", "tune", "sphinx"),
    ("pg", "postgres", "unseen", "other"),
]


def by_name(names: list[str]) -> list[Site]:
    chosen = [site for site in SITES if not names or site.name in names]
    unknown = set(names) - {site.name for site in SITES} - {name for name, *_ in TESTBED_SETS}
    if unknown:
        sys.exit(f"heldout_sites: no site named {', '.join(sorted(unknown))} (see `list`)")
    return chosen


def source(site: Site) -> Path:
    return Path("/usr/share/doc") / site.tree


def install(sites: list[Site]) -> None:
    packages = sorted({site.package for site in sites})
    subprocess.run(
        ["apt-get", "install", "-y", "--no-install-recommends", *packages],
        check=True,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def serve(sites: list[Site], root: Path) -> None:
    for site in sites:
        tree = root / f"site{site.port}"
        if not source(site).exists():
            print(f"{site.name}: {source(site)} missing (apt-get install {site.package}); left out")
            continue
        if not tree.exists():
            shutil.copytree(source(site), tree, symlinks=False)
            subprocess.run(
                ["find", str(tree), "-name", "*.gz", "-exec", "gunzip", "-f", "{}", "+"], check=False
            )
            if site.drop_robots:
                (tree / "robots.txt").unlink(missing_ok=True)
        if port_open(site.port):
            print(f"{site.name}: port {site.port} already serving")
            continue
        log = open(root / f"site{site.port}.log", "ab")
        subprocess.Popen(
            [sys.executable, "-m", "http.server", str(site.port), "--bind", "127.0.0.1", "-d", str(tree)],
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        print(f"{site.name}: {tree} on http://127.0.0.1:{site.port}/")
    time.sleep(1)


def cases(sites: list[Site], root: Path, names: list[str]) -> None:
    out = root / "cases"
    out.mkdir(parents=True, exist_ok=True)
    for site in sites:
        target = out / f"{site.name}.json"
        if target.exists() or not (root / f"site{site.port}").exists():
            continue
        command = [
            sys.executable,
            str(HERE / "pagefinding_cases_tree.py"),
            "--root",
            str(root / f"site{site.port}"),
            "--port",
            str(site.port),
            "--seed",
            site.seed,
            "--per-site",
            "20",
            "--name",
            site.name,
            "-o",
            str(target),
        ]
        if site.script_menus:
            command.append("--script-menus")
        subprocess.run(command, check=True)
    maker = TESTBED / "pagefinding_cases.py"
    for name, _site_name, seed, _ in TESTBED_SETS:
        target = out / f"{name}.json"
        if target.exists() or (names and name not in names):
            continue
        if name == "visible":
            subprocess.run(
                [sys.executable, str(maker), "--seed", seed, "--per-site", "20", "-o", str(target)],
                check=True,
            )
        else:
            subprocess.run(
                [
                    sys.executable,
                    str(HERE / "pagefinding_cases_tree.py"),
                    "--root",
                    "/usr/share/doc/postgresql-doc-15/html",
                    "--port",
                    "8102",
                    "--seed",
                    seed,
                    "--per-site",
                    "20",
                    "-o",
                    str(target),
                ],
                check=True,
            )


def run(names: list[str], root: Path, python: str, tree: Path, label: str, extra: list[str]) -> None:
    groups = {site.name: site.generator for site in SITES} | {
        name: group for name, _, _, group in TESTBED_SETS
    }
    order = [name for name, *_ in TESTBED_SETS] + [site.name for site in SITES]
    chosen = [
        name for name in order if (not names or name in names) and (root / "cases" / f"{name}.json").exists()
    ]
    outcomes: dict[str, list[dict]] = {}
    env = {
        **os.environ,
        "WEBAUDIT_ALLOWED_NETWORKS": os.environ.get("WEBAUDIT_ALLOWED_NETWORKS", "127.0.0.0/8"),
    }
    ports = {site.name: site.port for site in SITES} | {"visible": 8101, "pg": 8102}
    for name in chosen:
        if not port_open(ports[name]):
            # A set whose server is down would count every case as a miss: left out, not measured.
            print(f"{name:14} left out: nothing serves port {ports[name]} (`heldout_sites.py serve {name}`)")
            continue
        runs = root / "runs" / label
        runs.mkdir(parents=True, exist_ok=True)
        with open(runs / f"{name}.txt", "w") as verbose:  # one line a case: what each search answered
            done = subprocess.run(
                [
                    python,
                    str(tree / "benchmarks" / "pagefinding.py"),
                    "--live",
                    "--cases",
                    str(root / "cases" / f"{name}.json"),
                    "--algorithms",
                    "BESTFIRST",
                    "--verbose",
                    "--json",
                    str(runs / f"{name}.json"),
                    *extra,
                ],
                cwd=tree,
                env=env,
                stdout=verbose,
                stderr=verbose,
            )
        if done.returncode:
            print(f"{name:14} failed (exit {done.returncode}): see {runs / name}.txt")
            continue
        # {algorithm: {site: [[hit, downloads, target, query, top3, found, read], ...]}}
        by_site = json.loads((runs / f"{name}.json").read_text())["BESTFIRST"]
        outcomes[name] = [
            {"found": o[0], "downloads": o[1], "top3": o[4]} for got in by_site.values() for o in got
        ]
        print(f"{name:14} {summary(outcomes[name])}", flush=True)
    print()
    for group in ["all", "sphinx", "doxygen", "javadoc", "other"]:
        rows = [case for name, got in outcomes.items() if group in ("all", groups[name]) for case in got]
        if rows:
            print(f"{group:14} {summary(rows)}  ({len(rows)} cases)")


def summary(rows: list[dict]) -> str:
    downloads = [row["downloads"] for row in rows]
    first = sum(row["found"] for row in rows) / len(rows)
    top3 = sum(row["top3"] for row in rows) / len(rows)
    return f"{first:.3f} / {top3:.3f} / {statistics.median(downloads):g} / {statistics.mean(downloads):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["install", "serve", "cases", "run", "list"])
    parser.add_argument("names", nargs="*", help="sites to act on (default: all)")
    parser.add_argument(
        "--root", type=Path, default=Path(os.environ.get("WEBAUDIT_HELDOUT_ROOT", "/work/hs"))
    )
    parser.add_argument(
        "--tree", type=Path, default=HERE.parent, help="the checkout whose finder `run` measures"
    )
    parser.add_argument(
        "--label", default="main", help="`run`'s outcomes go to ROOT/runs/LABEL/NAME.{txt,json}"
    )
    parser.add_argument(
        "--python", default=None, help="interpreter for `run` (default: TREE/.venv/bin/python)"
    )
    args, extra = parser.parse_known_args()
    sites = by_name(args.names)
    args.root.mkdir(parents=True, exist_ok=True)
    if args.action == "list":
        for site in sites:
            flags = " --script-menus" if site.script_menus else ""
            print(
                f"{site.name:14} {site.port}  {site.generator:8} {site.package:28} {site.tree}  seed {site.seed}{flags}"
            )
    elif args.action == "install":
        install(sites)
    elif args.action == "serve":
        serve(sites, args.root)
    elif args.action == "cases":
        cases(sites, args.root, args.names)
    else:
        python = args.python or str(args.tree / ".venv" / "bin" / "python")
        run(args.names, args.root, python, args.tree, args.label, extra)


if __name__ == "__main__":
    main()
