"""HTML parsing: links with their text, base href, canonical, meta robots, and malformed input."""

from pathlib import Path

from sites.crawler.parse import parse_html, robots_directives

FRAMESET = Path(__file__).resolve().parents[1] / "data" / "html" / "javadoc8-frameset.html"


def test_links_come_with_anchor_text_and_images_with_alt():
    page = parse_html(
        b'<html><head><title> My  page </title></head><body><a href="/a">Go <b>there</b></a>'
        b'<img src="pic.png" alt="A picture"><a href="mailto:x@y.z">mail</a><a>no href</a>'
        b'<a href="/n" rel="nofollow sponsored">ad</a></body></html>',
        url="http://example.com/dir/page.html",
    )
    assert page.title == "My page"
    assert [(link.url, link.text, link.tag, link.nofollow) for link in page.links] == [
        ("http://example.com/a", "Go there", "a", False),
        ("http://example.com/dir/pic.png", "A picture", "img", False),
        ("http://example.com/n", "ad", "a", True),
    ]


def test_a_frameset_page_links_the_pages_of_its_frames():
    """Javadoc before 9 writes its home page as a frameset: without its frames a crawl ends on it."""
    page = parse_html(
        FRAMESET.read_bytes(),
        url="http://example.com/api/index.html",
    )
    assert [(link.url, link.text, link.tag) for link in page.links][:3] == [
        ("http://example.com/api/overview-frame.html", "All Packages", "a"),
        ("http://example.com/api/allclasses-frame.html", "packageFrame", "a"),
        ("http://example.com/api/overview-summary.html", "classFrame", "a"),
    ]


def test_an_iframe_is_a_link_to_the_page_it_shows():
    page = parse_html(
        b"<p>Map: <iframe src='/map.html' title='Where we are'></iframe></p>", url="http://e.com/"
    )
    assert [(link.url, link.text) for link in page.links] == [("http://e.com/map.html", "Where we are")]


def test_frames_that_show_no_page_are_no_links():
    """Doxygen's search box writes `<iframe src="javascript:void(0)">` on every page; a frame may have no source."""
    page = parse_html(
        b"<iframe src='javascript:void(0)' name='MSearchResults'></iframe><iframe></iframe>"
        b"<frame src=''><iframe src='http://[::1'></iframe><a href='/a'>a</a>",
        url="http://e.com/",
    )
    assert [link.url for link in page.links] == ["http://e.com/a"]


def test_base_href_changes_where_relative_links_point():
    page = parse_html(
        b'<head><base href="http://cdn.example.org/root/"></head><a href="x">x</a>',
        url="http://example.com/a/",
    )
    assert page.links[0].url == "http://cdn.example.org/root/x"


def test_canonical_and_meta_robots_are_read():
    page = parse_html(
        b'<head><link rel="canonical" href="/real"><meta name="ROBOTS" content="NOINDEX,follow"></head>',
        url="http://example.com/copy?utm=1",
    )
    assert (page.canonical, page.noindex, page.nofollow) == ("http://example.com/real", True, False)
    assert robots_directives("none") == (True, True)


def test_the_declared_encoding_is_used():
    body = '<title>Привет</title><a href="/é">ссылка</a>'.encode("windows-1251", "replace")
    page = parse_html(body, url="http://example.com/", encoding="windows-1251")
    assert page.title == "Привет" and page.links[0].text == "ссылка"


def test_malformed_binary_and_empty_input_never_raise():
    assert parse_html(b"", url="http://example.com/").error == "empty body"
    garbage = parse_html(bytes(range(256)) * 50, url="http://example.com/")
    assert garbage.links == []
    broken = parse_html(
        b"<html><a href='/x'>unclosed <table><tr><td></div></span>", url="http://example.com/"
    )
    assert [link.url for link in broken.links] == ["http://example.com/x"]


def test_very_long_anchor_text_is_cut():
    page = parse_html(b"<a href='/x'>" + b"word " * 1000 + b"</a>", url="http://example.com/")
    assert len(page.links[0].text) == 500
