"""Content extracts a hostile or an odd page makes: lists past the cap are refused before they cost memory,
reports list a bounded number of rows, and an extract with no terms (an image-only page) reports fine."""

from __future__ import annotations

import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from mwim.ce import CEFormatError, ContentExtract, Image, Reference, decode, encode
from mwim.ce.codec import _COUNTS, _HEAD, _LENGTHS, FLAG_DEFLATE, MAGIC, VERSION
from mwim.ce.model import MAX_LIST_ITEMS
from mwim.report import MAX_ROWS, report_context
from tests.sites.factories import body


def image_only() -> ContentExtract:
    return ContentExtract(
        properties={"title": "", "url": "https://a.example/gallery"},
        images=[Image("https://a.example/1.png", "")],
        fingerprint=bytes(32),
    )


def hostile_references(count: int) -> bytes:
    """A well-formed file claiming `count` empty references: a few KB once deflated."""
    blob = b"\x00" * (2 * count - 1)
    payload = _COUNTS.pack(0, 0, 0, 0, count, 0, 2, len(blob)) + blob
    stored = zlib.compress(payload, 9)
    return (
        _HEAD.pack(MAGIC, VERSION, FLAG_DEFLATE, 1, 32)
        + bytes(32)
        + _LENGTHS.pack(len(stored), len(payload))
        + stored
    )


def test_an_extract_with_no_terms_round_trips_and_reports():
    extract = decode(encode(image_only()))
    assert extract.terms == [] and extract.tokens == []
    context = report_context(extract, file_bytes=10)
    assert context["token_count"] == 0 and context["images_count"] == 1


def test_a_file_claiming_three_million_references_is_refused_before_they_are_built():
    data = hostile_references(3_000_000)
    assert len(data) < 20_000
    with pytest.raises(CEFormatError, match="3,000,000 references: over the 50,000"):
        decode(data)


def test_the_encoder_refuses_lists_past_the_cap():
    extract = image_only()
    extract.references = [Reference("https://a.example/", "")] * (MAX_LIST_ITEMS + 1)
    with pytest.raises(ValueError, match="at most"):
        encode(extract)


def test_the_report_lists_a_bounded_number_of_references_and_says_how_many_it_left_out():
    extract = image_only()
    extract.references = [Reference(f"https://a.example/{n}", "") for n in range(MAX_ROWS + 500)]
    context = report_context(decode(encode(extract)))
    assert len(context["references"]) == MAX_ROWS
    assert context["references_count"] == MAX_ROWS + 500 and context["references_cut"] == 500


def test_ce_report_writes_the_report_of_an_image_only_page(tmp_path):
    (tmp_path / "a.ce").write_bytes(encode(image_only()))
    call_command("ce_report", str(tmp_path / "a.ce"), "--output", str(tmp_path / "a.html"))
    assert "0 tokens" in (tmp_path / "a.html").read_text()


@pytest.mark.django_db
def test_the_upload_report_page_answers_for_an_image_only_extract_and_refuses_a_hostile_one(signed_in):
    url = reverse("mwim:report-upload")
    answer = signed_in.post(url, {"file": SimpleUploadedFile("a.ce", encode(image_only()))})
    assert answer.status_code == 200 and "1.png" in body(answer)
    answer = signed_in.post(url, {"file": SimpleUploadedFile("b.ce", hostile_references(3_000_000))})
    assert answer.status_code == 200 and "3,000,000 references" in body(answer)
