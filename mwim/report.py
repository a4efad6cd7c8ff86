"""The Reporting Module of the MWIM paper (§IX.1.C): a Content Extract made readable, as plain data for the
report templates (the dashboard page and the stand-alone HTML of `manage.py ce_report`)."""

from __future__ import annotations

from mwim.ce import ContentExtract
from mwim.ce.model import RANK_NAMES, style_names

# Tokens listed in the report, the most frequent first; a documentation page has ~500 distinct stems.
MAX_TOKENS = 2000
# Headings, references and images listed in the report, each (a documentation page has a few hundred links).
MAX_ROWS = 2000


def report_context(extract: ContentExtract, *, file_bytes: int | None = None) -> dict:
    tokens = sorted(extract.tokens, key=lambda token: (-token.count, token.term))
    return {
        "properties": list(extract.properties.items()),
        "fingerprint": extract.fingerprint_text,
        "file_bytes": file_bytes,
        "token_count": len(tokens),
        "occurrences": len(extract.positions),
        "tokens": [
            {
                "term": token.term,
                "count": token.count,
                "rank": RANK_NAMES[token.rank] if token.rank < len(RANK_NAMES) else str(token.rank),
                "styles": ", ".join(style_names(token.styles)),
                "positions": ", ".join(map(str, token.positions[:20])) + (" …" if token.count > 20 else ""),
            }
            for token in tokens[:MAX_TOKENS]
        ],
        "tokens_cut": max(0, len(tokens) - MAX_TOKENS),
        # Listed up to MAX_ROWS each, like the tokens: the report of a hostile file stays the size of a page's.
        **_listed("headings", extract.headings),
        **_listed("references", extract.references),
        **_listed("images", extract.images),
    }


def _listed(name: str, items: list) -> dict:
    return {name: items[:MAX_ROWS], f"{name}_count": len(items), f"{name}_cut": max(0, len(items) - MAX_ROWS)}
