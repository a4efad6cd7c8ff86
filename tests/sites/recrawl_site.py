"""A small site on pytest-httpserver that can change between crawls and answers conditional requests as nginx
does: every page carries an ETag and a Last-Modified, and a matching If-None-Match gets a bodiless 304."""

from __future__ import annotations

import hashlib
import re

from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Request, Response

NOT_FOUND = "<html><body>Not found</body></html>"


class ValidatingSite:
    LAST_MODIFIED = "Mon, 02 Nov 2026 10:00:00 GMT"

    def __init__(self, server: HTTPServer, pages: dict[str, str]) -> None:
        self.pages = dict(pages)  # path -> HTML; change it between crawls
        self.redirects: dict[str, str] = {}  # path -> path it answers 301 to
        self.conditional: list[tuple[str, str, str]] = []  # (path, If-None-Match, If-Modified-Since)
        server.no_handler_status_code = 404
        server.expect_request("/robots.txt").respond_with_data("", content_type="text/plain")
        server.expect_request(re.compile("^/(?!robots).*")).respond_with_handler(self.answer)
        self.root = server.url_for("/")

    def etag(self, path: str) -> str:
        return '"' + hashlib.sha1(self.pages[path].encode()).hexdigest()[:16] + '"'

    def answer(self, request: Request) -> Response:
        path = request.path
        if path in self.redirects:
            return Response(status=301, headers={"Location": self.redirects[path]})
        if path not in self.pages:
            return Response(NOT_FOUND, status=404, content_type="text/html")
        asked_etag = request.headers.get("If-None-Match", "")
        asked_date = request.headers.get("If-Modified-Since", "")
        if asked_etag or asked_date:
            self.conditional.append((path, asked_etag, asked_date))
        headers = {"ETag": self.etag(path), "Last-Modified": self.LAST_MODIFIED}
        if asked_etag == self.etag(path):
            return Response(status=304, headers=headers)
        return Response(self.pages[path], content_type="text/html; charset=utf-8", headers=headers)


# What differs between two crawls of the same pages by nature: row ids, when and how fast each page answered,
# whether it was reused, and the frontier's bookkeeping.
CRAWL_OWN_FIELDS = {"id", "crawl", "claim_token", "claimed_at", "fetched_at", "response_ms", "not_modified"}
CRAWL_OWN_SUMMARY = {"id", "started_at", "finished_at", "requests", "requests_per_page", "bytes_received"}
CRAWL_OWN_SUMMARY |= {"not_modified", "baseline", "external"}


def _without_probe_urls(probe: dict | None) -> dict | None:
    """A directory probe asks for a random path, another each crawl: what it found is compared, not where."""
    return probe and {key: value for key, value in probe.items() if key not in ("url", "final_url")}


def crawl_snapshot(crawl) -> dict:
    """Everything a crawl found, keyed by URL and free of row ids: pages with every field, links, bodies, extracts,
    the JSON report and the issues report. Two crawls of the same site must give equal snapshots, reused or not."""
    from sites.models import Link, Page, PageBody, PageExtract
    from sites.services.issues import crawl_issues_report
    from sites.services.reports import crawl_report

    names = [field.name for field in Page._meta.concrete_fields if field.name not in CRAWL_OWN_FIELDS]
    pages = {row["url"]: row for row in Page.objects.filter(crawl=crawl).values(*names)}
    for row in pages.values():
        row["probe"] = _without_probe_urls(row["probe"])
    links = sorted(
        Link.objects.filter(crawl=crawl).values_list(
            "source__url", "target_url", "target__url", "text", "tag", "is_internal", "nofollow"
        ),
        key=repr,
    )
    bodies = {
        row.page.url: row.content for row in PageBody.objects.filter(page__crawl=crawl).select_related("page")
    }
    extracts = dict(
        ((url, name), bytes(data))
        for url, name, data in PageExtract.objects.filter(page__crawl=crawl).values_list(
            "page__url", "name", "data"
        )
    )
    report = crawl_report(crawl)
    summary = {key: value for key, value in report["crawl"].items() if key not in CRAWL_OWN_SUMMARY}
    for row in report["pages"]:
        del row["response_ms"], row["checked_at"]
    for row in report["pages"] + report["links"]:
        row["probe"] = _without_probe_urls(row["probe"])
    issues = crawl_issues_report(crawl=crawl)
    del issues["crawl"]
    return {
        "pages": pages,
        "links": links,
        "bodies": bodies,
        "extracts": extracts,
        "summary": summary,
        "report_pages": sorted(report["pages"], key=repr),
        "report_links": sorted(report["links"], key=repr),
        "issues": issues,
    }
