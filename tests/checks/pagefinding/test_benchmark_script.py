"""benchmarks/pagefinding.py as a program reads it: the tables as JSON rows, the calibrated generator; and
pagefinding_trace.py, one case download by download."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .sites import serve_town_hall

ROOT = Path(__file__).resolve().parents[3]


def test_the_tables_are_written_as_rows_a_program_can_check(tmp_path):
    target = tmp_path / "rows.json"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "pagefinding.py"),
            "--generator",
            "paper",
            "--sizes",
            "100",
            "--runs",
            "2",
            "--only",
            "OPTIMAL,LS2F S=100",
            "--json",
            str(target),
        ],
        check=True,
        capture_output=True,
        timeout=300,
        cwd=ROOT,
    )
    rows = json.loads(target.read_text())["rows"]
    assert {row["algorithm"] for row in rows} == {"OPTIMAL", "LS2F S=100"}
    for row in rows:
        assert set(row) == {"algorithm", "threshold", "n", "runs", "accuracy", "downloads"}
        assert row["n"] == 100 and row["runs"] == 2
        assert 0 <= row["accuracy"] <= 1 and row["downloads"] >= 1
    assert [row["threshold"] for row in rows if row["algorithm"] == "OPTIMAL"] == [None]
    assert sorted(row["threshold"] for row in rows if row["algorithm"] == "LS2F S=100") == [0.25, 0.75]


def test_a_generator_value_given_per_size_is_taken_at_the_runs_size():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from pagefinding import GENERATORS, overrides_at
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    paper = GENERATORS["paper"]
    assert overrides_at(1000, paper)["start_link_share"] == paper["start_link_share"][1000]
    between = overrides_at(3000, paper)["start_link_share"]
    assert paper["start_link_share"][1000] < between < paper["start_link_share"][10000]
    assert overrides_at(50, paper)["start_link_share"] == paper["start_link_share"][100]
    assert overrides_at(1000, {"keywords": True}) == {"keywords": True}


def trace_of(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "pagefinding_trace.py"), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "WEBAUDIT_ALLOWED_NETWORKS": "127.0.0.0/8"},
    )


def test_the_trace_shows_each_download_the_rule_that_ended_the_search_and_the_target(httpserver, tmp_path):
    serve_town_hall(httpserver)
    cases = tmp_path / "cases.json"
    start, target = httpserver.url_for("/"), httpserver.url_for("/tax-form.html")
    cases.write_text(json.dumps({"cases": [{"start": start, "target": target, "query": "income tax form"}]}))
    done = trace_of(str(cases), "0")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "query 'income tax form'"
    assert any(line.endswith(f"{target}  <- TARGET") for line in lines)
    assert f"found: {target}" in lines and "hit" in lines


def test_the_trace_refuses_a_case_outside_the_file_a_budget_out_of_bounds_and_a_file_that_is_no_case_file(
    tmp_path,
):
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"cases": [{"start": "http://127.0.0.1:9/", "target": "x", "query": "q"}]}))
    outside = trace_of(str(cases), "3")
    assert outside.returncode == 2 and "outside" in outside.stderr
    for budget in ("0", "-5", "100000"):
        refused = trace_of(str(cases), "0", "--budget", budget)
        assert refused.returncode == 2 and "1 to 10,000" in refused.stderr
    cases.write_text("not json")
    broken = trace_of(str(cases), "0")
    assert broken.returncode == 2 and "not a case file" in broken.stderr


def test_an_ablation_sets_a_finder_rule_for_the_run_and_refuses_what_the_finder_lacks():
    script = str(ROOT / "benchmarks" / "pagefinding.py")
    for bad, says in [
        ("NO_SUCH_RULE=true", "no rule or constant"),
        ("htmlpage.NO_SUCH=1", "checks.pagefinding.htmlpage has no rule"),
        ("nomodule.CAMEL_PARTS=true", "no module"),
        ("ABOUT_TO_STOP=maybe", "true or false"),
        ("MIN_PATIENCE=nan", "is a number"),
        ("CONFIDENT=inf", "finite"),
    ]:
        done = subprocess.run(
            [sys.executable, script, "--set", bad, "--sizes", "100", "--runs", "1"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert done.returncode == 2 and says in done.stderr, (bad, done.stderr)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from pagefinding import finder, set_finder_constant
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    before = finder.ABOUT_TO_STOP, finder.MIN_PATIENCE
    try:
        set_finder_constant("ABOUT_TO_STOP=false")
        set_finder_constant("MIN_PATIENCE=12")
        assert finder.ABOUT_TO_STOP is False and finder.MIN_PATIENCE == 12
    finally:
        finder.ABOUT_TO_STOP, finder.MIN_PATIENCE = before


def test_the_trace_explains_what_the_best_pages_relevance_is_made_of(httpserver, tmp_path):
    serve_town_hall(httpserver)
    cases = tmp_path / "cases.json"
    start, target = httpserver.url_for("/"), httpserver.url_for("/tax-form.html")
    cases.write_text(json.dumps({"cases": [{"start": start, "target": target, "query": "income tax form"}]}))
    done = trace_of(str(cases), "0", "--explain")
    assert done.returncode == 0, done.stderr
    explained = [line for line in done.stdout.splitlines() if line.endswith(f"  {target}") and " = " in line]
    assert explained, done.stdout
    total, parts = explained[0].split(" = ")
    held, bm25, dominance, title = (float(part.split()[0]) for part in parts.split(" + "))
    assert abs(float(total) - (held + bm25 + dominance + title)) < 0.01
    assert "ranks" in explained[0]


def ceiling_of(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "pagefinding_ceiling.py"), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_the_ceiling_ranks_every_page_of_the_tree_and_counts_a_tie_as_broken_at_random(tmp_path):
    """Three pages: /lathe.html alone repeats "lathe spindle", /a.html and /b.html are word for word alike. The
    first case's target is found first by either ranking; the second's ties with its twin: first half the time."""
    tree = tmp_path / "tree"
    tree.mkdir()
    body = "<html><body><p>{}</p></body></html>"
    (tree / "index.html").write_text(
        body.format("<a href='lathe.html'>x</a> <a href='a.html'>y</a> workshop")
    )
    (tree / "lathe.html").write_text(body.format("lathe spindle lathe spindle chuck"))
    (tree / "a.html").write_text(body.format("rivet washer rivet washer bolt"))
    (tree / "b.html").write_text(body.format("rivet washer rivet washer bolt"))
    base = "http://127.0.0.1:9/"
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps(
            {
                "sites": [{"base": base, "root": str(tree)}],
                "cases": [
                    {"start": base, "target": base + "lathe.html", "query": "lathe spindle"},
                    {"start": base, "target": base + "a.html", "query": "rivet washer"},
                ],
            }
        )
    )
    done = ceiling_of(str(cases))
    assert done.returncode == 0, done.stderr
    assert "bm25 0.750 / 1.000 (tied 0.50)" in done.stdout
    assert "own 0.750 / 1.000 (tied 0.50)" in done.stdout
    missing = ceiling_of(str(tmp_path / "none.json"))
    assert missing.returncode == 2 and "no case file" in missing.stderr
    for broken in (
        "not json",
        "[1, 2]",
        json.dumps({"sites": [], "cases": [{"target": base, "query": "x"}]}),
    ):
        cases.write_text(broken)
        refused = ceiling_of(str(cases))
        assert refused.returncode == 2 and "not a case file" in refused.stderr, refused.stderr
