"""Every number a user can type is bounded: hostile command lines exit 2 with one line and leave nothing behind;
environment settings, forms and the crawl service refuse what is out of range."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from sites.forms import SiteForm
from sites.limits import CRAWL_RANGES
from sites.services.crawls import CrawlError, crawl_config_for
from tests.sites.factories import make_site
from webaudit.env import env_float, env_int

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def deployment(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("bounds")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webaudit.settings",
        "WEBAUDIT_VAR_DIR": str(folder),
        "DATABASE_URL": f"sqlite:///{folder}/db.sqlite3",
    }
    env.pop("CELERY_BROKER_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "arguments",
    [
        ["audit", "http://127.0.0.1:9/", "--delay", "nan"],
        ["audit", "http://127.0.0.1:9/", "--delay", "inf"],
        ["audit", "http://127.0.0.1:9/", "--delay", "1e308"],
        ["audit", "http://127.0.0.1:9/", "--max-pages", "99999999999999999999"],
        ["audit", "http://127.0.0.1:9/", "--json", "/nonexistent/x"],
        ["audit", "not a url"],
        ["check_url", "http://127.0.0.1:9/", "--concurrency", "1e9"],
        ["prune_crawls", "--keep", "-1"],
        ["crawl_cancel", "99999999999999999999999"],
        ["pagetypes", "99999999999999999999999"],
        ["serve", "--port", "70000"],
    ],
)
def test_a_hostile_command_line_exits_2_with_one_line_and_starts_nothing(deployment, arguments):
    done = manage(deployment, *arguments)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    database = deployment["DATABASE_URL"].removeprefix("sqlite:///")
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM sites_crawl").fetchone() == (0,)


def test_an_environment_setting_out_of_range_stops_a_command_with_one_line_and_exit_2(deployment):
    done = manage({**deployment, "WEBAUDIT_CRAWL_DELAY": "inf"}, "check")
    assert done.returncode == 2
    assert done.stderr.strip() == "Configuration error: WEBAUDIT_CRAWL_DELAY='inf' is not a finite number"


@pytest.mark.parametrize(
    ("reader", "raw", "message"),
    [
        (lambda: env_float("WEBAUDIT_X", 1.0, minimum=0.0), "nan", "not a finite number"),
        (lambda: env_float("WEBAUDIT_X", 1.0, minimum=0.0), "-inf", "not a finite number"),
        (lambda: env_float("WEBAUDIT_X", 1.0, maximum=60.0), "1e308", "above its maximum"),
        (lambda: env_int("WEBAUDIT_X", 1, maximum=32), "33", "above its maximum 32"),
    ],
)
def test_environment_numbers_must_be_finite_and_within_their_range(monkeypatch, reader, raw, message):
    monkeypatch.setenv("WEBAUDIT_X", raw)
    with pytest.raises(ImproperlyConfigured, match=message):
        reader()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_pages", "99999999999999999999"),
        ("max_depth", "100000"),
        ("concurrency", "0"),
        ("delay", "nan"),
        ("delay", "inf"),
        ("delay", "1e308"),
    ],
)
def test_the_site_form_refuses_numbers_out_of_range(field, value):
    form = SiteForm(data={"url": "https://example.com/", field: value})
    assert not form.is_valid()
    assert field in form.errors


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [("delay", float("inf")), ("delay", 1e308), ("max_pages", 10**12), ("concurrency", 99)],
)
def test_the_crawl_service_refuses_a_site_setting_out_of_range_whoever_stored_it(field, value):
    site = make_site()
    setattr(site, field, value)
    with pytest.raises(CrawlError, match="must be"):
        crawl_config_for(site=site)


def test_the_documented_ranges_are_the_enforced_ones():
    readme = (REPO / "README.md").read_text()
    for name, (low, high) in CRAWL_RANGES.items():
        said = readme[readme.index(f"`{name}`") :][:60]
        assert f"{int(low):,}–{int(high):,}" in said, (name, said)
