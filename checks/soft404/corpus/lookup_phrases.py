"""Lookup-failed wording from real translation catalogs: no results, removed, no longer available, expired.

A failed lookup rarely says "page not found": it says the product no longer exists, nothing matches, the link
has expired. The catalogs of Django, Wagtail, django-oscar (a shop: removed and sold-out products),
django-allauth (expired links) and Sphinx (a search that matched nothing) translate exactly that wording into
the languages their users' sites are written in. Each message is read from each language's compiled catalog
(.mo) inside the pinned wheel, as `phrase_sources` reads the 404 strings; `lookup_messages` keeps them per
language and kind, for the phrase list and for the lookup pages of the corpus (`site_builds`).
"""

from __future__ import annotations

import re
from pathlib import Path

import django

from checks.soft404.corpus import wheels
from checks.soft404.corpus.phrase_sources import catalog_translations, language_key

DJANGO_ROOT = Path(django.__file__).parent
OSCAR = ("django-oscar", "4.2.1")
ALLAUTH = ("django-allauth", "65.21.1")
SPHINX = ("sphinx", "9.0.4")
# (kind of failure, message id) per catalog. The message ids are the catalogs' own English strings.
DJANGO_MSGIDS = (
    ("no-results", "That page contains no results"),
    ("no-results", "No %(verbose_name)s found matching the query"),
)
DJANGO_ADMIN_MSGIDS = (("removed", "%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?"),)
WAGTAIL_MSGIDS = (
    ("no-results", 'Sorry, there are no matches for "<em>%(search_query)s</em>"'),
    ("no-results", "There are no results."),
    ("no-results", "No results found"),
    ("not-found", "File not found"),
)
OSCAR_MSGIDS = (
    ("removed", "The requested product no longer exists"),
    ("removed", "'%(title)s' is no longer available"),
    ("removed", "Not available anymore"),
    ("removed", 'The URL "%s" does not exist'),
    ("out-of-stock", "No products found."),
    ("no-results", "No results found."),
    ("expired", "This offer is no longer available."),
    ("expired", "The '%(code)s' voucher has expired"),
)
ALLAUTH_MSGIDS = (("expired", "Invalid or expired key."),)
SPHINX_MSGIDS = (
    (
        "no-results",
        "Your search did not match any documents. Please make sure that all words are spelled correctly and "
        "that you've selected enough categories.",
    ),
)
_TAGS = re.compile(r"<[^>]+>")
_WHEEL_LOCALE = re.compile(r"/locale/([^/]+)/LC_MESSAGES/(?:django|sphinx)\.mo$")
# A message id may carry a leading space in its catalog (django-oscar's offer message does).
_LEADING = {"This offer is no longer available.": " This offer is no longer available."}


def _translate(mo: bytes, msgids: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    found = []
    for kind, msgid in msgids:
        catalog_id = _LEADING.get(msgid, msgid)
        texts = catalog_translations(mo, (catalog_id,))
        if texts:
            found.append((kind, _TAGS.sub("", texts[0]).strip()))
    return found


def _english(msgids: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    return [(kind, _TAGS.sub("", msgid).strip()) for kind, msgid in msgids]


def _wheel_messages(
    wheel: Path, msgids: tuple[tuple[str, str], ...], prefix: str
) -> dict[str, list[tuple[str, str]]]:
    result: dict[str, list[tuple[str, str]]] = {"en": _english(msgids)}
    for member in wheels.members(wheel):
        match = _WHEEL_LOCALE.search(member)
        if member.startswith(prefix) and match:
            found = _translate(wheels.read_member(wheel, member), msgids)
            if found:
                result.setdefault(language_key(match[1]), []).extend(found)
    return result


def _django_messages(
    directory: Path, msgids: tuple[tuple[str, str], ...]
) -> dict[str, list[tuple[str, str]]]:
    result: dict[str, list[tuple[str, str]]] = {"en": _english(msgids)}
    for mo in sorted(directory.glob("*/LC_MESSAGES/django.mo")):
        found = _translate(mo.read_bytes(), msgids)
        if found:
            result[language_key(mo.parts[-3])] = found
    return result


def lookup_messages(cache: Path) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """{source: {language: [(kind, translated message)]}} from every catalog, English included."""
    return {
        "django-core": _django_messages(DJANGO_ROOT / "conf" / "locale", DJANGO_MSGIDS),
        "django-admin-lookup": _django_messages(
            DJANGO_ROOT / "contrib" / "admin" / "locale", DJANGO_ADMIN_MSGIDS
        ),
        "wagtail-search": _wheel_messages(wheels.fetch(*wheels.WAGTAIL, cache), WAGTAIL_MSGIDS, "wagtail/"),
        "django-oscar": _wheel_messages(wheels.fetch(*OSCAR, cache), OSCAR_MSGIDS, "oscar/"),
        "django-allauth": _wheel_messages(wheels.fetch(*ALLAUTH, cache), ALLAUTH_MSGIDS, "allauth/"),
        "sphinx-search": _wheel_messages(wheels.fetch(*SPHINX, cache), SPHINX_MSGIDS, "sphinx/"),
    }


def longest_piece(message: str) -> str:
    """The longest stretch of a message between placeholders: what states the failure ("doesn’t exist.
    Perhaps it was deleted?"), not the words that frame the looked-up name ("with ID", "the URL")."""
    return max(re.split(r"%\(\w+\)[sdr]|%[sdr]", message), key=len)


LOOKUP_SOURCES = {
    "django-core": (f"Django {django.get_version()}", "BSD-3-Clause", DJANGO_MSGIDS),
    "django-admin-lookup": (f"Django {django.get_version()}", "BSD-3-Clause", DJANGO_ADMIN_MSGIDS),
    "wagtail-search": (f"wagtail {wheels.WAGTAIL[1]}", "BSD-3-Clause", WAGTAIL_MSGIDS),
    "django-oscar": (f"django-oscar {OSCAR[1]}", "BSD-3-Clause", OSCAR_MSGIDS),
    "django-allauth": (f"django-allauth {ALLAUTH[1]}", "MIT", ALLAUTH_MSGIDS),
    "sphinx-search": (f"sphinx {SPHINX[1]}", "BSD-2-Clause", SPHINX_MSGIDS),
}
