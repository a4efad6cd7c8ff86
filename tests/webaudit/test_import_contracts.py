"""The layer contracts of pyproject.toml hold, and break the day a back-import or a cycle is written."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("webaudit", "watch", "mwim", "checks", "sites")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    """The project's packages and pyproject.toml, copied where a test may break them."""
    for package in PACKAGES:
        shutil.copytree(
            REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "data")
        )
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    return tmp_path


def append(path: Path, code: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + code, encoding="utf-8")


def test_the_project_keeps_its_import_contracts():
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_crawl_layer_importing_an_analysis_breaks_the_layers(tree_copy):
    append(
        tree_copy / "sites" / "services" / "retention.py", "\nfrom checks.models import AnalysisJob  # noqa\n"
    )
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "sites.services.retention -> checks.models" in result.stdout


def test_a_cycle_hidden_inside_a_function_breaks_the_contracts(tree_copy):
    append(
        tree_copy / "sites" / "crawler" / "soft404" / "compiled.py",
        "\n\ndef _late():\n    from sites.crawler.soft404.model import load_model  # noqa\n",
    )
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "No cycles are allowed in sites.crawler.soft404" in result.stdout


def test_the_http_client_importing_the_crawl_engine_breaks_its_leaf_contract(tree_copy):
    append(tree_copy / "sites" / "http" / "errors.py", "\nimport sites.crawler.urls  # noqa\n")
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "sites.http is a leaf" in result.stdout
