"""Harvest translated not-found phrases from real catalogs: Django admin, Wagtail admin, Apache, and servers."""

from __future__ import annotations

import ast
import gettext
import io
import re
from collections.abc import Iterator
from pathlib import Path

import django
from werkzeug.exceptions import NotFound

from checks.soft404 import apache_errors, wheels
from checks.soft404.phrases import is_unspaced, normalize

DJANGO_ADMIN_LOCALE = Path(django.__file__).parent / "contrib" / "admin" / "locale"
DJANGO_ADMIN_MSGIDS = ("Page not found", "We’re sorry, but the requested page could not be found.")
WAGTAIL_ADMIN_MSGIDS = ("Error 404: Page not found", "Error 404", "The requested page could not be found.")
NGINX_BINARY = Path("/usr/sbin/nginx")

# The four terms Prieto et al. name from their 30-term list (section 4: "urgent", "removed", "error", "404");
# the other 26 are not published. They are no longer in the list (issue 11): single English words that real
# English pages use all the time ("error" on 65 of 149 git-doc pages), so a model that never saw English pages
# took every image-less English page saying "error" for an error page (leave-one-language-out precision 0.716
# with them, 0.998 without, recall 1.000 both; the catalogs' phrases, "error 404" among them, carry the signal).
PAPER_TERMS = ("urgent", "removed", "error", "404")

_PLACEHOLDER_RE = re.compile(r"%\(\w+\)[sdr]|%[sdr]|\{\w*\}")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|[。！？؟।]")
_CLAUSE_RE = re.compile(r"[,;，、،]")
_EDGE_CHARS = " \t\n.,;:!?¡¿\"'“”„«»‘’‚()[]-–—…。、！？؟：“”"


def language_key(locale: str) -> str:
    """Turn a gettext locale name (zh_Hans, pt_BR) into a lower-case BCP 47 tag (zh-hans, pt-br)."""
    return locale.replace("_", "-").lower()


def _long_enough(fragment: str) -> bool:
    # One word alone ("Fehler") is too common in normal pages; two words, or two characters of a script
    # without spaces (見つ), make a phrase.
    if any(is_unspaced(c) for c in fragment):
        return len(fragment) >= 2
    return len(fragment.split()) >= 2


def fragments(message: str) -> Iterator[str]:
    """Yield the message and its placeholder-free sentences and clauses, stripped, normalized and unique."""
    seen: set[str] = set()
    for piece in _PLACEHOLDER_RE.split(message):
        candidates = [piece]
        for sentence in _SENTENCE_RE.split(piece):
            candidates.append(sentence)
            candidates.extend(_CLAUSE_RE.split(sentence))
        for candidate in candidates:
            cleaned = normalize(candidate).strip(_EDGE_CHARS)
            if cleaned and cleaned not in seen and _long_enough(cleaned):
                seen.add(cleaned)
                yield cleaned


def catalog_translations(mo_bytes: bytes, msgids: tuple[str, ...]) -> list[str]:
    catalog = gettext.GNUTranslations(io.BytesIO(mo_bytes))
    return [catalog.gettext(m) for m in msgids if catalog.gettext(m) != m]


def django_admin_phrases(locale_dir: Path = DJANGO_ADMIN_LOCALE) -> dict[str, list[str]]:
    """Return {language: translated admin 404 strings} from Django's compiled catalogs."""
    result = {}
    for mo in sorted(locale_dir.glob("*/LC_MESSAGES/django.mo")):
        texts = catalog_translations(mo.read_bytes(), DJANGO_ADMIN_MSGIDS)
        if texts:
            result[language_key(mo.parts[-3])] = texts
    result["en"] = list(DJANGO_ADMIN_MSGIDS)
    return result


def wagtail_admin_phrases(wheel: Path) -> dict[str, list[str]]:
    """Return {language: translated 404 strings} from the Wagtail admin catalogs inside its wheel."""
    result = {}
    pattern = re.compile(r"^wagtail/admin/locale/([^/]+)/LC_MESSAGES/django\.mo$")
    for member in wheels.members(wheel):
        match = pattern.match(member)
        if match:
            texts = catalog_translations(wheels.read_member(wheel, member), WAGTAIL_ADMIN_MSGIDS)
            if texts:
                result[language_key(match[1])] = texts
    result["en"] = list(WAGTAIL_ADMIN_MSGIDS)
    return result


