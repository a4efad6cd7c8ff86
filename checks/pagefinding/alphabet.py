"""Alphabetical indexes split by letter: on a page with an A–Z bar, the link "r" leads to the entries that
begin with r, so it names every query word beginning with r.

Generators split a long index into a page per letter and link them from a bar of single letters: Doxygen's
member and global indexes (`functions_r.html`, `functions_vars_r.html`, `globals_0x72.html`; in the page's
letter bar, or in its menu, `menudata.js`, under "Class Members › All"), Javadoc's split index
(`index-files/index-18.html`, "R"), Sphinx's `genindex-R.html`. A person looking up "removechild" there
clicks "r" without reading the word in the link: the letter is where the index files it. The link text alone
("r") holds no query word, so without this the search never prefers the right letter (issue 19, twelfth
round: TinyXML's letter pages, ten of its twenty targets, were found once).
"""

from __future__ import annotations

from collections.abc import Iterable

# A page with fewer distinct single-letter links has no alphabet bar: one link reading "a" or "X" is
# something else (a footnote, a close button), not an index's letter.
MIN_LETTERS = 3


def is_letter(text: str) -> bool:
    """A link text that is one letter ("r", "R"): an alphabetical index's letter."""
    text = text.strip()
    return len(text) == 1 and text.isalpha()


def alphabet_letters(texts: Iterable[str]) -> frozenset[str]:
    """The letters of a page's A–Z bar (lower-cased), given its link texts; none when it has fewer than
    MIN_LETTERS of them."""
    letters = frozenset(text.strip().lower() for text in texts if is_letter(text))
    return letters if len(letters) >= MIN_LETTERS else frozenset()


def filed_under(letter: str, typed: dict[str, str]) -> tuple[str, ...]:
    """The query's terms whose word, as typed, begins with `letter`: the entries its index page holds.
    `typed` maps each query term to the word it was typed as (the stem may differ from the word)."""
    letter = letter.strip().lower()
    return tuple(term for term, word in typed.items() if word[:1].lower() == letter)
