"""A site's symbol search index: the names (classes, members, packages, files) an API reference's search box
offers as one types, each with the page that documents it. Javadoc (JDK 9 and later) and Doxygen
(`SEARCHENGINE = YES`) write one for their search box; many queries on such sites are identifiers
("randomsetter sparsematrixtype maptraits"), and the index says which pages define or document those names
before any page is read. Names only, not text: like the term index (termindex.py) it ranks pages but rules
none out.

Found from what a page names, as its scripts find it:
- Javadoc: a page loads `script.js` and calls `loadScripts(document, 'script')` after setting `pathtoroot`;
  script.js's loadScripts names the index scripts (`type-search-index.js`, `member-search-index.js`, …), which
  it loads from `pathtoroot`. Each is `typeSearchIndex = [{…}, …]` (JDK 17: `…;updateSearchResults();`),
  JSON after the assignment; an entry's page is built as the site's search.js builds it.
- Doxygen: a page loads `search/searchdata.js`, which says, for each section of the index ("all", "classes",
  …), which first characters have entries; the search box loads `search/all_X` (X the character's position
  in hex) for the first character typed. Each `all_X.js` is `var searchData = [['key', ['Name', ['url', 1,
  'scope'], …]], …];`, a JavaScript array of single-quoted strings, read here as JSON once its strings are
  rewritten (no eval). Only the files of the query words' first characters are read, as the search box would.

Every file read is a download; bodies are bounded by the fetch, entries, nesting and names here. A body that
is not such an index raises NotAnIndex (siteindex.py); an entry naming a page off the index's site (another
host, `javascript:`) is dropped."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

from .siteindex import NotAnIndex, SiteIndex, index_of_postings, rank_by_rarity
from .text import terms

MAX_ENTRIES = (
    200_000  # entries read from one file; Commons Lang's member index has ~4,000, Eigen's all_*.js ~500
)
MAX_PAGES = 50_000
MAX_NAME_LENGTH = 200  # a name is an identifier (a member's label holds its parameters: cut)
MAX_NESTING = 8  # Doxygen's entries nest four deep ([[key, [name, [url, 1, scope]]]])
# The Javadoc indexes read, in order, when script.js names them: the names of types and of their members,
# which no link of the overview shows. Not the package index: the overview (a Javadoc site's home) links every
# package by its name already, and a class page links its own; nor the module and tag indexes, which name few
# pages (and are often named by script.js but absent). Each is a download.
JAVADOC_KINDS = ("type", "member")
# The Doxygen letter files read: one per distinct first character of the query's words, at most this many.
MAX_DOXYGEN_FILES = 4
UNNAMED = "<Unnamed>"  # Javadoc's package of classes in no package

_PATH_TO_ROOT = re.compile(r"""\bpathtoroot\s*=\s*(["'])([^"'<>]{0,300})\1""")
_LOAD_SCRIPTS = re.compile(r"\bloadScripts\s*\(")
_CREATE_ELEM = re.compile(r"""createElem\(\s*doc\s*,\s*tag\s*,\s*['"]([a-z]+)-search-index\.js['"]\s*\)""")
_JAVADOC_ASSIGNMENT = re.compile(rb"^\s*(?:var\s+)?([a-z]+)SearchIndex\s*=\s*")
_JAVADOC_TAIL = re.compile(rb"^\s*;?\s*(?:updateSearchResults\(\)\s*;?\s*)?$")
_DOXYGEN_ASSIGNMENT = re.compile(rb"^\s*var\s+searchData\s*=\s*")
_DOXYGEN_TAIL = re.compile(r"\s*;?\s*$")
_SECTIONS = re.compile(r"var\s+indexSectionsWithContent\s*=\s*\{([^}]{0,5000})\}", re.DOTALL)
_NAMES = re.compile(r"var\s+indexSectionNames\s*=\s*\{([^}]{0,5000})\}", re.DOTALL)
_NUMBERED = re.compile(r"""(\d{1,3})\s*:\s*"((?:[^"\\]|\\.){0,500})\"""")
SEARCHDATA = "search/searchdata.js"
JAVADOC_SCRIPT = "script.js"


@dataclass(frozen=True)
class SymbolSource:
    """Where a page's search box finds its symbol index: `kind` "javadoc" (`script` is script.js, `root` the
    page's pathtoroot) or "doxygen" (`script` is search/searchdata.js, `root` its folder)."""

    kind: str
    script: str
    root: str


def symbol_source(scripts: list[str], inline: list[str], url: str, normalize) -> SymbolSource | None:
    """The symbol index a page's scripts name (`scripts`: its <script src>, resolved; `inline`: its short
    inline scripts), or None. `normalize` resolves a reference against the page (sites.crawler.urls)."""
    for src in scripts:
        path = src.split("?", 1)[0]
        if path.endswith("/" + SEARCHDATA):
            return SymbolSource("doxygen", src, path[: -len("searchdata.js")])
    script = next((src for src in scripts if src.split("?", 1)[0].endswith("/" + JAVADOC_SCRIPT)), None)
    if script is None:
        return None
    for text in inline:
        root = _PATH_TO_ROOT.search(text)
        if root and _LOAD_SCRIPTS.search(text):
            resolved = normalize(root.group(2) or "./", url)
            return SymbolSource("javadoc", script, resolved) if resolved else None
    return None


# Javadoc -------------------------------------------------------------------------------------------------


def javadoc_index_names(script: bytes) -> list[str]:
    """The index scripts Javadoc's script.js loads (its loadScripts' createElem calls), of JAVADOC_KINDS, in
    that order: ["type-search-index.js", …]; [] when it names none (not Javadoc's script.js)."""
    text = script[:1_000_000].decode("utf-8", "replace")
    named = set(_CREATE_ELEM.findall(text))
    return [f"{kind}-search-index.js" for kind in JAVADOC_KINDS if kind in named]


def parse_javadoc_index(body: bytes, *, root: str) -> list[tuple[str, str]]:
    """The (name, page URL) entries of one Javadoc index script, its pages resolved against `root` (the
    site's pathtoroot) as search.js resolves them; raise NotAnIndex when the body is not one."""
    match = _JAVADOC_ASSIGNMENT.match(body)
    if match is None:
        raise NotAnIndex("not a Javadoc search index (no xxxSearchIndex = […])")
    kind = match.group(1).decode()
    text = body.decode("utf-8", "replace")
    start = len(body[: match.end()].decode("utf-8", "replace"))
    try:
        data, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError) as exc:
        raise NotAnIndex(f"the Javadoc search index is not JSON: {exc}") from None
    if not _JAVADOC_TAIL.match(text[end:].encode()):
        raise NotAnIndex("the Javadoc search index has more after its array")
    if not isinstance(data, list):
        raise NotAnIndex("the Javadoc search index is not a list")
    if len(data) > MAX_ENTRIES:
        raise NotAnIndex(f"the Javadoc search index has more than {MAX_ENTRIES} entries")
    entries = []
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("l"), str):
            raise NotAnIndex("a Javadoc search index entry has no label")
        page = _javadoc_page(kind, item)
        if page is not None:
            entries.append((item["l"], urljoin(root, page)))
    return entries


