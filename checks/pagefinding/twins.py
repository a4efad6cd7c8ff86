"""Twin pages: two pages of a site that are views of one thing, named alike, and link each other.

Documentation generators write several pages per thing: Doxygen a class page and its "List of all members"
(`classFoo.html`, `classFoo-members.html`) and a header page and its source listing (`foo_8h.html`,
`foo_8h_source.html`); Javadoc a class page, its "Uses of" page and its source listing (`pkg/Foo.html`,
`pkg/class-use/Foo.html`, `src-html/pkg/Foo.html`); Sphinx an API page and the module's highlighted source
(`reference/celery.worker.control.html`, `_modules/celery/worker/control.html`). Twins hold the same names,
so the one a query was made from and its twin both hold the query; which one holds it most is known only by
reading both (issue 19: most misses on Doxygen, Javadoc and Sphinx sites with source pages were the twin of
the page answered). The finder reads the twins of its best pages before it answers (finder.py).

Twins are told by their URLs alone, not by a generator's link texts: two URLs of one site are twins when
their last segments (less the extension) are the same name in other folders, or one name is the other's with
words added after a dash or an underscore, or one URL's folders spell the other's dotted name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from urllib.parse import urlsplit

# A page with more links of its own name than this is a listing of things so named (a module's page and its
# submodules' pages, `asyncio` and `asyncio-task`, `asyncio-stream`…), not one thing's views.
MAX_TWINS = 3

_EXTENSION = re.compile(r"\.(s?html?|php|aspx?|jsp)$")
# A folder's own page is named by its folder ("orm/extensions/index.html" is "extensions").
_FOLDER_PAGES = frozenset({"index", "default", "readme"})


def url_segments(url: str) -> tuple[str, tuple[str, ...]]:
    """The URL's site (scheme and host) and its path's segments, lower-cased, the page's extension dropped
    and a folder's own page named by its folder."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.lower().split("/") if s]
    if segments:
        segments[-1] = _EXTENSION.sub("", segments[-1])
    if len(segments) > 1 and segments[-1] in _FOLDER_PAGES:
        segments.pop()
    return f"{parts.scheme}://{parts.netloc}".lower(), tuple(segments)


def _extends(longer: str, shorter: str) -> bool:
    """`longer` is `shorter` with words added after a dash or underscore ("foo_8h_source", "Foo-members").
    A dot adds a part (a submodule, a nested class): that is a child, not another view."""
    return len(longer) > len(shorter) and longer.startswith(shorter) and longer[len(shorter)] in "-_"


def _ends_with_dotted(path: tuple[str, ...], name: str) -> bool:
    """The path's folders spell the dotted name ("_modules/celery/worker/control" and
    "celery.worker.control")."""
    parts = tuple(name.split("."))
    return len(parts) >= 2 and all(parts) and len(path) > len(parts) and path[-len(parts) :] == parts


def are_twins(a: str, b: str) -> bool:
    """Two pages of one site named as one thing's views (the module's docstring)."""
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    site_a, path_a = url_segments(a)
    site_b, path_b = url_segments(b)
    if site_a != site_b or not path_a or not path_b or path_a == path_b:
        return False
    name_a, name_b = path_a[-1], path_b[-1]
    return (
        name_a == name_b
        or _extends(name_a, name_b)
        or _extends(name_b, name_a)
        or _ends_with_dotted(path_a, name_b)
        or _ends_with_dotted(path_b, name_a)
    )


def twins_of(url: str, targets: Iterable[str]) -> list[str]:
    """The targets (a page's links) that are the page's twins, in order, none when there are more than
    MAX_TWINS of them (a listing, MAX_TWINS' comment)."""
    found = list(dict.fromkeys(t for t in targets if are_twins(url, t)))
    return found if len(found) <= MAX_TWINS else []


# A page's other views are also named by a link its generator writes on every page of its kind, each time to
# that page's own view: Doxygen's "List of all members" (where file names are numbers, `a01227.html` and
# `a01220.html`, and name no twin), Javadoc's "Use" and "Tree". A link text is such a view link when the pages
# read that carry it carry it once each, each to a target of its own, on at least VIEW_MIN_PAGES of them: the
# site's navigation ("Main Page", "Classes") leads every page to one target, and a list repeats its texts.
VIEW_MIN_PAGES = 3
_MAX_VIEW_TEXT = 80


def _view_key(text: str) -> str | None:
    """A link text as a view link's key (spacing and case ignored); None for no text, a long one or one
    without letters (a line number)."""
    key = " ".join(text.split()).lower()
    return key if 0 < len(key) <= _MAX_VIEW_TEXT and any(c.isalpha() for c in key) else None


class ViewLinks:
    """The link texts of the pages read, for telling a page's view links (VIEW_MIN_PAGES' comment)."""

    def __init__(self) -> None:
        self.targets: dict[str, dict[str, str]] = {}  # text -> {page carrying it once: its target}

    def add(self, page: str, links: Iterable) -> None:
        keys = [(_view_key(link.text), link.target) for link in links]
        counts = Counter(key for key, _ in keys)
        for key, target in keys:
            if key is not None and counts[key] == 1 and target != page:
                self.targets.setdefault(key, {})[page] = target

    def of(self, page: str, links: Iterable) -> list[str]:
        """The targets of the page's view links, in the page's order."""
        found = []
        for link in links:
            holders = self.targets.get(_view_key(link.text) or "")
            if (
                holders is not None
                and holders.get(page) == link.target
                and len(holders) >= VIEW_MIN_PAGES
                and len(set(holders.values())) == len(holders)
            ):
                found.append(link.target)
        return found
