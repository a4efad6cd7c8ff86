"""Shared fixtures: users, the shared test bed, Redis, and running a crawl to its end in-process."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _testbed_folder() -> Path:
    """$WEBAUDIT_TESTBED; else the shared folder beside this checkout (../shared/testbed); else the workplace's
    /work/shared/testbed, for a checkout cloned elsewhere (CI clones into a folder of its own)."""
    if os.environ.get("WEBAUDIT_TESTBED"):
        return Path(os.environ["WEBAUDIT_TESTBED"])
    beside = REPO.parent / "shared" / "testbed"
    workplace = Path("/work/shared/testbed")
    return workplace if not beside.exists() and workplace.exists() else beside


TESTBED = _testbed_folder()
REDIS_URL = os.environ.get("WEBAUDIT_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def services_required() -> bool:
    """In CI a missing service is a failure, never a silent skip."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> None:
    if services_required():
        pytest.fail(f"{reason} (CI requires it; scripts/services starts it)")
    pytest.skip(reason)


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def testbed() -> dict[str, str]:
    """Base URLs of the shared test bed's sites, starting it if it is down."""
    if not all(port_open(port) for port in range(8101, 8108)):
        serve = TESTBED / "serve"
        if not serve.exists():
            unavailable(f"the test bed is not running and {serve} does not exist")
        subprocess.run([str(serve), "start"], check=False, capture_output=True, timeout=600)
        if not port_open(8101):
            unavailable("the test bed did not start")
    return {
        "honest": "http://127.0.0.1:8101/",
        "error_page": "http://127.0.0.1:8102/",
        "redirect_home": "http://127.0.0.1:8103/",
        "spa": "http://127.0.0.1:8104/",
        "per_directory": "http://127.0.0.1:8105/",
        "parked": "http://127.0.0.1:8106/",
        "lookup": "http://127.0.0.1:8107/",
    }


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty cache: a counter or a built sitemap of an earlier test's site (whose id a
    later test's site may reuse) must not leak into it."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def closed_port() -> int:
    """A local TCP port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def redis_url() -> str:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except redis.RedisError as exc:
        unavailable(f"Redis at {REDIS_URL} is not reachable: {exc}")
    return REDIS_URL


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="owner", password="pw-owner-123")


@pytest.fixture
def crawl_site(user):
    """Crawl `url` to its end in this process and return the finished Crawl."""
    from sites.services.crawls import crawl_run, crawl_start
    from sites.services.sites import site_create

    def crawl(url: str, *, site_settings: dict | None = None, **overrides):
        site = site_create(owner=user, url=url, **(site_settings or {}))
        started = crawl_start(site=site, requested_by=user, enqueue=False, **overrides)
        return crawl_run(crawl=started)

    return crawl


@pytest.fixture
def owner():
    """A site owner, for the dashboard tests."""
    from tests.sites.factories import make_user

    return make_user("olivia")


@pytest.fixture
def signed_in(client, owner):
    client.force_login(owner)
    return client
