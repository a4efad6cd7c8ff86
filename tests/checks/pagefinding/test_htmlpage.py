"""Reading a live page in one pass: links with their texts and surroundings, text without scripts."""

from __future__ import annotations

from pathlib import Path

from checks.pagefinding import htmlpage
from checks.pagefinding.htmlpage import link_terms, read_page
from checks.pagefinding.text import camel_parts, terms
from sites.crawler.parse import parse_document

URL = "http://site.test/dir/page.html"
FRAMESET = Path(__file__).resolve().parents[2] / "data" / "html" / "javadoc8-frameset.html"


def read(html: bytes):
    root, error = parse_document(html)
    assert root is not None, error
    return read_page(root, url=URL)


def test_links_carry_their_text_and_the_text_of_their_paragraph():
    page = read(
        b"<html><head><title>Town hall</title></head><body>"
        b"<p>Find the <a href='contact.html'>address and phone</a> of the office here.</p>"
        b"<ul><li><a href='/tax/'>Tax</a> forms for residents</li></ul></body></html>"
    )
    assert page.title == "Town hall"
    first, second = page.links
    assert first.url == "http://site.test/dir/contact.html"
    assert first.text == "address and phone"
    assert first.context == "Find the address and phone of the office here."
    assert second.url == "http://site.test/tax/"
    assert second.context == "Tax forms for residents"


def test_a_frameset_page_leads_on_through_its_frames():
    """The parser drops <noframes> (its link to the non-frame version): the frames are the way on."""
    page = read(FRAMESET.read_bytes())
    assert [(link.url, link.text) for link in page.links] == [
        ("http://site.test/dir/overview-frame.html", "All Packages"),
        ("http://site.test/dir/allclasses-frame.html", "packageFrame"),
        ("http://site.test/dir/overview-summary.html", "classFrame"),
    ]


def test_script_and_style_text_is_not_page_text():
    page = read(b"<html><body><script>var secret = 1;</script><style>p{}</style><p>visible</p></body></html>")
    assert "secret" not in page.text
    assert "visible" in page.text


def test_links_to_files_that_are_not_pages_are_left_out():
    page = read(
        b"<body><a href='a.png'>pic</a><a href='_sources/x.txt'>source</a><a href='b.html'>b</a></body>"
    )
    assert [link.url for link in page.links] == ["http://site.test/dir/b.html"]


def test_a_link_to_the_sites_own_archive_is_no_page():
    """Eigen's main page offers its docs "as a tgz archive for offline reading": a download, not a page to read."""
    page = read(
        b"<body><a href='eigen-doc.tgz'>download</a><a href='setup.exe'>installer</a><a href='c.html'>c</a></body>"
    )
    assert [link.url for link in page.links] == ["http://site.test/dir/c.html"]


def test_a_get_form_with_a_text_field_is_a_site_search():
    page = read(
        b"<body><form action='/search' method='get'><input type='text' name='q'></form>"
        b"<form action='/login' method='post'><input name='user'></form></body>"
    )
    assert page.search_forms == [("http://site.test/search", "q")]


def test_malformed_html_still_gives_its_links():
    page = read(b"<p><a href='x.html'>unclosed <b>bold<p>next <a href=y.html>y")
    # libxml2 nests the second anchor in the first: the first ends where the second begins.
    assert [link.text for link in page.links] == ["unclosed bold next", "y"]


def test_a_navigation_link_is_labelled_by_its_title_a_named_link_by_its_text():
    page = read(
        b"<body><a href='many.html' title='Many-to-one relationships'>previous</a>"
        b"<a href='faq.html' title='FAQ'>FAQ</a><a href='plain.html'>plain</a>"
        b"<a href='os.path.html' title='os.path: Operations on pathnames.'>os.path</a></body>"
    )
    previous, faq, plain, module = page.links
    assert previous.text == "previous"  # shown to people as written
    assert link_terms(previous)[0] == terms("previous Many-to-one relationships")
    assert link_terms(faq)[0] == terms("FAQ")  # a title that repeats the text adds nothing
    assert link_terms(plain)[0] == terms("plain")
    assert link_terms(module)[0] == terms("os.path")  # it names its page already


def test_the_pages_first_heading_is_read_beside_its_title():
    page = read(
        b"<html><head><title>Eigen: Member List</title></head><body>"
        b"<h1>Eigen::<b>Select</b> Member List</h1><p>text</p><h1>Second heading</h1></body></html>"
    )
    assert page.title == "Eigen: Member List"
    assert page.heading == "Eigen:: Select Member List"
    assert "Eigen::" in page.text and "Second heading" in page.text  # the heading is page text as before


def test_doxygens_title_block_is_the_heading_and_no_heading_is_empty():
    page = read(
        b"<html><head><title>CppUnit - The Unit Testing Library</title></head><body>"
        b"<div class='header'><div class='headertitle'><div class='title'>TestPath Class Reference</div></div>"
        b"</div><p>Executing test</p></body></html>"
    )
    assert page.heading == "TestPath Class Reference"
    assert read(b"<html><body><p>no heading</p></body></html>").heading == ""


def test_a_huge_heading_is_kept_short():
    page = read(b"<html><body><h1>" + b"word " * 10_000 + b"</h1></body></html>")
    assert 0 < len(page.heading) <= 300


def test_a_camelcase_identifier_gives_its_humps_as_an_underscore_identifier_gives_its_words():
    assert camel_parts("CholmodSupport module") == terms("Cholmod Support")
    assert camel_parts("XMLDocument and Vector3d") == terms("XML Document") + terms("Vector 3 d")
    assert camel_parts("plain words, Capitalised, ALLCAPS") == ()


def test_a_links_camelcase_text_and_url_name_their_humps_too(monkeypatch):
    monkeypatch.setattr(htmlpage, "CAMEL_PARTS", True)
    page = read(b"<body><a href='group__CholmodSupport__Module.html'>CholmodSupport module</a></body>")
    (link,) = page.links
    label, _, url = link_terms(link)
    assert label == terms("CholmodSupport module") + terms("Cholmod Support")
    assert "cholmodsupport" in url and set(terms("Cholmod Support")) <= set(url)


def test_by_default_a_link_names_its_identifiers_whole():
    """CAMEL_PARTS is off (measured: its comment)."""
    (link,) = read(
        b"<body><a href='group__CholmodSupport__Module.html'>CholmodSupport module</a></body>"
    ).links
    assert link_terms(link)[0] == terms("CholmodSupport module")
