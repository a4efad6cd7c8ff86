"""Small factories for the dashboard and admin tests: rows written directly, no crawl run; a response reader."""

from __future__ import annotations

import itertools
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from sites.crawler.soft404.verdict import fetch_verdict
from sites.models import Crawl, Link, Page, Site, url_key

_numbers = itertools.count(1)


def make_user(username: str | None = None, **fields):
    username = username or f"user{next(_numbers)}"
    return get_user_model().objects.create_user(username=username, password="pw-" + username, **fields)


def make_site(owner=None, url: str | None = None, **fields) -> Site:
    owner = owner or make_user()
    url = url or f"https://site{next(_numbers)}.example/"
    return Site.objects.create(owner=owner, url=url, **fields)


def make_crawl(site: Site | None = None, status: str = Crawl.Status.FINISHED, **fields) -> Crawl:
    site = site or make_site()
    now = timezone.now()
    if status != Crawl.Status.QUEUED:
        fields.setdefault("started_at", now - timedelta(seconds=75))
    if status not in Crawl.ACTIVE:
        fields.setdefault("finished_at", now)
    fields.setdefault(
        "settings",
        {
            "start_url": site.url,
            "max_pages": 1000,
            "max_depth": 50,
            "concurrency": 4,
            "delay": 0.25,
            "obey_robots": True,
            "check_external": True,
        },
    )
    return Crawl.objects.create(site=site, status=status, **fields)


def make_page(crawl: Crawl, url: str | None = None, status_code: int | None = 200, **fields) -> Page:
    url = url or f"{crawl.site.url.rstrip('/')}/page-{next(_numbers)}"
    fields.setdefault("state", Page.State.DONE)
    fields.setdefault("final_url", url)
    fields.setdefault("size", 1234)
    fields.setdefault("response_ms", 42)
    if (
        fields["state"] == Page.State.DONE
        and "verdict" not in fields
        and fields.get("error_kind") != "robots"
    ):
        # The verdict the crawl engine gives such a fetch (a soft-404 must be asked for explicitly).
        decided = fetch_verdict(status=status_code, error_kind=fields.get("error_kind", ""))
        fields["verdict"] = decided.verdict if decided else "ok"
        fields.setdefault("verdict_reason", decided.reason if decided else "alive")
    return Page.objects.create(crawl=crawl, url=url, url_key=url_key(url), status_code=status_code, **fields)


def make_link(source: Page, target: Page | None = None, target_url: str | None = None, **fields) -> Link:
    return Link.objects.create(
        crawl=source.crawl,
        source=source,
        target=target,
        target_url=target_url or (target.url if target else "https://elsewhere.example/"),
        is_internal=target.is_internal if target else False,
        **fields,
    )


def body(response) -> str:
    """The text of a response, streamed or not."""
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()
