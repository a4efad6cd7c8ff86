"""The symbol search index of an API reference (issue 19): Javadoc's `*-search-index.js` and Doxygen's
`search/all_X.js`, found from what the start page names (Javadoc's script.js and pathtoroot, Doxygen's
search/searchdata.js), read as JSON without eval, its names filed as their pages' words; a prior on the
pages naming the query that rules none out, every file a download; hostile, huge or malformed indexes
refused clearly and the search going on without them."""

from __future__ import annotations

import json

import pytest

from checks.pagefinding import symbolindex
from checks.pagefinding.live import LiveSettings
from checks.pagefinding.siteindex import NotAnIndex
from checks.pagefinding.symbolindex import (
    doxygen_files,
    javadoc_index_names,
    parse_doxygen_index,
    parse_javadoc_index,
    rank_names,
    symbol_index,
)
from sites.http import FetchSettings

from .books import FILLER, robots_and_no_sitemap
from .sites import HTML, live_search, read_html, requested

FETCH = FetchSettings(allowed_networks=("127.0.0.0/8",), delay=0.0)
ON = LiveSettings(fetch=FETCH, use_symbol_index=True)
SITE = "http://127.0.0.1:9/api/"

# Javadoc's script.js as JDK 17 writes it: loadScripts names the index scripts it loads from pathtoroot.
SCRIPT_JS = """
function loadScripts(doc, tag) {
    createElem(doc, tag, 'search.js');

    createElem(doc, tag, 'module-search-index.js');
    createElem(doc, tag, 'package-search-index.js');
    createElem(doc, tag, 'type-search-index.js');
    createElem(doc, tag, 'member-search-index.js');
    createElem(doc, tag, 'tag-search-index.js');
}
function createElem(doc, tag, path) { var script = doc.createElement(tag); script.src = pathtoroot + path; }
"""


def javadoc_page(title: str, body: str, root: str) -> str:
    return (
        f"<html><head><title>{title}</title><script src='{root}script.js'></script></head><body>"
        f"<script>var pathtoroot = \"{root}\";\nloadScripts(document, 'script');</script>"
        f"<h1>{title}</h1>{body}</body></html>"
    )


def assignment(name: str, entries: list) -> bytes:
    return f"{name}SearchIndex = {json.dumps(entries)};updateSearchResults();".encode()


def serve_javadoc(server, *, member_index: bytes | None = None, classes: int = 30) -> None:
    """An API reference under /api/: an overview linking one package page, which links `classes` class pages
    by names that say nothing of the query; class Lantern7 documents `lightBeacon`, `trimWick` (members the
    index names) and its page's text holds the query's words as Javadoc's pages do."""
    names = [f"Lantern{n}" for n in range(classes)]
    server.expect_request("/api/index.html").respond_with_data(
        javadoc_page("Overview", f"<p>{FILLER}</p><a href='org/sea/package-summary.html'>org.sea</a>", "./"),
        content_type=HTML,
    )
    links = "".join(f"<li><a href='{name}.html'>{name}</a></li>" for name in names)
    server.expect_request("/api/org/sea/package-summary.html").respond_with_data(
        javadoc_page("org.sea", f"<p>{FILLER}</p><ul>{links}</ul>", "../../"), content_type=HTML
    )
    for name in names:
        text = "lightbeacon trimwick beacon wick " * 3 if name == "Lantern7" else "sails rope anchor"
        server.expect_request(f"/api/org/sea/{name}.html").respond_with_data(
            javadoc_page(name, f"<p>{text} {FILLER}</p>", "../../"), content_type=HTML
        )
    server.expect_request("/api/script.js").respond_with_data(SCRIPT_JS, content_type="text/javascript")
    server.expect_request("/api/type-search-index.js").respond_with_data(
        assignment("type", [{"p": "org.sea", "l": name} for name in names])
    )
    members = [
        {"p": "org.sea", "c": "Lantern7", "l": "lightBeacon(int)", "u": "lightBeacon(int)"},
        {"p": "org.sea", "c": "Lantern7", "l": "trimWick()", "u": "trimWick()"},
        {"p": "org.sea", "c": "Lantern3", "l": "hoist()", "u": "hoist()"},
    ]
    server.expect_request("/api/member-search-index.js").respond_with_data(
        member_index if member_index is not None else assignment("member", members)
    )
    server.expect_request("/api/package-search-index.js").respond_with_data(
        assignment("package", [{"l": "All Packages", "u": "allpackages-index.html"}, {"l": "org.sea"}])
    )
    robots_and_no_sitemap(server)