def _javadoc_page(kind: str, item: dict) -> str | None:
    """An entry's page, relative to pathtoroot, as search.js's select() builds it (anchor dropped)."""
    text = {key: value for key, value in item.items() if isinstance(value, str)}
    module = text["m"] + "/" if text.get("m") else ""
    own = text.get("u") or text.get("url")  # a type's, package's or tag's own URL; a member's anchor
    package = text.get("p", "")
    folder = "" if package == UNNAMED else package.replace(".", "/") + "/"
    if kind == "member":
        return module + folder + text["c"] + ".html" if text.get("c") else None
    if own:
        return own
    if kind == "type":
        return module + folder + text["l"] + ".html" if package else None
    if kind == "package":
        return module + text["l"].replace(".", "/") + "/package-summary.html"
    if kind == "module":
        return text["l"] + "/module-summary.html"
    return None


# Doxygen -------------------------------------------------------------------------------------------------


def doxygen_files(searchdata: bytes, words: list[str], *, root: str) -> list[str]:
    """The `all_X.js` files Doxygen's search box loads for `words` (their first characters, distinct, in
    order, up to MAX_DOXYGEN_FILES), under `root` (the search/ folder), as named by `searchdata.js`; raise
    NotAnIndex when the body is not Doxygen's searchdata.js or has no "all" section."""
    text = searchdata[:200_000].decode("utf-8", "replace")
    sections, names = _SECTIONS.search(text), _NAMES.search(text)
    if sections is None or names is None:
        raise NotAnIndex("not Doxygen's searchdata.js (no indexSectionsWithContent)")
    section_names = dict(_NUMBERED.findall(names.group(1)))
    letters = dict(_NUMBERED.findall(sections.group(1)))
    number = next((n for n, name in section_names.items() if name == "all"), None)
    if number is None or number not in letters:
        raise NotAnIndex("Doxygen's searchdata.js has no section of all names")
    present = letters[number]
    files: list[str] = []
    for word in words:
        first = word[:1].lower()
        position = present.find(first) if first else -1
        if position < 0:
            continue
        name = f"all_{position:x}.js"
        if name not in files:
            files.append(name)
    return [urljoin(root, name) for name in files[:MAX_DOXYGEN_FILES]]


