"""The dom extract: BFS order, every attribute, a compact versioned encoding that refuses anything else."""

import lxml.etree
import pytest

from checks.structure.extract import LONG_VALUE, ExtractFormatError, decode, dom_keys
from sites.crawler.parse import parse_document


def extract(html: str):
    root, _ = parse_document(html.encode(), "utf-8")
    return decode(dom_keys(root, url="http://example.test/", body=html.encode()))


def tags_and_attributes(dom):
    return [dom.signatures[i] for i in dom.nodes]


def test_extract_lists_nodes_breadth_first():
    dom = extract(
        "<html><body><div id=a><div><span>x</span></div></div><ul><li><pre>y</pre></li></ul></body></html>"
    )
    assert [tag for tag, _ in tags_and_attributes(dom)] == ["div", "ul", "div", "pre", "span"]


def test_depth_counts_only_the_stored_kinds_of_node():
    # The tree reduced to stored kinds (the paper's Table 2): the span under p and a is a child of the div.
    dom = extract("<div><p><a><span>deep</span></a></p><div>second</div></div>")
    assert [tag for tag, _ in tags_and_attributes(dom)] == ["div", "span", "div"]


def test_text_level_elements_are_not_stored():
    dom = extract("<p><a href=x>l</a><em>e</em><code>c</code></p><div></div>")
    assert [tag for tag, _ in tags_and_attributes(dom)] == ["div"]


def test_extract_keeps_every_attribute_with_its_value():
    dom = extract('<div class="b a" id="x" data-k="1"></div>')
    assert ("div", (("class", "b a"), ("id", "x"), ("data-k", "1"))) in dom.signatures


def test_repeated_elements_share_one_signature():
    dom = extract("<div>" + "<span class=pre>x</span>" * 50 + "</div>")
    assert len(dom) == 51  # the div and 50 spans
    assert len(dom.signatures) == 2


def test_long_values_are_kept_as_a_checksum_that_still_compares_equal():
    long = "x" * (LONG_VALUE + 10)
    one = extract(f'<div style="{long}"></div>')
    two = extract(f'<div style="{long}"></div>')
    other = extract(f'<div style="{long}y"></div>')
    value = dict(tags_and_attributes(one)[-1][1])["style"]
    assert value.startswith("#") and len(value) == 9
    assert tags_and_attributes(one) == tags_and_attributes(two) != tags_and_attributes(other)


def test_comments_and_processing_instructions_are_not_nodes():
    root = lxml.etree.fromstring(
        "<html><body><!-- c --><div/><?pi x?></body></html>", lxml.etree.HTMLParser()
    )
    dom = decode(dom_keys(root, url="", body=b""))
    assert [tag for tag, _ in tags_and_attributes(dom)] == ["div"]


def test_a_page_without_stored_nodes_has_an_empty_extract():
    root, _ = parse_document(b"<html><body><p>just text</p></body></html>")
    dom = decode(dom_keys(root, url="", body=b""))
    assert len(dom) == 0 and dom.signatures == ()


def test_non_ascii_and_malformed_html_round_trip():
    dom = extract('<div class="größe"><span id="日本">text<div></span></p></div>')
    assert ("div", (("class", "größe"),)) in dom.signatures
    assert ("span", (("id", "日本"),)) in dom.signatures


@pytest.mark.parametrize(
    "data", [b"", b"\x02abc", b"\x01not zlib", b"\x01" + __import__("zlib").compress(b"xx")]
)
def test_decode_refuses_what_is_not_a_dom_extract(data):
    with pytest.raises(ExtractFormatError):
        decode(data)


def test_code_is_text_not_structure():
    # A pre is one node, whatever its highlighting spans; a code element and its spans are not walked.
    dom = extract(
        '<div><pre><span class="k">def</span> <span class="n">f</span></pre>'
        '<p><code><span class="pre">os</span></code></p><span class="x">kept</span></div>'
    )
    assert [tag for tag, _ in tags_and_attributes(dom)] == ["div", "pre", "span"]
    assert dict(tags_and_attributes(dom)[2][1]) == {"class": "x"}
