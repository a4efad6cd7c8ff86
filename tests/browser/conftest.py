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

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str | None:
    configured = os.environ.get("WEBAUDIT_CHROMIUM")
    if configured:
        return configured if Path(configured).exists() else None
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


@pytest.fixture(scope="package", autouse=True)
def orm_beside_playwright():
    """Playwright's synchronous API runs an event loop in the test's thread; the test's own ORM calls (creating
    rows, reading results, the test database's set-up) are still plain synchronous code, which Django would
    otherwise refuse under a running loop. Set while this package's tests run only: a deployment check run by a
    later test (in a subprocess inheriting the environment) must not see it."""
    name = "DJANGO_ALLOW_ASYNC_UNSAFE"
    previous = os.environ.get(name)
    os.environ[name] = "true"
    yield
    if previous is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = previous


@pytest.fixture(scope="package")
def browser(orm_beside_playwright):
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


def sign_in(page, live_server, user) -> None:
    """Sign the browser in as the user, through the login form."""
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", "pw-" + user.username)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/sites/")


@pytest.fixture
def signed_in_page(page, live_server, owner):
    """The browser signed in as the owner, through the login form."""
    sign_in(page, live_server, owner)
    return page


# A phone's screen in CSS pixels (an iPhone 12 to 15).
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def signed_in_phone(browser, live_server, owner):
    """A phone-sized browser signed in as the owner."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(20_000)
    sign_in(page, live_server, owner)
    yield page
    context.close()
