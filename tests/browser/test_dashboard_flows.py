"""The dashboard's main flows in a real browser: add a site, crawl it with a real Celery worker, watch the crawl
live, open the issues overview and drill down to the broken page; and the layouts that used to overflow."""

from __future__ import annotations

import os
import signal
import time

import pytest
import redis
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from werkzeug.wrappers import Response

from sites.models import Crawl, Site
from sites.tasks import crawl_step as crawl_step_task
from tests.sites.factories import make_crawl, make_link, make_page, make_site
from tests.sites.test_worker_resume import database_url, start_worker
from webaudit.celery import app as celery_app

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PAGES = 24
# Links each page holds to the one missing page, as the python docs' pages link to their missing changelog.
LINKS_TO_MISSING = 3


def slow_page(body: str):
    def respond(request):
        time.sleep(0.05)  # a crawl long enough to watch
        return Response(body, content_type="text/html; charset=utf-8")

    return respond


@pytest.fixture
def docs_site(httpserver) -> str:
    """A home page linking to PAGES pages, each linking home and LINKS_TO_MISSING times to a missing changelog."""
    httpserver.no_handler_status_code = 404
    links = "".join(f'<a href="/p{n}">Page {n}</a>' for n in range(PAGES))
    httpserver.expect_request("/").respond_with_handler(
        slow_page(f"<!doctype html><title>Docs</title><body>{links}</body>")
    )
    for n in range(PAGES):
        missing = '<a href="/whatsnew/changelog.html">Changelog</a>' * LINKS_TO_MISSING
        httpserver.expect_request(f"/p{n}").respond_with_handler(
            slow_page(f'<!doctype html><title>Page {n}</title><body><a href="/">Home</a>{missing}</body>')
        )
    return httpserver.url_for("/")


@pytest.fixture
def worker(redis_url, tmp_path):
    redis.Redis.from_url(redis_url).flushdb()
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="webaudit.settings",
        DATABASE_URL=database_url(),
        CELERY_BROKER_URL=redis_url,
        WEBAUDIT_VAR_DIR=str(tmp_path),
        WEBAUDIT_ALLOWED_NETWORKS="127.0.0.0/8",
        WEBAUDIT_CRAWL_STEP_SECONDS="1",
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    log = tmp_path / "worker.log"
    process = start_worker(env, log)
    yield log
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


def test_add_a_site_crawl_it_watch_it_live_and_act_on_its_issues(
    signed_in_page, live_server, docs_site, worker, redis_url, artifacts
):
    page = signed_in_page
    page.click("text=Add a site")
    page.fill("input[name=url]", docs_site)
    page.fill("input[name=name]", "Docs")
    page.fill("input[name=concurrency]", "1")
    page.fill("input[name=delay]", "0.2")
    page.uncheck("input[name=check_external]")
    page.screenshot(path=str(artifacts / "1-add-site.png"), full_page=True)
    page.click("button:has-text('Add site')")
    page.wait_for_selector("h1:has-text('Docs')")

    page.click("button:has-text('Start crawl')")
    page.wait_for_selector("#crawl-progress")
    crawl = Crawl.objects.get(site__name="Docs")
    page.screenshot(path=str(artifacts / "2-crawl-started.png"), full_page=True)
    # The live server shares this process's Celery app, whose broker in tests is not the worker's Redis: hand
    # the step the button enqueued to the worker's broker, as crawl_enqueue did.
    with celery_app.connection_for_write(redis_url) as broker:
        crawl_step_task.apply_async((crawl.pk, 0, crawl.generation, 1), connection=broker)

    # Watch it live: the page table fills while the crawl runs, without the page being reloaded.
    page.evaluate("window.stillTheSamePage = true")
    try:
        page.wait_for_function(
            "document.querySelectorAll('#pages-table tbody tr').length >= 3"
            " && document.querySelector('#crawl-progress').dataset.status === 'running'",
            timeout=60_000,
        )
    except PlaywrightTimeout:
        raise AssertionError(
            f"the crawl did not show live; worker log:\n{worker.read_text()[-3000:]}"
        ) from None
    assert page.evaluate("window.stillTheSamePage === true")
    page.screenshot(path=str(artifacts / "3-live.png"), full_page=True)

    # When it ends the page reloads itself with the complete report.
    page.wait_for_selector("#crawl-progress[data-status=finished]", timeout=120_000)
    crawl.refresh_from_db()
    assert crawl.status == Crawl.Status.FINISHED, f"worker log: {worker.read_text()[-2000:]}"
    overview = page.locator("#issues")
    assert overview.locator("tr[data-issue=broken_internal] td.num").inner_text() == "1"
    assert page.locator(".health-score").inner_text().isdigit()
    page.screenshot(path=str(artifacts / "4-issues.png"), full_page=True)

    overview.locator("a:has-text('Broken internal pages')").click()
    page.wait_for_url("**targets=internal#broken-targets")
    rows = page.locator("#broken-targets-table tbody tr")
    assert rows.count() == 1
    row = rows.first
    assert "/whatsnew/changelog.html" in row.locator("td.url").inner_text()
    assert row.locator("td.num").nth(0).inner_text() == str(PAGES * LINKS_TO_MISSING)
    assert row.locator("td.num").nth(1).inner_text() == str(PAGES)
    sources = row.locator(".source-list li")
    assert not sources.first.is_visible()
    row.locator("summary").click()
    assert sources.first.is_visible() and sources.count() == PAGES
    page.screenshot(path=str(artifacts / "5-broken-page-expanded.png"), full_page=True)


