"""A real browser for the dashboard's flows: Playwright driving the system's Chromium (Debian's `chromium`,
installed by scripts/install; Playwright's own browser downloads are never used). Outside CI a missing browser
skips these tests; in CI it fails them. Screenshots go to $WEBAUDIT_VAR_DIR/artifacts/browser/, kept by CI."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import unavailable

# Playwright's synchronous API runs an event loop in the test's thread; the test's own ORM calls (creating rows,
# reading results) are still plain synchronous code, which Django would otherwise refuse under a running loop.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str | None:
    configured = os.environ.get("WEBAUDIT_CHROMIUM")
    if configured:
        return configured if Path(configured).exists() else None
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (scripts/install test)")
    executable = chromium_path()
    if executable is None:
        unavailable("no chromium to drive (scripts/install test installs Debian's with apt)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        yield browser
        browser.close()


@pytest.fixture
def artifacts(request) -> Path:
    """Where this test's screenshots go."""
    folder = Path(settings.VAR_DIR) / "artifacts" / "browser" / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def page(browser, artifacts):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    page.screenshot(path=str(artifacts / "last.png"), full_page=True)
    context.close()


@pytest.fixture
def signed_in_page(page, live_server, owner):
    """The browser signed in as the owner, through the login form."""
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", owner.username)
    page.fill("input[name=password]", "pw-" + owner.username)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/sites/")
    return page
