"""Real test-bed pages for the MWIM tests, fetched once per session."""

from __future__ import annotations

import urllib.request

import pytest

PAGES = [
    "http://127.0.0.1:8101/library/os.html",  # 750 KB, 13,000 words
    "http://127.0.0.1:8101/tutorial/introduction.html",
    "http://127.0.0.1:8102/sql-select.html",
    "http://127.0.0.1:8102/sql-commit.html",  # 5 KB
    "http://127.0.0.1:8103/topics/db/models.html",
    "http://127.0.0.1:8103/",
]


@pytest.fixture(scope="session")
def testbed_pages(testbed) -> list[tuple[str, bytes]]:
    pages = []
    for url in PAGES:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - the local test bed
            pages.append((url, response.read()))
    return pages


POSTGRES_DOCS = "/usr/share/doc/postgresql-doc-15/html"
# Real test-bed pages (the postgres documentation the test bed serves on 8102), copied so that a test can
# change one and publish a verification file beside them.
COPIED = ["sql-commit.html", "sql-select.html", "sql-insert.html", "sql-update.html", "sql-delete.html"]


class StaticSite:
    """A folder served over HTTP on 127.0.0.1 by a thread of this process."""

    def __init__(self, folder) -> None:
        import functools
        import threading
        from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

        class Quiet(SimpleHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

        self.folder = folder
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def docs_site(tmp_path, testbed):
    """A site of five real postgres documentation pages, an index linking them, a noindex page and a page
    whose canonical is another: served by a local server, changeable by the test."""
    from pathlib import Path

    folder = tmp_path / "site"
    folder.mkdir()
    links = []
    for name in COPIED:
        (folder / name).write_bytes((Path(POSTGRES_DOCS) / name).read_bytes())
        links.append(f'<li><a href="{name}">{name}</a></li>')
    (folder / "hidden.html").write_text(
        '<html><head><meta name="robots" content="noindex"><title>Hidden</title></head><body>secret</body></html>'
    )
    (folder / "copy.html").write_text(
        '<html><head><link rel="canonical" href="/sql-commit.html"><title>Copy</title></head><body>c</body></html>'
    )
    links += ['<li><a href="hidden.html">hidden</a></li>', '<li><a href="copy.html">copy</a></li>',
              '<li><a href="missing.html">missing</a></li>']  # fmt: skip
    (folder / "index.html").write_text(
        f'<html lang="en"><head><title>SQL commands</title></head><body><h1>SQL commands</h1><ul>{"".join(links)}</ul></body></html>'
    )
    site = StaticSite(folder)
    yield site
    site.close()


@pytest.fixture
def eager_jobs():
    """Celery runs tasks in the calling process, so the `ce` job a finished crawl starts runs to its end."""
    from webaudit.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before
