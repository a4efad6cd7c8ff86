"""Bodies become text with the charset a browser would pick."""

from __future__ import annotations

import codecs
import random

import pytest

from sites.http import decode_body, is_html_type

RUSSIAN = (
    "Московский метрополитен открыт в 1935 году. Сегодня это одна из самых загруженных систем "
    "подземного транспорта в мире: ежедневно она перевозит миллионы пассажиров, а её станции "
    "известны своей архитектурой, мозаиками и скульптурами."
)
JAPANESE = "東京は日本の首都であり、世界最大級の都市圏を形成している。"


def _page(meta: str, text: str) -> str:
    return f"<html><head>{meta}<title>t</title></head><body><p>{text}</p></body></html>"


def test_header_charset_is_used():
    text, encoding = decode_body(RUSSIAN.encode("cp1251"), "windows-1251")
    assert (text, encoding) == (RUSSIAN, "cp1251")


def test_header_charset_wins_over_a_conflicting_meta():
    body = _page('<meta charset="windows-1251">', RUSSIAN).encode("utf-8")
    text, encoding = decode_body(body, "utf-8")
    assert encoding == "utf-8" and RUSSIAN in text


def test_meta_charset_is_used_without_a_header():
    body = _page('<meta charset="windows-1251">', RUSSIAN).encode("cp1251")
    text, encoding = decode_body(body, None)
    assert encoding == "cp1251" and RUSSIAN in text


def test_meta_http_equiv_shift_jis_is_used_without_a_header():
    meta = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
    text, encoding = decode_body(_page(meta, JAPANESE).encode("shift_jis"), None)
    # Browsers read Shift_JIS as its superset windows-31j (cp932).
    assert encoding == "cp932" and JAPANESE in text


def test_unknown_header_charset_falls_back_to_the_meta():
    body = _page("<meta charset='koi8-r'>", RUSSIAN).encode("koi8_r")
    text, encoding = decode_body(body, "x-no-such-charset")
    assert encoding == "koi8-r" and RUSSIAN in text


def test_meta_after_the_first_4_kb_is_not_seen():
    body = (" " * 5000 + _page('<meta charset="windows-1251">', "abc")).encode("ascii")
    assert decode_body(body, None)[1] == "utf-8"


def test_meta_claiming_utf16_in_ascii_bytes_means_utf8():
    body = _page('<meta charset="utf-16">', "é").encode("utf-8")
    assert decode_body(body, None) == (_page('<meta charset="utf-16">', "é"), "utf-8")


@pytest.mark.parametrize(
    ("bom", "codec", "name"),
    [(codecs.BOM_UTF8, "utf-8", "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16le")],
)
def test_byte_order_mark_decides_and_is_stripped(bom, codec, name):
    text, encoding = decode_body(bom + RUSSIAN.encode(codec), None)
    assert (text, encoding) == (RUSSIAN, name)


def test_byte_order_mark_wins_over_the_header_charset_as_in_browsers():
    text, encoding = decode_body(codecs.BOM_UTF8 + RUSSIAN.encode("utf-8"), "iso-8859-1")
    assert (text, encoding) == (RUSSIAN, "utf-8")


def test_undeclared_utf8_is_recognised():
    assert decode_body(_page("", RUSSIAN).encode("utf-8"), None) == (_page("", RUSSIAN), "utf-8")


def test_undeclared_utf8_cut_inside_a_character_is_still_utf8():
    body = RUSSIAN.encode("utf-8")[:-1]
    text, encoding = decode_body(body, None)
    assert encoding == "utf-8" and text.startswith(RUSSIAN[:-1])


def test_undeclared_windows_1251_is_detected():
    text, encoding = decode_body(_page("", RUSSIAN).encode("cp1251"), None)
    assert RUSSIAN in text, encoding


def test_latin1_label_is_read_as_windows_1252_like_browsers_do():
    text, encoding = decode_body(b"\x93quoted\x94 \x80 5", "ISO-8859-1")
    assert (text, encoding) == ("\u201cquoted\u201d \u20ac 5", "cp1252")


def test_utf7_label_is_refused():
    assert decode_body(b"+ADw-script+AD4-", "utf-7") == ("+ADw-script+AD4-", "utf-8")


def test_random_bytes_with_a_bogus_charset_decode_without_raising():
    body = random.Random(7).randbytes(20_000)
    text, encoding = decode_body(body, "bogus")
    assert isinstance(text, str) and encoding


def test_empty_body_is_empty_text():
    assert decode_body(b"", None) == ("", "utf-8")


@pytest.mark.parametrize(
    ("label", "text"),
    [
        ("utf-8", RUSSIAN),
        ("windows-1251", RUSSIAN),
        ("koi8-r", RUSSIAN),
        ("iso-8859-2", "Zażółć gęślą jaźń"),
        ("shift_jis", JAPANESE),
        ("euc-jp", JAPANESE),
        ("iso-2022-jp", JAPANESE),
        ("euc-kr", "대한민국의 수도는 서울이다"),
        ("gb2312", "北京是中华人民共和国的首都"),
        ("big5", "臺北是中華民國的首都"),
        ("utf-16le", RUSSIAN),
        ("macintosh", "Caf\u00e9 cr\u00e8me"),
    ],
)
def test_encoding_name_returned_is_understood_by_lxml_too(label, text):
    # The crawler hands the name to lxml, whose names differ from Python's ("utf-16-le", "euc_jp").
    html = pytest.importorskip("lxml.html")
    body = f"<html><body><p>{text}</p></body></html>".encode(label)
    decoded, encoding = decode_body(body, label)
    parser = html.HTMLParser(encoding=encoding)
    assert text in decoded
    assert html.document_fromstring(body, parser=parser).text_content() == text


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        ("text/html", True),
        ("application/xhtml+xml", True),
        ("Text/HTML; charset=utf-8", True),
        ("text/plain", False),
        ("application/json", False),
        ("", False),
    ],
)
def test_html_types_are_recognised(content_type, expected):
    assert is_html_type(content_type) is expected
