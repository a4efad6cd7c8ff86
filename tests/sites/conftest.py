"""Fixtures of the crawl engine's tests that several modules share."""

from __future__ import annotations

import shutil

import pytest

from benchmarks.generated import generate, served
from tests.conftest import unavailable
from tests.private_services import free_port
from tests.sites.outages import PAGES


@pytest.fixture(scope="module")
def generated_site_url():
    """A generated site of PAGES pages (benchmarks/generated.py) on an nginx of its own: every page answers.
    Nothing a crawl does changes it, so a module's tests share it."""
    if shutil.which("nginx") is None:
        unavailable("nginx is missing: the outage tests serve a generated site with it")
    with served(generate(PAGES), port=free_port()) as url:
        yield url
