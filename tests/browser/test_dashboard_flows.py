"""The dashboard's main flows in a real browser: add a site, crawl it with a real Celery worker, watch the crawl
live, open the issues overview and drill down to the broken page; and the layouts that used to overflow."""

from __future__ import annotations

import itertools
import os
import signal
import time

import kombu
import pytest
import redis
from django.utils import timezone
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from werkzeug.wrappers import Response

from sites.models import Crawl, Site
from sites.tasks import crawl_step as crawl_step_task
from tests.sites.factories import make_crawl, make_link, make_page, make_site
from tests.sites.test_worker_resume import database_url, start_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PAGES = 24
# Links each page holds to the one missing page, as the python docs' pages link to their missing changelog.
LINKS_TO_MISSING = 3


def slow_page(body: str):
    def respond(request):
        time.sleep(0.05)  # a crawl long enough to watch
        return Response(body, content_type="text/html; charset=utf-8")

    return respond


def finish_job_on_worker(page, job, *, redis_url: str, worker_log) -> None:
    """Hand the analysis job the button enqueued to the worker's broker (as crawls are: the web process's
    broker is the embedded one) and wait until the page shows it finished."""
    from checks.tasks import analysis_step

    with kombu.Connection(redis_url) as broker:
        analysis_step.apply_async((job.pk,), connection=broker)
    try:
        page.wait_for_selector("#job-progress[data-status=finished]", timeout=120_000)
    except PlaywrightTimeout:
        raise AssertionError(
            f"the {job.kind} job did not finish; worker log:\n{worker_log.read_text()[-3000:]}"
        ) from None


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
    with kombu.Connection(redis_url) as broker:
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


# The progress card's Broken figure and the sum of the overview's broken kinds (sites.services.issues.BROKEN_KINDS),
# as the page shows them now.
BROKEN_SHOWN = """() => {
  const figure = [...document.querySelectorAll('#crawl-progress .stats div')]
    .find(stat => stat.querySelector('dt').textContent.trim() === 'Broken').querySelector('dd').firstChild;
  const listed = ['broken_internal', 'soft404', 'failed', 'broken_external']
    .map(kind => document.querySelector(`#issues tr[data-issue=${kind}] td.num`))
    .filter(Boolean).map(cell => parseInt(cell.textContent.replace(/,/g, ''), 10));
  return [parseInt(figure.textContent.trim().replace(/,/g, ''), 10), listed.reduce((a, b) => a + b, 0)];
}"""


def test_the_live_counters_and_the_issues_overview_change_together_and_the_end_reloads_the_page(
    signed_in_page, live_server, owner, artifacts
):
    site = make_site(owner=owner, url="https://example.com/")
    crawl = make_crawl(site, status=Crawl.Status.RUNNING, pages_done=1, pages_queued=1)
    home = make_page(crawl, "https://example.com/")
    page = signed_in_page
    page.goto(f"{live_server.url}/sites/crawls/{crawl.pk}/")
    assert "None found so far" in page.locator("#issues").inner_text()
    # Note every moment the page shows the two figures apart, from now on.
    page.evaluate(f"window.brokenShown = {BROKEN_SHOWN}")
    page.evaluate(
        """() => {
             window.apart = [];
             new MutationObserver(() => {
               const [figure, listed] = window.brokenShown();
               if (figure !== listed) window.apart.push([figure, listed]);
             }).observe(document.body, {childList: true, subtree: true, characterData: true});
           }"""
    )
    # What a batch writes in one transaction: the page, its verdict and the counters.
    make_link(home, make_page(crawl, "https://example.com/gone", 404))
    Crawl.objects.filter(pk=crawl.pk).update(pages_done=2, pages_queued=0, pages_failed=1)
    page.wait_for_function("window.brokenShown().join() === '1,1'", timeout=20_000)
    assert page.evaluate("window.apart") == []
    page.screenshot(path=str(artifacts / "live-broken.png"), full_page=True)

    page.evaluate("window.stillTheSamePage = true")
    Crawl.objects.filter(pk=crawl.pk).update(status=Crawl.Status.FINISHED, finished_at=timezone.now())
    page.wait_for_selector("#crawl-progress[data-status=finished]", timeout=20_000)
    assert page.evaluate("window.stillTheSamePage === undefined")  # reloaded in full, not patched
    assert page.locator("#crawl-live").count() == 0


def _overflows(page, selector: str) -> list[dict]:
    return page.evaluate(
        """selector => [...document.querySelectorAll(selector)]
             .filter(el => el.scrollWidth > el.clientWidth + 1)
             .map(el => ({id: el.id, cls: el.className, scroll: el.scrollWidth, client: el.clientWidth}))""",
        selector,
    )


def test_the_crawl_page_fits_a_1400_pixel_window(signed_in_page, live_server, owner, artifacts):
    site = make_site(owner=owner, url="https://example.com/")
    crawl = make_crawl(site, external_admitted=1675, external_done=1675, external_cached=312, pages_done=2845)
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
    # The progress card's figures are one number each in its big font, details beneath (it used to wrap).
    external = page.locator("#crawl-progress .stats div", has=page.locator("dt", has_text="External targets"))
    assert external.locator("dd").evaluate("dd => dd.firstChild.textContent.trim()") == "1,675"
    assert "312 from cache" in external.inner_text()
    # The analyses' forms sit side by side without one, or one of its controls, running over the next.
    boxes = [form.bounding_box() for form in page.locator(".analysis-forms fieldset").all()]
    assert len(boxes) >= 3
    for left, right in itertools.pairwise(boxes):
        if abs(left["y"] - right["y"]) < 1:  # the same row
            assert left["x"] + left["width"] <= right["x"] + 1
    sticking_out = page.evaluate(
        """() => [...document.querySelectorAll('.analysis-forms fieldset')].flatMap(set => {
             const box = set.getBoundingClientRect();
             return [...set.querySelectorAll('input, select, textarea')]
               .filter(el => el.getBoundingClientRect().right > box.right + 1).map(el => el.name);
           })"""
    )
    assert sticking_out == []


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


