"""Settings: strict environment parsing and a production configuration that passes `check --deploy`."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from webaudit.env import env_bool, env_cache, env_int, env_networks

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("raw", "expected"), [("1", True), ("yes", True), ("off", False), ("", False)])
def test_booleans_accept_the_usual_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("WEBAUDIT_X", raw)
    assert env_bool("WEBAUDIT_X") is expected


@pytest.mark.parametrize(
    ("reader", "raw", "message"),
    [
        (lambda: env_bool("WEBAUDIT_X"), "maybe", "not a boolean"),
        (lambda: env_int("WEBAUDIT_X", 1), "ten", "not a whole number"),
        (lambda: env_int("WEBAUDIT_X", 1, minimum=1), "0", "below its minimum"),
        (lambda: env_networks("WEBAUDIT_X"), "127.0.0.0/8,localhost", "not an IP network"),
        (lambda: env_cache("WEBAUDIT_X"), "memcached://127.0.0.1:11211", "must be a redis:// URL"),
    ],
)
def test_a_malformed_value_is_rejected_not_guessed(monkeypatch, reader, raw, message):
    monkeypatch.setenv("WEBAUDIT_X", raw)
    with pytest.raises(ImproperlyConfigured, match=message):
        reader()


def test_the_cache_is_in_memory_by_default_and_redis_when_given_a_url(monkeypatch):
    monkeypatch.delenv("WEBAUDIT_X", raising=False)
    assert env_cache("WEBAUDIT_X")["BACKEND"].endswith("LocMemCache")
    monkeypatch.setenv("WEBAUDIT_X", "redis://127.0.0.1:6379/1")
    assert env_cache("WEBAUDIT_X") == {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/1",
    }


def run_manage(*arguments: str, **env: str) -> subprocess.CompletedProcess:
    # The environment of a deployment: none of ours, and not what other tests' fixtures set for this process
    # (the browser tests' DJANGO_ALLOW_ASYNC_UNSAFE fails `check --deploy`).
    clean = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("WEBAUDIT_", "DATABASE_URL")) and key != "DJANGO_ALLOW_ASYNC_UNSAFE"
    }
    return subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**clean, "DJANGO_SETTINGS_MODULE": "webaudit.settings", **env},
        timeout=120,
    )


def test_production_settings_pass_the_deployment_checklist(tmp_path):
    done = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        WEBAUDIT_SECRET_KEY=secrets.token_urlsafe(50),
        WEBAUDIT_ALLOWED_HOSTS="audit.example.com",
        WEBAUDIT_HTTPS="1",
        WEBAUDIT_VAR_DIR=str(tmp_path),
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert "no issues" in done.stdout


def test_the_embedded_default_is_not_passed_off_as_production(tmp_path):
    done = run_manage("check", "--deploy", "--fail-level", "WARNING", WEBAUDIT_VAR_DIR=str(tmp_path))
    assert done.returncode != 0 and "SECURE_SSL_REDIRECT" in done.stderr + done.stdout


@pytest.mark.parametrize(
    ("name", "raw"),
    [("WEBAUDIT_CRAWL_MAX_PAGES", "lots"), ("WEBAUDIT_PAGE_READERS", "-1"), ("WEBAUDIT_CRAWLS_KEPT", "ten")],
)
def test_a_malformed_setting_stops_the_app_with_its_name(tmp_path, name, raw):
    done = run_manage("check", WEBAUDIT_VAR_DIR=str(tmp_path), **{name: raw})
    assert done.returncode != 0 and name in done.stderr
