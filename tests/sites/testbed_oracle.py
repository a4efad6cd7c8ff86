"""An independent reference crawler for the test bed (stdlib only) and the statuses its files imply."""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from collections import deque
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from sites.crawler.urls import normalize_url

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
ACCESS_LOG = Path(os.environ.get("TESTBED_DIR", "/tmp/webaudit-testbed")) / "access.log"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.base: str | None = None
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "base" and values.get("href") and self.base is None:
            self.base = values["href"]
        elif tag == "a" and values.get("href"):
            self.hrefs.append(values["href"])
        elif tag == "img" and values.get("src"):
            self.hrefs.append(values["src"])


def reachable_urls(start: str) -> set[str]:
    """Every same-host URL reachable from `start` through a[href] and img[src] of 2xx HTML pages."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    host = urlsplit(start).netloc
    seen, queue = {start}, deque([start])
    while queue:
        url = queue.popleft()
        try:
            with opener.open(url, timeout=10) as response:
                if "html" not in response.headers.get("Content-Type", ""):
                    continue
                final, body = response.geturl(), response.read()
        except (urllib.error.URLError, OSError):
            continue
        parser = _Links()
        parser.feed(body.decode("utf-8", "replace"))
        base = urljoin(final, parser.base) if parser.base else final
        for href in parser.hrefs:
            target = normalize_url(href, base)
            if target and urlsplit(target).netloc == host and target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def expected_first_status(url: str, root: Path = PYTHON_DOCS) -> int:
    """The status nginx answers first for `url` on an honest site serving `root`."""
    path = unquote(urlsplit(url).path)
    target = root / path.lstrip("/")
    if target.is_dir():
        if not path.endswith("/"):
            return 301
        return 200 if (target / "index.html").is_file() else 403
    return 200 if target.is_file() else 404


def paths_requested_by(user_agent: str) -> list[str]:
    """Request paths in the test bed's access log made with this User-Agent."""
    paths = []
    for line in ACCESS_LOG.read_text(errors="replace").splitlines():
        if line.endswith(f'"{user_agent}"'):
            request = line.split('"')[1]  # GET /path HTTP/1.1
            paths.append(request.split(" ")[1])
    return paths
