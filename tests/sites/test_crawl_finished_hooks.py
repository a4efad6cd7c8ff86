"""WEBAUDIT_CRAWL_FINISHED_HOOKS: each runs once a crawl has finished; one that fails never fails the crawl."""

from __future__ import annotations

import pytest

from tests.sites import hooks
from tests.sites.sitebuilder import serve_site

pytestmark = pytest.mark.django_db


def test_hooks_run_after_a_finished_crawl_and_a_failing_one_is_only_logged(
    httpserver, crawl_site, settings, caplog
):
    settings.WEBAUDIT_CRAWL_FINISHED_HOOKS = ["tests.sites.hooks:explode", "tests.sites.hooks:record"]
    root = serve_site(httpserver, {"/": "<html><body>home</body></html>"})
    hooks.SEEN.clear()
    crawl = crawl_site(root)
    assert crawl.status == "finished"
    assert hooks.SEEN == [crawl.pk]
    assert "crawl-finished hook tests.sites.hooks:explode failed" in caplog.text


def test_hooks_do_not_run_for_a_crawl_that_failed(crawl_site, settings, closed_port):
    settings.WEBAUDIT_CRAWL_FINISHED_HOOKS = ["tests.sites.hooks:record"]
    hooks.SEEN.clear()
    crawl = crawl_site(f"http://127.0.0.1:{closed_port}/")
    assert crawl.status == "failed" and hooks.SEEN == []
