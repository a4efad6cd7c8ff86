"""The phrase table of phrases.json: the not-found wording of every source, grouped by source and language."""

from __future__ import annotations

from pathlib import Path

import django

from checks.soft404.corpus import wheels
from checks.soft404.corpus.lookup_phrases import LOOKUP_SOURCES, longest_piece, lookup_messages
from checks.soft404.corpus.phrase_sources import (
    DJANGO_ADMIN_MSGIDS,
    WAGTAIL_ADMIN_MSGIDS,
    apache_phrases,
    django_admin_phrases,
    english_server_phrases,
    fragments,
    wagtail_admin_phrases,
)


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
