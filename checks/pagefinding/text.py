"""Query and page text as terms: lower-cased words, English stop words removed (scikit-learn's list, the
Glasgow IR group's), Snowball-stemmed (PyStemmer): the processing the paper applies to queries, labels and
pages alike."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from functools import lru_cache

import Stemmer
from sklearn.feature_extraction._stop_words import ENGLISH_STOP_WORDS

# Letters and digits, keeping inner apostrophes and hyphens out: "e-mail" gives "e" and "mail" as a search
# engine's tokenizer would; the stop-word list holds contractions ("don't"), matched before splitting them.
# Version and section numbers stay whole ("2.2.11", "53.56"): split, their parts would match any other.
_WORD = re.compile(r"\d+(?:\.\d+)+|[^\W_]+(?:_[^\W_]+)+|[^\W_]+(?:'[^\W_]+)?", re.UNICODE)

# The `stop-words` package's English list was tried first: it holds every two-letter country code ("pg",
# "de"), which are words in technical documentation.
_STOP_WORDS = frozenset(ENGLISH_STOP_WORDS)
_stemmer = Stemmer.Stemmer("english")

# scikit-learn's list (the Glasgow group's) holds words that name things: "name", "system", "call", "empty",
# "detail", "show", "get". Its documentation warns of it ("Using stop words", after Nothman et al. 2018). In
# documentation they are what a page is about ("the name of the column", "system catalogs", `get()`), and a
# query that says them loses them. KEEP_CONTENT_WORDS keeps them as words: the list's open-class words (nouns,
# verbs, adjectives), less its numbers, copulas and auxiliaries ("become", "seem", "done") and the words that
# work as function words ("well", "due", "per", "whole"). Off: measured on the 65 case sets of issue 19 (session
# 15, paired with it off) 0.803 / 0.889 -> 0.804 / 0.890, +6 -5 answered: the queries that say "name" gain it, and
# so does every page that says it ("init name parser size": Doxygen's struct pages all name their members).
KEEP_CONTENT_WORDS = False
CONTENT_WORDS = frozenset(
    """amount back bill bottom call describe detail empty fill find fire first found front full get give
    interest keep last move name part put see show side system take thick thin top""".split()
)
assert CONTENT_WORDS <= _STOP_WORDS


def _dropped(word: str) -> bool:
    """A stop word (lower-cased), not kept as a content word."""
    return word in _STOP_WORDS and not (KEEP_CONTENT_WORDS and word in CONTENT_WORDS)


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def is_stop_word(word: str) -> bool:
    return _dropped(word.lower())


def terms(text: str) -> tuple[str, ...]:
    """The stemmed, stop-word-free terms of `text`, in order, repeats kept. An identifier joined by
    underscores ("dblink_get_connections") gives itself whole, then its words."""
    out = []
    for match in _WORD.finditer(text.lower()):
        word = match.group()
        if "_" in word:
            out.append(word)
            out.extend(terms(word.replace("_", " ")))
            continue
        if len(word) > 40 or _dropped(word):
            continue
        out.append(word if word[0].isdigit() else _stem(word.replace("'", "")))
    return tuple(out)


# A word as a page writes it: letters only, whole (an identifier joined by underscores or digits is no word).
_WRITTEN_WORD = re.compile(r"\w+", re.UNICODE)
OWN_WORD_LETTERS = 4


def written_words(text: str) -> Counter[str]:
    """The words a page writes, as it writes them, counted: lower-cased, not stemmed, alphabetic, at least
    OWN_WORD_LETTERS letters, stop words left out. What a person who names a page by the words it repeats
    names ("including", not "include": the page that says "including" is not the one that says "#include")."""
    return Counter(
        word
        for word in _WRITTEN_WORD.findall(text.lower())
        if len(word) >= OWN_WORD_LETTERS and word.isalpha() and not _dropped(word)
    )


def written_terms(page_terms: tuple[str, ...] | list[str]) -> list[str]:
    """A page's terms as it writes them: each identifier joined by underscores once, whole, without the words
    `terms` adds after it. Its parts are words a search may match, but not words the page writes on their own:
    a page of `gtk_widget_show` calls is not about "widget" as a page whose sentences say it is."""
    out: list[str] = []
    skip = 0
    for term in page_terms:
        if skip:
            skip -= 1
            continue
        out.append(term)
        if "_" in term:
            skip = len(terms(term.replace("_", " ")))
    return out


# The humps of a compound identifier written in CamelCase: "CholmodSupport" is "Cholmod" and "Support",
# "XMLDocument" is "XML" and "Document", "Vector3d" is "Vector", "3" and "d".
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def camel_parts(text: str) -> tuple[str, ...]:
    """The terms of the humps of each CamelCase identifier in `text` (only those of two humps or more), as
    `terms` gives the words of an identifier joined by underscores: an API's link to "CholmodSupport" is a link
    about Cholmod. Empty for text without such identifiers."""
    out: list[str] = []
    for word in re.findall(r"[A-Za-z0-9]+", text):
        humps = _HUMP.findall(word)
        if len(humps) >= 2:
            out.extend(terms(" ".join(humps)))
    return tuple(out)


def url_terms(url: str) -> tuple[str, ...]:
    """Terms of a URL's path and query ("/docs/install-guide.html" gives "doc", "instal", "guid")."""
    rest = url.split("://", 1)[-1]
    path = rest.partition("/")[2]
    path = re.sub(r"\.(s?html?|php|aspx?|jsp)\b", " ", path)
    return terms(re.sub(r"[/_\-.?=&%+]", " ", path))


def query_terms(query: str) -> tuple[str, ...]:
    """The distinct terms of a query, in their first order; empty when it holds only stop words."""
    return tuple(dict.fromkeys(terms(query)))


def text_digest(words: tuple[str, ...] | list[str]) -> str:
    """A short fingerprint of a page's words: two pages with the same words have the same digest."""
    return hashlib.sha1(" ".join(words).encode("utf-8")).hexdigest()
