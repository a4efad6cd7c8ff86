"""Pages added to each Sphinx and MkDocs build of the corpus: failed lookups and short real pages.

- **Lookup pages** (soft-404): a page of the site, inside its theme's header, navigation and footer, whose body
  is what a failed lookup says in the build's language — the catalogs' own translations of "the requested
  product no longer exists", "nothing matches", "this offer has expired" (`lookup_phrases`). These are the
  pages the query and identifier probes find on real sites; the classifier learns them from the wording.
- **Short pages** (normal): stubs, tag and contact pages, short listings — a heading, one or two sentences of
  the real README text and three links whose text is a file name ("02-usage.html"), as real sites are full of.
  Without them no normal page of the corpus was under 1.7 KB, and the classifier took plainness for error.

Placeholders of the messages (`%(title)s`, `%s`) are filled with words of the README ("newspaper4k"), as a site
fills them with the looked-up name.
"""

from __future__ import annotations

import re

from checks.soft404.corpus.phrase_sources import language_key

LOOKUP_PREFIX, SHORT_PREFIX = "lookup-", "short-"
LOOKUPS_PER_BUILD = 2
_PLACEHOLDER = re.compile(r"%\((\w+)\)[sdr]|%[sdr]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_FILLERS = {"code": "NEWS-2291", "key": "4711", "num_parent_objects": "3"}


def fill(message: str) -> str:
    return _PLACEHOLDER.sub(lambda m: _FILLERS.get(m[1] or "", "newspaper4k"), message)


def messages_for(
    language: str, lookups: dict[str, dict[str, list[tuple[str, str]]]]
) -> list[tuple[str, str]]:
    """(kind, message) of every catalog in `language` (or its base language), one per kind, sources in turn."""
    key = language_key(language)
    seen: dict[str, str] = {}
    for table in lookups.values():
        messages = table.get(key) or table.get(key.split("-")[0]) or []
        for kind, message in messages:
            seen.setdefault(kind, fill(message))
    return sorted(seen.items())


def lookup_sections(
    language: str, lookups: dict[str, dict[str, list[tuple[str, str]]]], build_index: int
) -> list[tuple[str, str]]:
    """Markdown pages of failed lookups for one build: LOOKUPS_PER_BUILD kinds, rotating with the build."""
    messages = messages_for(language, lookups)
    if not messages:
        return []
    chosen = [
        messages[(build_index + i) % len(messages)] for i in range(min(LOOKUPS_PER_BUILD, len(messages)))
    ]
    pages = []
    for kind, message in chosen:
        # The heading is the looked-up name, as a shop or a CMS shows it above the message.
        pages.append((f"{LOOKUP_PREFIX}{kind}", f"# newspaper4k {build_index}\n\n{message}\n"))
    return pages


def first_words(markdown: str, limit: int) -> str:
    """The first sentences of a README section's prose, at most `limit` words, without markup."""
    prose = [
        line
        for line in markdown.splitlines()
        if line.strip() and not line.startswith(("#", "```", "    ", "|", "!", "<", "[!", "- ", "* "))
    ]
    words: list[str] = []
    for sentence in _SENTENCE.split(re.sub(r"[`*_\[\]()]", "", " ".join(prose))):
        if len(words) + len(sentence.split()) > limit and words:
            break
        words += sentence.split()
    return " ".join(words[:limit])


def short_sections(sections: list[tuple[str, str]], build_index: int) -> list[tuple[str, str]]:
    """Three short real pages: a stub, a tag page (three links named by file), a contact-style page."""
    names = [f"{i:02d}-{slug}" for i, (slug, _) in enumerate(sections) if i]
    prose = [first_words(text, 40) for _, text in sections]
    prose = [p for p in prose if len(p.split()) >= 8] or ["newspaper4k reads articles."]
    pick = [names[(build_index * 3 + i) % len(names)] for i in range(3)] if names else []
    links = "\n".join(f"- [{name.split('-', 1)[1]} {name}.html]({name}.md)" for name in pick)
    lead = prose[build_index % len(prose)]
    other = prose[(build_index + 1) % len(prose)]
    return [
        (f"{SHORT_PREFIX}stub", f"# {lead.split()[0]}\n\n{lead}\n"),
        (f"{SHORT_PREFIX}tags", f"# Tags\n\n{' '.join(lead.split()[:12])}\n\n{links}\n"),
        (f"{SHORT_PREFIX}about", f"# About\n\n{other}\n\n{links.splitlines()[0] if links else ''}\n"),
    ]
