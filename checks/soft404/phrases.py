"""Count soft-404 phrases in page text, in every language of data/phrases.json, with one Aho-Corasick pass."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import ahocorasick

PHRASES_FILE = Path(__file__).parent / "data" / "phrases.json"

# Scripts written without spaces between words: a phrase in them matches anywhere, without word boundaries.
_UNSPACED_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x9FFF),  # CJK radicals, punctuation, kana, ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width katakana
)
_APOSTROPHES = ("'", "\u2019", "\u02bc")


def is_unspaced(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _UNSPACED_RANGES)


def normalize(text: str) -> str:
    """Collapse whitespace and casefold, the form both phrases and page text are compared in."""
    return " ".join(text.split()).casefold()


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


class PhraseMatcher:
    """Count phrase occurrences in normalized text; overlapping and nested phrases each count."""

    def __init__(self, phrases: Iterable[str]):
        self._automaton = ahocorasick.Automaton()
        self.size = 0
        for phrase in {normalize(p) for p in phrases if p.strip()}:
            for variant in _apostrophe_variants(phrase):
                self._automaton.add_word(variant, _boundaries(variant))
            self.size += 1
        if self.size:
            self._automaton.make_automaton()

    def count(self, text: str) -> int:
        """Return how many phrase occurrences `text` (already normalized) holds."""
        if not self.size or not text:
            return 0
        hits = 0
        last = len(text) - 1
        for end, (length, need_start, need_end) in self._automaton.iter(text):
            start = end - length + 1
            if need_start and start > 0 and _is_word_char(text[start - 1]):
                continue
            if need_end and end < last and _is_word_char(text[end + 1]):
                continue
            hits += 1
        return hits


def _apostrophe_variants(phrase: str) -> set[str]:
    if not any(a in phrase for a in _APOSTROPHES):
        return {phrase}
    plain = phrase
    for apostrophe in _APOSTROPHES[1:]:
        plain = plain.replace(apostrophe, "'")
    return {plain.replace("'", a) for a in _APOSTROPHES}


def _boundaries(phrase: str) -> tuple[int, bool, bool]:
    """Decide which ends of a match must sit on a word boundary.

    Unspaced scripts have no boundaries to check. In spaced scripts a match must start a word; it must also
    end one only for single-word phrases ("404", "error"), since agglutinative languages (Turkish, Finnish,
    Korean) attach endings to the last word of a longer phrase.
    """
    first, last = phrase[0], phrase[-1]
    need_start = _is_word_char(first) and not is_unspaced(first)
    need_end = " " not in phrase and _is_word_char(last) and not is_unspaced(last)
    return len(phrase), need_start, need_end


def load_phrases(path: Path = PHRASES_FILE, *, without: Iterable[str] = ()) -> dict[str, list[str]]:
    """Return {language: phrases} from the generated data file, leaving out the named sources."""
    by_source = json.loads(path.read_text(encoding="utf-8"))["phrases"]
    merged: dict[str, set[str]] = {}
    for source, table in by_source.items():
        if source not in set(without):
            for lang, phrases in table.items():
                merged.setdefault(lang, set()).update(phrases)
    return {lang: sorted(phrases) for lang, phrases in sorted(merged.items())}


def phrase_sources(path: Path = PHRASES_FILE) -> list[str]:
    return sorted(json.loads(path.read_text(encoding="utf-8"))["phrases"])


def matcher_without(*sources: str) -> PhraseMatcher:
    """A matcher over every phrase except those harvested from `sources` (for unseen-wording evaluation)."""
    return PhraseMatcher(p for phrases in load_phrases(without=sources).values() for p in phrases)


@lru_cache(maxsize=1)
def default_matcher() -> PhraseMatcher:
    """Build the matcher over every language once per process (about 3 ms for ~500 phrases)."""
    return matcher_without()