def apache_phrases() -> dict[str, list[str]]:
    """Return {language: [title, lead sentence]} of Apache's 404 and 410 pages (Debian apache2-data)."""
    result: dict[str, list[str]] = {}
    for status in ("HTTP_NOT_FOUND", "HTTP_GONE"):
        for lang, texts in apache_errors.titles_and_first_sentences(status).items():
            result.setdefault(language_key(lang), []).extend(texts)
    return result


def nginx_titles(binary: Path = NGINX_BINARY) -> list[str]:
    """Return the titles of nginx's built-in 404 and 410 pages, read from the installed binary."""
    data = binary.read_bytes()
    return [m.decode() for m in re.findall(rb"<title>(4(?:04|10) [A-Za-z ]+)</title>", data)]


def english_server_phrases(cache: Path) -> list[str]:
    """Return the English not-found texts of nginx, Werkzeug, sphinx-notfound-page and mkdocs-material."""
    texts = nginx_titles()
    texts += [NotFound().name, NotFound().description]
    notfound = wheels.fetch(*wheels.SPHINX_NOTFOUND_PAGE, cache)
    source = wheels.read_member(notfound, "notfound/extension.py").decode()
    context = re.search(r"default_context = (\{.*?\})\n", source, re.S)
    if context:
        texts += list(ast.literal_eval(context[1]).values())
    material = wheels.fetch(*wheels.MKDOCS_MATERIAL, cache)
    template = wheels.read_member(material, "material/templates/404.html").decode()
    texts += re.findall(r"<h1>([^<]+)</h1>", template)
    # Tags become sentence breaks so "<h1>Page not found</h1> Unfortunately…" splits into two phrases.
    return [part for t in texts for part in re.split(r"<[^>]+>", t) if part.strip()]


def build_phrase_table(cache: Path) -> tuple[dict[str, dict[str, list[str]]], list[dict[str, str]]]:
    """Return {source: {language: sorted unique phrases}} and a description of each source.

    Phrases stay grouped by source so an evaluation can hide a source's wording from the pages it produced.
    """
    wagtail = wheels.fetch(*wheels.WAGTAIL, cache)
    per_source = {
        "django-admin": django_admin_phrases(),
        "wagtail-admin": wagtail_admin_phrases(wagtail),
        "apache2-data": apache_phrases(),
        "servers": {"en": english_server_phrases(cache)},
    }
    phrases = {
        source: {
            lang: sorted({f for t in texts for f in fragments(t)}) for lang, texts in sorted(table.items())
        }
        for source, table in per_source.items()
    }
    # Imported here: lookup_phrases imports this module's helpers.
    from checks.soft404.lookup_phrases import LOOKUP_SOURCES, longest_piece, lookup_messages

    for source, table in lookup_messages(cache).items():
        phrases[source] = {
            lang: sorted({f for _, text in messages for f in fragments(longest_piece(text))})
            for lang, messages in sorted(table.items())
        }
    sources = [
        {
            "name": "django-admin",
            "package": f"Django {django.get_version()}",
            "license": "BSD-3-Clause",
            "what": "contrib/admin/locale/*/django.mo: " + " | ".join(DJANGO_ADMIN_MSGIDS),
            "languages": str(len(per_source["django-admin"])),
        },
        {
            "name": "wagtail-admin",
            "package": f"wagtail {wheels.WAGTAIL[1]}",
            "license": "BSD-3-Clause",
            "what": "wagtail/admin/locale/*/django.mo: " + " | ".join(WAGTAIL_ADMIN_MSGIDS),
            "languages": str(len(per_source["wagtail-admin"])),
        },
        {
            "name": "apache2-data",
            "package": "Debian apache2-data",
            "license": "Apache-2.0",
            "what": "HTTP_NOT_FOUND and HTTP_GONE .html.var: title and lead sentence",
            "languages": str(len(per_source["apache2-data"])),
        },
        {
            "name": "servers",
            "package": "nginx binary, Werkzeug NotFound, sphinx-notfound-page "
            f"{wheels.SPHINX_NOTFOUND_PAGE[1]}, mkdocs-material {wheels.MKDOCS_MATERIAL[1]}",
            "license": "various",
            "what": "English default not-found titles and bodies",
            "languages": "1",
        },
    ]
    sources += [
        {
            "name": source,
            "package": package,
            "license": license_,
            "what": "locale/*/LC_MESSAGES/*.mo: " + " | ".join(f"{kind}: {msgid}" for kind, msgid in msgids),
            "languages": str(len(phrases[source])),
        }
        for source, (package, license_, msgids) in LOOKUP_SOURCES.items()
    ]
    return phrases, sources