def test_a_javadoc_sites_member_index_leads_to_the_class_that_documents_the_names(httpserver):
    serve_javadoc(httpserver)
    env, result = live_search(httpserver.url_for("/api/index.html"), "lightbeacon trimwick", settings=ON)
    assert result.found == httpserver.url_for("/api/org/sea/Lantern7.html")
    fetched = requested(httpserver)
    # script.js says which indexes there are; those of types and members are read, no other
    assert fetched[3:6] == [  # after robots.txt, the start page and the sitemap
        "/api/script.js",
        "/api/type-search-index.js",
        "/api/member-search-index.js",
    ]
    assert not {
        "/api/module-search-index.js",
        "/api/package-search-index.js",
        "/api/tag-search-index.js",
    } & set(fetched)
    # the page the index ranks first is the first class page read
    assert [path for path in fetched if path.startswith("/api/org/sea/Lantern")][
        0
    ] == "/api/org/sea/Lantern7.html"
    assert result.downloads == len(fetched)  # every index file is a download


def test_the_symbol_index_is_read_only_when_asked_for(httpserver):
    serve_javadoc(httpserver)
    live_search(
        httpserver.url_for("/api/index.html"), "lightbeacon trimwick", settings=LiveSettings(fetch=FETCH)
    )
    assert not [
        path for path in requested(httpserver) if "search-index" in path or path.endswith("script.js")
    ]


@pytest.mark.parametrize(
    "body",
    [
        b"<html><body>Not found</body></html>",  # a soft 404
        b'memberSearchIndex = [{"p":"org.sea","c":"Lantern7","l":"trimWick()"',  # cut short
        b'memberSearchIndex = [{"p":"org.sea","c":"Lantern7","l":"trimWick()"}];fetch("//evil.example/")',
        b'memberSearchIndex = {"l": "not a list"};',
    ],
    ids=["soft 404", "truncated", "code after the array", "not a list"],
)
def test_a_malformed_index_file_is_refused_counted_and_the_search_goes_on(httpserver, body):
    serve_javadoc(httpserver, member_index=body)
    env, result = live_search(httpserver.url_for("/api/index.html"), "lightbeacon trimwick", settings=ON)
    refused = [entry for entry in env.log if entry.node.endswith("/member-search-index.js")]
    assert len(refused) == 1 and refused[0].note.startswith("symbol index refused")
    assert result.downloads == len(requested(httpserver))
    assert result.found == httpserver.url_for("/api/org/sea/Lantern7.html")  # by the pages' words


def test_javadoc_entries_name_their_pages_as_the_sites_search_js_does():
    root = SITE
    entries = parse_javadoc_index(
        assignment(
            "type",
            [
                {"p": "org.sea", "l": "Lantern"},
                {"p": "org.sea", "l": "Lantern.Wick"},  # a nested class
                {"p": "<Unnamed>", "l": "Loose"},
                {"m": "sea.mod", "p": "org.sea", "l": "Buoy"},
                {"l": "All Classes", "url": "allclasses-index.html"},  # JDK 11's own URL
            ],
        ),
        root=root,
    )
    assert [url for _, url in entries] == [
        SITE + "org/sea/Lantern.html",
        SITE + "org/sea/Lantern.Wick.html",
        SITE + "Loose.html",
        SITE + "sea.mod/org/sea/Buoy.html",
        SITE + "allclasses-index.html",
    ]
    members = parse_javadoc_index(
        b'memberSearchIndex = [{"p":"org.sea","c":"Lantern","l":"trim(int)","url":"trim(int)"}]', root=root
    )
    assert members == [("trim(int)", SITE + "org/sea/Lantern.html")]  # JDK 11: "url" is the anchor
    packages = parse_javadoc_index(assignment("package", [{"l": "org.sea"}]), root=root)
    assert packages == [("org.sea", SITE + "org/sea/package-summary.html")]


