"""benchmarks/pagefinding.py as a program reads it: the tables as JSON rows, the calibrated generator."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
