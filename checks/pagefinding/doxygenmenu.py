"""Doxygen's menu bar, read as the links it shows. Since Doxygen 1.8.12 (the default, `GENERATE_TREEVIEW = NO`)
a page's menu bar — Main Page, Namespaces, Classes, Files, each with its sub-pages — is no HTML of the page:
its script `menu.js` builds it in the browser from `menudata.js`, which every page loads (`<script
src="menudata.js">`, `../menudata.js` from a sub-folder). A main page without text of its own then links no
page at all: without the menu a search from it reads nothing. The menu is the site's table of contents, one
download, so a page naming it links it as "Contents" (`htmlpage.py`), and reading it gives its entries as the
links of a page: each entry's text is its link text and the entries it sits under are its context ("Class
Members › All › a"). Its URLs are relative to the site's root, the folder of `menudata.js`, as `menu.js`
prefixes them with the path to the root."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

MENU_SCRIPT = "menudata.js"
# The file's only statement: `var menudata={children:[{text:"Main Page",url:"index.html"},…]}`.
_MENU_START = re.compile(r"\bvar\s+menudata\s*=\s*\{")
# One entry's opening: its text and its URL, as Doxygen writes them (JSON-escaped strings, text first).
_ENTRY = re.compile(r'\{\s*text\s*:\s*"((?:[^"\\]|\\.){0,300})"\s*,\s*url\s*:\s*"((?:[^"\\]|\\.){0,500})"')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')  # an entry's text may hold a brace ("operator{}")
# A menu lists the site's index pages (a large API's member index has a letter each: a few hundred entries);
# this bounds what a hostile one can make the finder read and hold (entries, repeated or not).
MAX_ENTRIES = 2_000
MAX_DEPTH = 10


class NotAMenu(ValueError):
    """The body is not a Doxygen menu (a soft-404 page, another script): read as a page without links."""


@dataclass(frozen=True)
class MenuEntry:
    url: str  # absolute, without its fragment
    text: str
    context: str  # the texts of the entries it sits under, outermost first


def parse_doxygen_menu(body: bytes, *, menu_url: str) -> list[MenuEntry]:
    """The entries of a Doxygen `menudata.js` fetched from `menu_url`, in menu order, one per page (the first
    entry naming it); raise NotAMenu when the body is not one."""
    text = body.decode("utf-8", errors="replace")
    start = _MENU_START.search(text)
    if start is None:
        raise NotAMenu("no `var menudata = {…}` in the script")
    entries: dict[str, MenuEntry] = {}
    path: list[tuple[int, str]] = []  # the open entries above the next one: (brace depth, text)
    depth, position = 1, start.end()
    for count, match in enumerate(_ENTRY.finditer(text, start.end()), 1):
        if count > MAX_ENTRIES:
            raise NotAMenu(f"more than {MAX_ENTRIES} menu entries")
        # Depth of the entry's own brace: the braces between the last entry and this one open and close
        # the `children:[…]` lists around it.
        between = _STRING.sub("", text[position : match.start()])
        depth += between.count("{") - between.count("}")
        position = match.start()
        while path and path[-1][0] >= depth + 1:
            path.pop()
        if not 1 <= depth <= MAX_DEPTH:
            raise NotAMenu("the menu's entries are not nested as Doxygen writes them")
        label, href = _unescape(match.group(1)), _unescape(match.group(2))
        target = _resolve(href, menu_url)
        if target and target not in entries:
            entries[target] = MenuEntry(target, label, " ".join(text for _, text in path))
        path.append((depth + 1, label))
    if not entries:
        raise NotAMenu("no menu entry")
    return list(entries.values())


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _resolve(href: str, menu_url: str) -> str:
    """The entry's page, absolute: only links on the menu's own site, by http(s) (a `javascript:` or an
    external URL is no page of the site)."""
    if not href or href.startswith(("javascript:", "#")):
        return ""
    target = urldefrag(urljoin(menu_url, href))[0]
    parts, site = urlsplit(target), urlsplit(menu_url)
    if parts.scheme not in ("http", "https") or parts.netloc != site.netloc:
        return ""
    return target