def test_entries_naming_other_sites_or_scripts_are_dropped_not_followed():
    entries = parse_javadoc_index(
        assignment(
            "tag",
            [
                {"l": "Keeper", "u": "https://elsewhere.example/keeper.html"},
                {"l": "Lamp", "u": "//elsewhere.example/lamp.html"},
                {"l": "Wick", "u": "javascript:alert(1)"},
                {"l": "Beacon", "u": "beacon.html#top"},
            ],
        ),
        root=SITE,
    )
    index = symbol_index(entries, site=SITE)
    assert index.urls == [SITE + "beacon.html"]
    assert rank_names(index, "keeper lamp wick") == []


def test_only_the_index_scripts_javadocs_script_names_are_read():
    assert javadoc_index_names(SCRIPT_JS.encode()) == ["type-search-index.js", "member-search-index.js"]
    assert javadoc_index_names(b"function other() {}") == []


def test_an_index_with_more_entries_than_allowed_is_refused_not_kept(monkeypatch):
    monkeypatch.setattr(symbolindex, "MAX_ENTRIES", 3)
    body = assignment("type", [{"p": "a", "l": f"C{n}"} for n in range(4)])
    with pytest.raises(NotAnIndex, match="more than 3 entries"):
        parse_javadoc_index(body, root=SITE)
    doxygen = (
        "var searchData=[" + ",".join(f"['c{n}',['C{n}',['../c{n}.html',1,'']]]" for n in range(4)) + "];"
    )
    with pytest.raises(NotAnIndex, match="more than 3 entries"):
        parse_doxygen_index(doxygen.encode(), index_url=SITE + "search/all_0.js")


def test_a_page_scores_the_share_of_the_query_its_names_hold():
    index = symbol_index(
        [
            ("lightBeacon(int)", SITE + "a.html"),
            ("trimWick()", SITE + "a.html"),
            ("hoist()", SITE + "b.html"),
        ],
        site=SITE,
    )
    ranked = dict(rank_names(index, "lightbeacon trimwick rope"))
    # a word the index does not know is no name on the site: it counts in the whole, as the rarest word
    assert list(ranked) == [SITE + "a.html"] and 0 < ranked[SITE + "a.html"] < 0.5
    assert dict(rank_names(index, "lightbeacon trimwick")) == {SITE + "a.html": 1.0}


# Doxygen ---------------------------------------------------------------------------------------------------

SEARCHDATA = """var indexSectionsWithContent =
{
  0: "bclmt",
  1: "l"
};

var indexSectionNames =
{
  0: "all",
  1: "classes"
};
"""


def doxygen_page(title: str, body: str) -> str:
    return (
        f"<html><head><title>{title}</title><script src='search/searchdata.js'></script>"
        f"<script src='search/search.js'></script></head><body><h1>{title}</h1>{body}</body></html>"
    )


def serve_doxygen(server, *, files: int = 30) -> None:
    """A Doxygen site: a main page linking `files` file pages by names that say nothing of the query;
    classLantern.html documents `trimWick`, which the index's file of "t" names."""
    links = "".join(f"<li><a href='file{n}.html'>file{n}</a></li>" for n in range(files))
    server.expect_request("/index.html").respond_with_data(
        doxygen_page("Main Page", f"<p>{FILLER}</p><ul>{links}</ul>"), content_type=HTML
    )
    for n in range(files):
        server.expect_request(f"/file{n}.html").respond_with_data(
            doxygen_page(f"file{n}", "<p>sails rope <a href='classLantern.html'>Lantern</a></p>"),
            content_type=HTML,
        )
    server.expect_request("/classLantern.html").respond_with_data(
        doxygen_page("Lantern Class Reference", "<p>trimwick lantern trimwick lantern wick</p>"),
        content_type=HTML,
    )
    server.expect_request("/search/searchdata.js").respond_with_data(SEARCHDATA)
    server.expect_request("/search/all_4.js").respond_with_data(
        "var searchData=\n[\n  ['trimwick_0',['trimWick',['../classLantern.html#a1',1,'Lantern::trimWick()']]]\n];\n"
    )
    server.expect_request("/search/all_2.js").respond_with_data(
        "var searchData=\n[\n  ['lantern_1',['Lantern',['../classLantern.html',1,'']]]\n];\n"
    )
    robots_and_no_sitemap(server)