def _overflows(page, selector: str) -> list[dict]:
    return page.evaluate(
        """selector => [...document.querySelectorAll(selector)]
             .filter(el => el.scrollWidth > el.clientWidth + 1)
             .map(el => ({id: el.id, cls: el.className, scroll: el.scrollWidth, client: el.clientWidth}))""",
        selector,
    )


def test_the_crawl_page_fits_a_1400_pixel_window(signed_in_page, live_server, owner, artifacts):
    site = make_site(owner=owner, url="https://example.com/")
    crawl = make_crawl(site)
    long = "https://example.com/" + "/".join(["a-rather-long-directory-name"] * 6) + "/page.html"
    source = make_page(crawl, long)
    for n in range(5):
        target = make_page(crawl, f"{long}?missing={n}", 404)
        make_link(source, target, text="A link text that is as long as people make them, with words")
    make_link(
        source,
        make_page(crawl, "http://10.0.0.1/admin", None, is_internal=False, error_kind="blocked_address"),
    )
    page = signed_in_page
    page.goto(f"{live_server.url}/sites/crawls/{crawl.pk}/")
    page.screenshot(path=str(artifacts / "crawl-page-1400.png"), full_page=True)
    assert _overflows(page, "#broken-links-table .table-wrap") == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert "not checked" in page.locator("#pages-table").inner_text()


def test_the_site_page_manages_the_site(signed_in_page, live_server, owner, artifacts):
    site = make_site(owner=owner, url="https://example.com/", name="Example")
    page = signed_in_page
    page.goto(f"{live_server.url}/sites/{site.pk}/")
    page.click("text=Edit settings")
    page.fill("input[name=max_pages]", "123")
    page.click("button:has-text('Save settings')")
    page.wait_for_selector("text=Saved the settings")
    site.refresh_from_db()
    assert site.max_pages == 123
    page.click("text=Delete site…")
    page.screenshot(path=str(artifacts / "delete-site.png"), full_page=True)
    page.click("button:has-text('Delete site')")
    page.wait_for_url(f"{live_server.url}/sites/")
    assert not Site.objects.filter(pk=site.pk).exists()


def test_the_ce_viewer_keeps_long_urls_and_the_fingerprint_inside_their_cards(
    signed_in_page, live_server, owner, artifacts
):
    from django.utils import timezone

    from mwim.ce import decode
    from mwim.models import ContentExtractFile
    from tests.mwim.factories import ce_bytes, make_mwim_site

    mwim_site = make_mwim_site(owner, published_at=timezone.now())
    url = mwim_site.site.url + "/".join(["a-rather-long-directory-name-without-any-break"] * 5) + "/page.html"
    data = ce_bytes(url, "apples")
    row = ContentExtractFile.objects.create(
        mwim_site=mwim_site,
        url=url,
        url_key="b" * 40,
        data=data,
        fingerprint=decode(data).fingerprint_text,
        updated_at=timezone.now(),
    )
    page = signed_in_page
    page.goto(f"{live_server.url}/mwim/sites/{mwim_site.site_id}/ce/{row.url_key}/")
    page.wait_for_selector("text=Token dictionary")
    page.screenshot(path=str(artifacts / "ce-viewer.png"), full_page=True)
    cards_overflowing = page.evaluate(
        """[...document.querySelectorAll('.card')].filter(card =>
             [...card.querySelectorAll('dd, code, td')].some(el => {
               const a = el.getBoundingClientRect(), b = card.getBoundingClientRect();
               return a.right > b.right + 1 && !el.closest('.table-wrap');
             })).length"""
    )
    assert cards_overflowing == 0
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
