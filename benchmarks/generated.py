"""A generated site of N pages for `benchmarks/crawl.py --generated N`: seeded, reproducible, served by nginx.

Page i (0 is the start page) links to its children 20i+1 … 20i+20 (those below N, so every page is reachable
and the site is a tree of depth log20 N), and fills its 20 links with pages drawn at random (seeded), so the
crawl meets as many already-known URLs per page as a real site does. Pages live under
`${TESTBED_DIR:-/tmp/webaudit-testbed}/generated/<N>-<seed>/`, the test bed's runtime folder, and are served by
an nginx of their own (the test bed's binary and mime types, a configuration written here, port 8190): the
shared test bed's configuration is not ours to change.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LINKS_PER_PAGE = 20
PORT = 8190
RUNTIME = Path(os.environ.get("TESTBED_DIR", "/tmp/webaudit-testbed"))


def page_path(index: int) -> str:
    """The URL path of page `index`: a thousand pages a folder, like a big documentation tree."""
    return "/" if index == 0 else f"/s{index // 1000:03d}/p{index}.html"


def page_html(index: int, total: int, rng: random.Random) -> str:
    children = [
        child for child in range(LINKS_PER_PAGE * index + 1, LINKS_PER_PAGE * index + 21) if child < total
    ]
    targets = children + [rng.randrange(total) for _ in range(LINKS_PER_PAGE - len(children))]
    links = "\n".join(f'<li><a href="{page_path(t)}">Page {t}</a></li>' for t in targets)
    words = " ".join(rng.choice(WORDS) for _ in range(120))
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>Page {index} of {total}</title></head>"
        f"<body><h1>Page {index}</h1><p>{words}</p><ul>\n{links}\n</ul></body></html>\n"
    )


WORDS = (
    "crawl frontier page link broken index document section chapter module function class method value "
    "return example reference guide tutorial install configure server client request response header"
).split()


def generate(total: int, seed: int = 1) -> Path:
    """Write the site once (a marker file says it is complete) and return its folder."""
    root = RUNTIME / "generated" / f"{total}-{seed}"
    if (root / ".complete").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(seed)
    for index in range(total):
        path = root / (page_path(index).lstrip("/") or "index.html")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page_html(index, total, rng), encoding="utf-8")
    (root / "robots.txt").write_text("User-agent: *\nAllow: /\n")
    (root / ".complete").write_text(str(total))
    for folder in [RUNTIME, RUNTIME / "generated", root, *root.iterdir()]:
        if folder.is_dir():
            folder.chmod(0o755)  # nginx workers run as nobody when started by root
    return root


@contextmanager
def served(root: Path, port: int = PORT) -> Iterator[str]:
    """Serve `root` with a private nginx on 127.0.0.1:`port` until the block ends; yield the start URL."""
    runtime = RUNTIME / f"generated-nginx-{port}"
    (runtime / "tmp").mkdir(parents=True, exist_ok=True)
    conf = runtime / "nginx.conf"
    conf.write_text(
        f"""worker_processes 1;
pid {runtime}/nginx.pid;
error_log {runtime}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  include /etc/nginx/mime.types;
  access_log off;
  client_body_temp_path {runtime}/tmp/body;
  proxy_temp_path {runtime}/tmp/proxy;
  fastcgi_temp_path {runtime}/tmp/fastcgi;
  uwsgi_temp_path {runtime}/tmp/uwsgi;
  scgi_temp_path {runtime}/tmp/scgi;
  sendfile on;
  server {{ listen 127.0.0.1:{port}; root {root}; index index.html; }}
}}
"""
    )
    subprocess.run(
        ["nginx", "-p", str(runtime), "-c", str(conf), "-e", str(runtime / "error.log")], check=True
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        pid = int((runtime / "nginx.pid").read_text())
        os.kill(pid, signal.SIGTERM)
