"""The Content Extract built from a page: properties, token dictionary (tokenizer, filter, stems, positions,
rank, styles), structure, references and images."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from mwim.ce import content_extract_build
from mwim.ce.filters import token_filter
from mwim.ce.model import (
    RANK_HEADING,
    RANK_IMAGE_ALT,
    RANK_LINK,
    RANK_LIST,
    RANK_META,
    RANK_TEXT,
    RANK_TITLE,
    STYLE_BOLD,
    STYLE_ITALIC,
    STYLE_MONOSPACE,
    style_names,
)
from sites.crawler.parse import parse_document

PAGE = b"""<!DOCTYPE html><html lang="en-GB"><head>
<title>Gardening Guide</title><base href="/docs/">
<meta name="author" content="Ada Gardener"><meta name="description" content="Growing tomatoes indoors">
<meta name="keywords" content="tomatoes, greenhouse"><script>var hidden = "scriptword";</script>
<style>.x { color: red }</style></head><body>
<h1>Planting tomatoes</h1>
<p>The <b>tomato</b> plants grow <i>vigorously</i> in 2024 and 7zip spring; gardeners love planting.</p>
<ul><li>Watering <code>daily</code></li></ul>
<p>See <a href="care.html">tomato care</a> or <a href="https://other.example/x">elsewhere</a>.</p>
<h2>Soil</h2><p>Sun<b>flower</b> seeds.</p><div>alpha</div><div>beta</div>
<img src="/img/t.png" alt="ripe tomato"><img src="data:,x"><a href="javascript:void(0)">nothing</a>
</body></html>"""
URL = "https://garden.example/docs/guide.html"
WHEN = datetime(2026, 11, 25, 6, 0, tzinfo=UTC)


def build(body: bytes = PAGE, url: str = URL):
    root, error = parse_document(body)
    assert root is not None, error
    return content_extract_build(root, url=url, body=body, retrieved=WHEN)


def terms(extract) -> dict:
    return {token.term: token for token in extract.tokens}


def test_document_properties_are_read_from_the_head():
    properties = build().properties
    assert properties["title"] == "Gardening Guide"
    assert properties["url"] == URL
    assert properties["base-url"] == "https://garden.example/docs/"
    assert properties["author"] == "Ada Gardener"
    assert properties["description"] == "Growing tomatoes indoors"
    assert properties["keywords"] == "tomatoes, greenhouse"
    assert properties["retrieval-date"] == "2026-11-25T06:00:00Z"
    assert properties["language"] == "en-GB"
    assert properties["token-filter"] == "en/porter"
    assert list(properties)[:8] == ["title", "url", "base-url", "author", "description", "keywords",
                                    "retrieval-date", "language"]  # fmt: skip


def test_fingerprint_is_the_sha256_of_the_body():
    extract = build()
    assert extract.fingerprint == hashlib.sha256(PAGE).digest()
    assert extract.fingerprint_text == "sha256:" + hashlib.sha256(PAGE).hexdigest()


def test_stop_words_are_removed_and_words_are_porter_stemmed():
    found = terms(build())
    assert "the" not in found and "in" not in found and "or" not in found
    assert "tomato" in found and "tomatoes" not in found  # tomato, tomatoes -> tomato
    assert found["plant"].count == 3  # plants, planting (twice: heading and text) -> plant
    assert "garden" in found  # gardeners -> garden
    assert "scriptword" not in found and "color" not in found  # script and style are not content


def test_english_stop_word_list_has_over_a_thousand_words():
    assert len(token_filter("en").stop_words) > 1000


def test_tokenizer_discards_leading_digits_and_splits_on_punctuation():
    found = terms(build())
    assert "zip" in found  # "7zip": the 7 is discarded
    assert not any(term[0].isdigit() for term in found)
    assert "vigor" in found and "spring" in found


def test_an_inline_element_does_not_split_a_word_but_a_block_does():
    found = terms(build())
    assert "sunflow" in found  # Sun<b>flower</b>
    assert "flower" not in found
    assert "alpha" in found and "beta" in found and "alphabeta" not in found
    assert found["sunflow"].styles & STYLE_BOLD  # a word gets the styles of each of its parts


def test_rank_is_the_highest_place_a_token_occurs():
    found = terms(build())
    assert found["guid"].rank == RANK_TITLE
    assert found["tomato"].rank == RANK_LINK  # in a link, a heading, the text: the link wins
    assert found["soil"].rank == RANK_HEADING
    assert found["care"].rank == RANK_LINK
    assert found["water"].rank == RANK_LIST
    assert found["ripe"].rank == RANK_IMAGE_ALT
    assert found["greenhous"].rank == RANK_META
    assert found["seed"].rank == RANK_TEXT


def test_formatting_styles_are_recorded_per_token():
    found = terms(build())
    assert style_names(found["vigor"].styles) == ["italic"]
    assert found["daili"].styles == STYLE_MONOSPACE
    assert found["tomato"].styles & STYLE_BOLD and not found["tomato"].styles & STYLE_ITALIC


def test_positions_count_every_word_in_reading_order():
    extract = build()
    found = terms(extract)
    guide, planting = found["guid"].positions[0], found["plant"].positions[0]
    assert guide == 1  # "gardening guide": the title comes first
    assert planting > guide
    for token in extract.tokens:
        assert list(token.positions) == sorted(token.positions)
        assert token.count == len(token.positions)
    assert extract.terms == sorted(extract.terms)


def test_structure_references_and_images():
    extract = build()
    assert [(h.level, h.text) for h in extract.headings] == [(1, "Planting tomatoes"), (2, "Soil")]
    assert ("https://garden.example/docs/care.html", "tomato care") in extract.references
    assert ("https://other.example/x", "elsewhere") in extract.references
    assert all(not ref.url.startswith("javascript") for ref in extract.references)
    assert [(image.src, image.alt) for image in extract.images] == [
        ("https://garden.example/img/t.png", "ripe tomato")
    ]


def test_a_page_in_another_language_gets_that_languages_filter():
    body = b'<html lang="fr"><body><p>Les jardiniers plantent des tomates</p></body></html>'
    extract = build(body)
    assert extract.properties["token-filter"] == "fr/french"
    assert "les" not in extract.terms and "des" not in extract.terms
    assert "jardini" in extract.terms


def test_an_unknown_language_falls_back_to_english():
    extract = build(b'<html lang="xx"><body><p>the running dogs</p></body></html>')
    assert extract.properties["token-filter"] == "en/porter"
    assert extract.terms == ["dog", "run"]


def test_an_empty_body_gives_an_extract_with_no_tokens():
    extract = build(b"<html><body></body></html>")
    assert extract.terms == [] and extract.headings == [] and extract.properties["title"] == ""