def test_run_decay_on_a_crawl_and_find_its_high_decay_pages_in_the_overview(
    signed_in_page, live_server, owner, docs_site, worker, redis_url, artifacts
):
    from checks.models import AnalysisJob
    from sites.services.crawls import crawl_run, crawl_start
    from sites.services.sites import site_create

    site = site_create(owner=owner, url=docs_site, name="Docs", check_external=False)
    crawl = crawl_run(crawl=crawl_start(site=site, enqueue=False))
    page = signed_in_page
    page.goto(f"{live_server.url}/sites/crawls/{crawl.pk}/")
    page.click("button:has-text('Run decay')")
    page.wait_for_selector("#job-progress")
    job = AnalysisJob.objects.get(crawl=crawl, kind="decay")
    finish_job_on_worker(page, job, redis_url=redis_url, worker_log=worker)
    page.screenshot(path=str(artifacts / "1-decay-job.png"), full_page=True)

    page.goto(f"{live_server.url}/sites/crawls/{crawl.pk}/")
    # Fix-first beside the broken pages.
    aside = page.locator("#broken-targets .targets-aside")
    assert "whatsnew/changelog.html" in aside.inner_text()
    box, table = aside.bounding_box(), page.locator("#broken-targets-table").bounding_box()
    assert box["x"] > table["x"] + table["width"] - 1  # beside, not below
    row = page.locator("#issues tr[data-issue=high_decay]")
    assert int(row.locator("td.num").inner_text()) >= 1
    row.locator("a").click()
    page.wait_for_url("**dmin=0.5**#decay-pages")
    page.screenshot(path=str(artifacts / "2-high-decay-pages.png"), full_page=True)
    assert "whatsnew/changelog.html" in page.locator("#fix-first ~ .table-wrap").first.inner_text()


def test_run_page_types_on_a_crawl(
    signed_in_page, live_server, owner, docs_site, worker, redis_url, artifacts
):
    from checks.models import AnalysisJob
    from sites.services.crawls import crawl_run, crawl_start
    from sites.services.sites import site_create

    site = site_create(owner=owner, url=docs_site, name="Docs", check_external=False)
    crawl = crawl_run(crawl=crawl_start(site=site, enqueue=False))
    page = signed_in_page
    page.goto(f"{live_server.url}/sites/crawls/{crawl.pk}/")
    page.click("button:has-text('Run page types')")
    page.wait_for_selector("#job-progress")
    job = AnalysisJob.objects.get(crawl=crawl)
    finish_job_on_worker(page, job, redis_url=redis_url, worker_log=worker)
    page.screenshot(path=str(artifacts / "page-types.png"), full_page=True)
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.FINISHED and job.result


def test_find_a_page_from_the_site_page_and_see_how_sure_the_answer_is(
    signed_in_page, live_server, owner, httpserver, worker, redis_url, artifacts
):
    from checks.models import AnalysisJob
    from sites.services.sites import site_create
    from tests.checks.pagefinding.sites import serve_town_hall

    site = site_create(owner=owner, url=serve_town_hall(httpserver), name="Town hall")
    page = signed_in_page
    page.goto(f"{live_server.url}/sites/{site.pk}/")
    form = page.locator("form.analysis-form", has=page.locator("button:has-text('Run find a page')"))
    form.locator("input[name=query]").fill("income tax form")
    page.screenshot(path=str(artifacts / "1-find-a-page-form.png"), full_page=True)
    form.locator("button:has-text('Run find a page')").click()
    page.wait_for_selector("#job-progress")
    job = AnalysisJob.objects.get(site=site, kind="findpage")
    finish_job_on_worker(page, job, redis_url=redis_url, worker_log=worker)
    page.wait_for_selector("#findpage-candidates")
    page.screenshot(path=str(artifacts / "2-find-a-page-result.png"), full_page=True)
    answer = httpserver.url_for("/tax-form.html")
    assert answer in page.locator(".alert-success").inner_text()
    first = page.locator("#findpage-candidates tbody tr").first
    assert answer in first.inner_text() and first.locator("td.num").inner_text()


def test_a_decay_result_with_long_urls_fits_a_phone(signed_in_phone, live_server, owner, artifacts):
    from checks.jobs import job_run, job_start

    site = make_site(owner=owner, url="https://example.com/")
    crawl = make_crawl(site)
    html = {"content_type": "text/html; charset=utf-8"}
    # No hyphen to break at: a browser breaks a URL at "-" but not at "/" or ".".
    long = "https://example.com/library/" + "importlib.metadata." * 4 + "html"
    home = make_page(crawl, "https://example.com/", **html)
    deep = make_page(crawl, long, **html)
    dead = make_page(crawl, long + "?gone", 404)
    make_link(home, deep)
    make_link(deep, dead)
    job = job_run(job=job_start(kind="decay", crawl=crawl, parameters={}, enqueue=False))
    page = signed_in_phone
    for name, path in (("job", f"/checks/jobs/{job.pk}/"), ("crawl", f"/sites/crawls/{crawl.pk}/")):
        page.goto(live_server.url + path)
        page.wait_for_selector("#most-decayed")
        page.screenshot(path=str(artifacts / f"decay-{name}-390.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), name