def parse_doxygen_index(body: bytes, *, index_url: str) -> list[tuple[str, str]]:
    """The (name, page URL) entries of one Doxygen `search/all_X.js`, its pages resolved against `index_url`;
    raise NotAnIndex when the body is not one."""
    match = _DOXYGEN_ASSIGNMENT.match(body)
    if match is None:
        raise NotAnIndex("not a Doxygen search index (no var searchData = […])")
    text = body[match.end() :].decode("utf-8", "replace")
    try:
        data = json.loads(_js_array_as_json(text))
    except (ValueError, RecursionError) as exc:
        raise NotAnIndex(f"the Doxygen search index is not an array: {exc}") from None
    if not isinstance(data, list):
        raise NotAnIndex("the Doxygen search index is not a list")
    if len(data) > MAX_ENTRIES:
        raise NotAnIndex(f"the Doxygen search index has more than {MAX_ENTRIES} entries")
    entries = []
    for item in data:
        # ['key', ['Name', ['url', 1, 'scope'], ['url', 1, 'scope'], …]]
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], list) and item[1]):
            raise NotAnIndex("a Doxygen search index entry is not [key, [name, …]]")
        name, *targets = item[1]
        if not isinstance(name, str):
            raise NotAnIndex("a Doxygen search index entry has no name")
        for target in targets:
            if isinstance(target, list) and target and isinstance(target[0], str):
                entries.append((html.unescape(name), urljoin(index_url, target[0])))
    return entries


def _js_array_as_json(text: str) -> str:
    """A JavaScript array literal of single-quoted strings, numbers and arrays, as JSON; anything else
    (names, calls, objects, nesting deeper than MAX_NESTING) raises NotAnIndex."""
    out: list[str] = []
    depth, i, n = 0, 0, len(text)
    closed = False
    while i < n:
        char = text[i]
        if closed:
            if not _DOXYGEN_TAIL.fullmatch(text, i):
                raise NotAnIndex("the Doxygen search index has more after its array")
            break
        if char == "'":
            end, chars = i + 1, []
            while end < n and text[end] != "'":
                if text[end] == "\\" and end + 1 < n:
                    end += 1
                chars.append(text[end])
                end += 1
            if end >= n:
                raise NotAnIndex("the Doxygen search index ends inside a string")
            out.append(json.dumps("".join(chars)))
            i = end + 1
            continue
        if char == "[":
            depth += 1
            if depth > MAX_NESTING:
                raise NotAnIndex(f"the Doxygen search index nests deeper than {MAX_NESTING}")
        elif char == "]":
            depth -= 1
            closed = depth == 0
        elif not (char in ",-" or char.isspace() or char.isdigit()):
            raise NotAnIndex(f"the Doxygen search index holds {char!r}: not an array of strings")
        out.append(char)
        i += 1
    if depth:
        raise NotAnIndex("the Doxygen search index is cut short")
    return "".join(out)


# Both ----------------------------------------------------------------------------------------------------


def symbol_index(entries: list[tuple[str, str]], *, site: str) -> SiteIndex:
    """The entries as an index of the pages they name, each page filed under the words of its names (text.py's
    terms: "RegexFileFilter" → "regexfilefilt"); entries naming a page off `site` (another host, a
    `javascript:` URL) are dropped, fragments read as their page."""
    scheme, netloc = urlsplit(site).scheme.lower(), urlsplit(site).netloc.lower()
    pages: dict[str, int] = {}
    postings: dict[str, set[int]] = {}
    for name, url in entries:
        page_url = urldefrag(url)[0]
        parts = urlsplit(page_url)
        if parts.scheme.lower() != scheme or parts.netloc.lower() != netloc:
            continue
        page = pages.get(page_url)
        if page is None:
            if len(pages) >= MAX_PAGES:
                continue
            page = pages[page_url] = len(pages)
        # A member's label holds its parameters ("accept(File, String)"): the name is what precedes them.
        for word in terms(name.split("(", 1)[0][:MAX_NAME_LENGTH]):
            postings.setdefault(word, set()).add(page)
    return index_of_postings(list(pages), postings)


def rank_names(index: SiteIndex, query_text: str, limit: int = 50) -> list[tuple[str, float]]:
    """The pages whose names hold any query word, best first, scored by the rarity (idf over the pages the
    index names) of the query words their names hold, divided by that of every query word. Unlike a term
    index's entries (termindex.rank_entries), which cover what its authors chose, a symbol index holds every
    name of the site: a query word it does not know is no name there (a word of some page's text, which the
    index cannot tell), so it counts in the whole as the rarest word, and a page naming one word of four
    scores about a quarter, not all."""
    return rank_by_rarity(index, query_text, limit, unknown_words_count=True)