def test_a_doxygen_sites_index_files_of_the_query_words_first_letters_lead_to_the_page(httpserver):
    serve_doxygen(httpserver)
    _, result = live_search(httpserver.url_for("/index.html"), "trimwick lantern wick", settings=ON)
    assert result.found == httpserver.url_for("/classLantern.html")
    fetched = requested(httpserver)
    # searchdata.js, then the files of "t" and "l" ("wick": no name starts with "w"), as the search box would
    assert fetched[3:6] == ["/search/searchdata.js", "/search/all_4.js", "/search/all_2.js"]
    assert fetched[6] == "/classLantern.html"
    assert result.downloads == len(fetched)


def test_doxygen_letter_files_are_named_by_position_in_hex():
    letters = "".join(chr(ord("a") + n) for n in range(20))
    data = f'var indexSectionsWithContent = {{ 0: "{letters}" }}; var indexSectionNames = {{ 0: "all" }};'
    files = doxygen_files(data.encode(), ["quux", "quiet", "tango", "zulu"], root=SITE + "search/")
    assert files == [SITE + "search/all_10.js", SITE + "search/all_13.js"]  # q is 16th, t 19th; no z
    with pytest.raises(NotAnIndex):
        doxygen_files(b"var x = 1;", ["quux"], root=SITE + "search/")


def test_doxygen_entries_are_read_without_eval_names_unescaped_and_every_target_kept():
    body = (
        b"var searchData=\n[\n"
        b"  ['abs_0',['abs',['../classA.html#a1',1,'A::abs()'],['../classB.html#b2',1,'B::abs()']]],\n"
        b"  ['operator_3c_1',['operator&lt;',['../classA.html#a3',1,'A']]],\n"
        b"  ['it_27s_2',['it\\'s',['../page.html',0,'']]]\n"
        b"];\n"
    )
    entries = parse_doxygen_index(body, index_url=SITE + "search/all_1.js")
    assert entries == [
        ("abs", SITE + "classA.html#a1"),
        ("abs", SITE + "classB.html#b2"),
        ("operator<", SITE + "classA.html#a3"),
        ("it's", SITE + "page.html"),
    ]


@pytest.mark.parametrize(
    "body",
    [
        b"var searchData=[['a',['A',['../a.html',1,'']]]];alert(document.cookie);",
        b"var searchData=[['a',['A',[location.href,1,'']]]];",
        b"var searchData=[['a',['A',['../a.html',1,'']]]",
        b"var searchData=[['a',['A',['../a.html,1,'']]]];",
        b"var searchData=" + b"[" * 50 + b"]" * 50 + b";",
        b"<html>Not found</html>",
    ],
    ids=["code after", "an expression", "cut short", "unclosed string", "nested deep", "soft 404"],
)
def test_a_doxygen_file_that_is_not_a_plain_array_of_strings_is_refused(body):
    with pytest.raises(NotAnIndex):
        parse_doxygen_index(body, index_url=SITE + "search/all_0.js")


def test_the_page_names_its_symbol_index_by_its_scripts():
    javadoc = read_html(javadoc_page("Lantern", "", "../../"), SITE + "org/sea/Lantern.html")
    assert javadoc.symbol_source is not None
    assert (javadoc.symbol_source.kind, javadoc.symbol_source.root) == ("javadoc", SITE)
    doxygen = read_html(doxygen_page("Main", ""), SITE + "index.html")
    assert doxygen.symbol_source is not None
    assert (doxygen.symbol_source.kind, doxygen.symbol_source.root) == ("doxygen", SITE + "search/")
    # a script.js of some other site, without Javadoc's pathtoroot and loadScripts, names no index
    plain = read_html("<html><head><script src='script.js'></script></head><body></body></html>", SITE)
    assert plain.symbol_source is None
