"""The eight heuristics of Prieto et al. and the added features, each on a small crafted page."""

from pathlib import Path

import lxml.html
import numpy as np
import pytest

from sites.crawler.parse import parse_document
from sites.crawler.soft404.features import (
    FEATURE_NAMES,
    PAPER_FEATURES,
    extract,
    extract_from_tree,
    feature_vector,
    parse,
    visible_text_nodes,
)
from sites.http import decode_body

DATA = Path(__file__).resolve().parents[2] / "data" / "soft404"
TESTBED_TREES = (
    "/usr/share/doc/python3.11/html/library",
    "/usr/share/doc/postgresql-doc-15/html",
    "/usr/share/doc/python-django-doc/html/ref",
)


def page(head: str = "", body: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


def test_content_ratio_divides_visible_text_bytes_by_page_bytes():
    html = page(body="<p>hello world</p><script>var hidden = 'not content';</script><style>p{}</style>")
    features = extract(html)
    assert features.page_bytes == len(html.encode())
    assert features.content_ratio == pytest.approx(len("hello world") / len(html.encode()))


def test_content_ratio_counts_utf8_bytes_of_non_ascii_text():
    html = page(body="<p>página</p>")
    assert extract(html).content_ratio == pytest.approx(len("página".encode()) / len(html.encode()))


def test_title_words_counts_the_words_of_the_title():
    assert extract(page(head="<title>  Sorry,  nothing   here </title>")).title_words == 3
    assert extract(page()).title_words == 0


def test_phrase_hits_count_not_found_phrases_in_title_and_text():
    html = page(head="<title>Page not found</title>", body="<p>Error 404: the page was removed.</p>")
    # "page not found" and "not found" in the title; "error 404" in the text. (The paper's single words "error",
    # "404" and "removed" are not in the list: real English pages use them all the time.)
    assert extract(html).phrase_hits == 3


def test_phrase_hits_ignore_prose_without_error_words():
    assert extract(page(body="<p>The quick brown fox jumps over the lazy dog.</p>")).phrase_hits == 0


def test_description_words_counts_words_of_the_meta_description():
    html = page(head='<meta name="Description" content="A short guide to the tools">')
    assert extract(html).description_words == 6


def test_images_counts_img_elements():
    assert extract(page(body='<img src="a.png"><p><img src="b.png"></p><picture></picture>')).images == 2


def test_avg_word_length_is_characters_per_word_of_visible_text():
    assert extract(page(body="<p>ab abcd</p><p>abcdef</p>")).avg_word_length == pytest.approx(4.0)


def test_keywords_counts_comma_separated_meta_keywords():
    html = page(head='<meta name="keywords" content="cheap flights, hotels,, car rental , cruises">')
    assert extract(html).keywords == 4


def test_page_bytes_is_the_size_of_the_raw_page():
    raw = page(body="<p>日本語</p>").encode("utf-8")
    assert extract(raw).page_bytes == len(raw)
    assert extract(raw.decode("utf-8")).page_bytes == len(raw)


def test_heading_phrase_hits_read_only_h1_and_h2():
    html = page(body="<h1>Page not found</h1><h3>Page not found</h3><p>Page not found</p>")
    features = extract(html)
    assert features.heading_phrase_hits == 2  # "page not found" and "not found", once
    assert features.phrase_hits == 6


def test_adjacent_blocks_do_not_glue_their_words_together():
    assert extract(page(body="<p>Page not found</p><p>Search</p>")).text_words == 4


def test_text_words_counts_words_of_visible_text():
    assert extract(page(head="<title>not counted</title>", body="<p>one two</p> three")).text_words == 3


def test_offsite_link_ratio_counts_links_to_other_hosts():
    body = (
        '<a href="/a">a</a><a href="http://www.example.org/b">b</a>'
        '<a href="https://ads.example.net/c">c</a><a href="//cdn.example.net/d">d</a>'
    )
    assert extract(page(body=body), "http://example.org/page").offsite_link_ratio == pytest.approx(0.5)


def test_feature_vector_follows_feature_names_with_the_paper_first():
    html = page(head="<title>Not Found</title>", body="<h1>Not Found</h1><img src=x>")
    vector = feature_vector(html, "http://localhost/")
    assert FEATURE_NAMES[: len(PAPER_FEATURES)] == PAPER_FEATURES
    assert vector.dtype == np.float64 and vector.shape == (len(FEATURE_NAMES),)
    named = dict(zip(FEATURE_NAMES, vector, strict=True))
    assert named["title_words"] == 2 and named["images"] == 1 and named["heading_phrase_hits"] == 1


def test_empty_page_has_only_its_size():
    features = extract(b"")
    assert features.page_bytes == 0 and features.text_words == 0 and features.phrase_hits == 0


def test_http_charset_outranks_the_guess():
    raw = page(body="<p>Seite nicht gefunden: Größe</p>").encode("iso-8859-1")
    assert extract(raw, encoding="iso-8859-1").phrase_hits == 1
    assert extract(raw, encoding="iso-8859-1").content_ratio == pytest.approx(
        len("Seite nicht gefunden: Größe".encode()) / len(raw)
    )


def test_utf8_page_without_meta_charset_is_read_as_utf8():
    raw = page(body="<p>Страница не найдена</p>").encode("utf-8")
    assert extract(raw).phrase_hits >= 1


def test_parked_phrase_density_counts_parking_wording_per_word_of_title_and_text():
    html = page(
        head="<title>jardin.example</title>",
        body="<h1>Ce domaine est à vendre</h1><h2>Recherches associées</h2><a href='/q?potager'>Potager</a>",
    )
    # Two phrases in 1 title word and 8 text words.
    assert extract(html).parked_phrase_density == pytest.approx(2 / 9)
    assert extract(page(body="<p>Page not found</p>")).parked_phrase_density == 0.0


def test_sponsored_link_ratio_counts_links_marked_sponsored_or_nofollow():
    body = (
        '<a href="/a" rel="nofollow">a</a><a href="/b" rel="Sponsored noopener">b</a>'
        '<a href="/c" rel="noopener">c</a><a href="/d">d</a>'
    )
    assert extract(page(body=body)).sponsored_link_ratio == pytest.approx(0.5)
    assert extract(page(body="<p>no links</p>")).sponsored_link_ratio == 0.0


def test_hidden_text_is_left_out_even_when_nested_or_equal_to_visible_text():
    body = (
        "<p>alpha</p><script>beta</script><p>beta</p><style>p{}</style>"
        "<noscript><p>gamma <script>delta</script></p></noscript><template><b>epsilon</b></template><p>zeta</p>"
    )
    assert (
        " ".join(" ".join(visible_text_nodes(parse(page(body=body)).find("body"))).split())
        == "alpha beta zeta"
    )
    assert extract(page(body=body)).text_words == 3


def test_extract_from_tree_leaves_the_tree_as_it_was():
    html = page(
        head="<title>t</title><script>var x = 1;</script>",
        body="<a href='/one'>one</a><noscript><a href='/two'>two</a></noscript><style>a{}</style><p>text</p>",
    )
    root = lxml.html.document_fromstring(html)
    before = lxml.html.tostring(root)
    features = extract_from_tree(root, page_bytes=len(html))
    assert lxml.html.tostring(root) == before
    assert [a.get("href") for a in root.iter("a")] == ["/one", "/two"]
    assert extract_from_tree(root, page_bytes=len(html)) == features


def real_pages() -> list[Path]:
    """The saved real pages, and a few pages of each test bed tree when the packages are installed."""
    pages = sorted(DATA.glob("*.html"))
    for tree in TESTBED_TREES:
        pages += sorted(Path(tree).glob("*.html"))[:3]
    return pages


@pytest.mark.parametrize("path", real_pages(), ids=lambda p: p.name)
def test_a_tree_parsed_by_the_crawler_gives_the_features_of_extract(path):
    html = path.read_bytes()
    _, encoding = decode_body(html[:65536], None)  # as sites.crawler.fetching picks the codec
    root, error = parse_document(html, encoding)
    assert not error
    url = f"http://127.0.0.1:8101/{path.name}"
    assert extract_from_tree(root, page_bytes=len(html), url=url) == extract(html, url)
