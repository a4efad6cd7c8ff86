"""The lookup and short pages each site build of the corpus adds, and the groupings of the evaluation."""

from checks.soft404.corpus.build_extras import fill, lookup_sections, messages_for, short_sections
from checks.soft404.corpus.lookup_phrases import longest_piece
from checks.soft404.training import language_of, site_of

LOOKUPS = {
    "django-oscar": {
        "de": [
            ("removed", "Das angegebene Produkt gibt es nicht mehr"),
            ("expired", "Der „%(code)s“ Gutschein ist bereits abgelaufen"),
        ],
        "en": [("removed", "The requested product no longer exists")],
    },
    "sphinx-search": {"pt-br": [("no-results", "Sua pesquisa não encontrou nenhum documento.")]},
}
SECTIONS = [
    (
        "newspaper4k",
        "# Newspaper4k\n\nNewspaper4k reads news articles. It finds their text, authors and dates.\n",
    ),
    (
        "usage",
        "# Usage\n\nCall the article class with a URL and download it. Then parse it to read the text.\n",
    ),
    ("install", "# Install\n\nInstall it from the package index with pip and a recent Python version.\n"),
]


def test_placeholders_are_filled_as_a_site_fills_them():
    assert fill("Der „%(code)s“ Gutschein ist abgelaufen") == "Der „NEWS-2291“ Gutschein ist abgelaufen"
    assert fill('The URL "%s" does not exist') == 'The URL "newspaper4k" does not exist'


def test_messages_come_one_per_kind_in_the_builds_language_or_its_base_language():
    assert [kind for kind, _ in messages_for("de", LOOKUPS)] == ["expired", "removed"]
    assert messages_for("pt_BR", LOOKUPS) == [("no-results", "Sua pesquisa não encontrou nenhum documento.")]
    assert messages_for("sw", LOOKUPS) == []


def test_each_build_gets_two_lookup_pages_stating_the_failure_under_a_plain_heading():
    pages = lookup_sections("de", LOOKUPS, 3)
    assert [slug for slug, _ in pages] == ["lookup-removed", "lookup-expired"]
    assert pages[0][1].startswith("# newspaper4k 3\n") and "gibt es nicht mehr" in pages[0][1]


def test_short_pages_are_real_readme_sentences_with_links_named_by_file():
    pages = dict(short_sections(SECTIONS, 1))
    assert set(pages) == {"short-stub", "short-tags", "short-about"}
    assert all(len(text.split()) < 80 for text in pages.values())
    assert "(02-install.md)" in pages["short-tags"] and "02-install.html]" in pages["short-tags"]


def test_the_longest_piece_between_placeholders_states_the_failure():
    assert longest_piece("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?") == (
        "” doesn’t exist. Perhaps it was deleted?"
    )


def test_evaluation_groups_pages_by_base_language_and_by_site():
    assert [language_of(tag) for tag in ("pt-br", "zh-hans", "", "DE")] == ["pt", "zh", "und", "de"]
    assert {site_of(s) for s in ("sphinx-404", "sphinx-lookup", "sphinx-short", "sphinx-pages")} == {"sphinx"}
    assert site_of("apache2-error") == "apache2-error"
