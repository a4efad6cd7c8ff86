"""`manage.py help` works for every command in a production install, where the test extras are not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# manage.py run with the test extras unimportable, as after `pip install .` without [test].
WITHOUT_TEST_EXTRAS = """
import sys, runpy
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("werkzeug", "pytest", "pytest_httpserver", "hypothesis", "scrapy"):
            raise ImportError(f"{name} is a test extra")
sys.meta_path.insert(0, Block())
sys.argv = ["manage.py", *sys.argv[1:]]
runpy.run_path("manage.py", run_name="__main__")
"""


def test_help_of_every_command_needs_no_test_extra(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "webaudit.settings", "WEBAUDIT_VAR_DIR": str(tmp_path)}
    commands = ["build_soft404_phrases", "build_soft404_corpus", "train_soft404", "evaluate_soft404"]
    commands += ["audit", "check_url", "decay", "filterpages", "findpage", "pagetypes", "mwim_ce", "serve"]
    for command in commands:
        done = subprocess.run(
            [sys.executable, "-c", WITHOUT_TEST_EXTRAS, "help", command],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0 and "usage:" in done.stdout, (command, done.stderr[-2000:])
