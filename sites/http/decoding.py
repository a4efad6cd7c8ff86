"""Turning a fetched body into text: charset from header, <meta>, BOM or detection."""

from __future__ import annotations

import codecs
import re

import charset_normalizer

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})

# Where to look for <meta charset>; the HTML prescan uses 1024 bytes, but real pages put long
# scripts and comments first, and 4 KB still costs nothing.
META_SNIFF_BYTES = 4096
# charset_normalizer takes tens of milliseconds per 64 KB; more text does not improve its guess.
DETECT_SAMPLE_BYTES = 65536

_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.+-]+)""", re.IGNORECASE)

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16le"),
    (codecs.BOM_UTF16_BE, "utf-16be"),
)

# Python's canonical names that libxml2 (lxml) does not know, with the IANA label that Python, lxml
# and browsers all accept. Other names only need "_" spelled "-" ("euc_jp" -> "euc-jp").
_IANA_LABELS = {
    "utf-16-le": "utf-16le",
    "utf-16-be": "utf-16be",
    "utf-32-le": "utf-32le",
    "utf-32-be": "utf-32be",
    "iso2022_jp": "iso-2022-jp",
    "iso2022_kr": "iso-2022-kr",
    "mac-roman": "macintosh",
}

# Browsers decode these labels with a superset encoding (WHATWG Encoding Standard, "Encodings"
# table); pages labelled latin-1 routinely contain windows-1252 quotes and dashes, for example.
_WHATWG_SUPERSETS = {
    "iso8859_1": "cp1252",
    "ascii": "cp1252",
    "iso8859_9": "cp1254",
    "iso8859_11": "cp874",
    "tis_620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "big5": "big5hkscs",
}


def is_html_type(content_type: str) -> bool:
    """Tell whether a mime type (parameters allowed) is an HTML document type."""
    return content_type.partition(";")[0].strip().lower() in HTML_TYPES


def codec_name(label: str | None) -> str | None:
    """Return the encoding a charset label means to a browser, or None if it is unknown.

    The name returned works both as a Python codec and as an lxml parser encoding.
    """
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip()).name
    except (LookupError, ValueError):
        return None
    # UTF-7 lets a page smuggle markup past filters; browsers refuse it, so do we.
    if name == "utf-7":
        return None
    name = codecs.lookup(_WHATWG_SUPERSETS.get(name.replace("-", "_"), name)).name
    return _IANA_LABELS.get(name, name.replace("_", "-"))


def sniff_meta_charset(body: bytes) -> str | None:
    """Return the codec named by a <meta charset> or <meta http-equiv> in the first bytes."""
    match = _META_CHARSET.search(body[:META_SNIFF_BYTES])
    if not match:
        return None
    name = codec_name(match.group(1).decode("ascii"))
    # A <meta> readable as ASCII cannot be in UTF-16; the HTML spec says to read it as UTF-8.
    if name is not None and name.startswith("utf-16"):
        return "utf-8"
    return name


def _bom_codec(body: bytes) -> tuple[str, int] | None:
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, len(bom)
    return None


def _is_utf8(body: bytes) -> bool:
    # final=False tolerates a character cut in half at the end, as a truncated body may be.
    try:
        codecs.getincrementaldecoder("utf-8")().decode(body, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _detect(body: bytes) -> str | None:
    if _is_utf8(body):
        return "utf-8"
    try:
        best = charset_normalizer.from_bytes(body[:DETECT_SAMPLE_BYTES]).best()
    except Exception:  # A detector bug must not lose the page; utf-8 follows
        return None
    return codec_name(best.encoding) if best is not None else None


def decode_body(body: bytes, header_charset: str | None) -> tuple[str, str]:
    """Decode a body to text and return it with the codec used; never raise.

    A byte-order mark wins, as in browsers (WHATWG "decode"); then the header charset, a <meta>
    declaration in the first 4 KB, detection on the first 64 KB, and finally UTF-8.
    """
    bom = _bom_codec(body)
    if bom is not None:
        name, skip = bom
        return body[skip:].decode(name, errors="replace"), name
    name = codec_name(header_charset) or sniff_meta_charset(body) or _detect(body) or "utf-8"
    try:
        return body.decode(name, errors="replace"), name
    except Exception:  # Some codecs raise on odd input despite errors="replace"
        return body.decode("utf-8", errors="replace"), "utf-8"
