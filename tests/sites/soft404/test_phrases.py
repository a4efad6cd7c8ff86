"""Multilingual not-found phrases: coverage of the generated list and unicode-aware matching."""

import pytest

from checks.soft404.corpus.phrase_sources import fragments
from sites.crawler.soft404.phrases import (
    PhraseMatcher,
    default_matcher,
    load_parked_phrases,
    load_phrases,
    normalize,
    phrase_sources,
)


@pytest.mark.parametrize(
    "text",
    [
        "Fehler 404: Seite nicht gefunden",  # German
        "お探しのページは見つかりませんでした。",  # Japanese, no spaces between words
        "Ошибка: страница не найдена",  # Russian
        "عذراً، تعذر العثور على الصفحة المطلوبة",  # Arabic
        "页面没有找到",  # Chinese
        "페이지를 찾을 수 없습니다",  # Korean
        "Sayfa bulunamadı",  # Turkish
        "Página no encontrada",  # Spanish
    ],
)
def test_not_found_messages_in_many_languages_hit_a_phrase(text):
    assert default_matcher().count(normalize(text)) >= 1


def test_phrase_list_covers_about_ninety_languages():
    languages = load_phrases()
    assert len(languages) >= 90
    assert {"de", "ja", "ru", "ar", "zh-hans", "hi", "sw", "uk"} <= set(languages)


def test_phrase_list_comes_from_named_sources():
    assert phrase_sources() == [
        "apache2-data",
        "django-admin",
        "django-admin-lookup",
        "django-allauth",
        "django-core",
        "django-oscar",
        "servers",
        "sphinx-search",
        "wagtail-admin",
        "wagtail-search",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Das angegebene Produkt gibt es nicht mehr",  # German, removed (django-oscar)
        "Aucun résultat trouvé",  # French, no results
        "Ihre Suche ergab keine Treffer.",  # German, no results (Sphinx)
        "Este artículo ya no está disponible",  # Spanish, no longer available
        "Falsches oder abgelaufenes Token.",  # German, expired (django-allauth)
    ],
)
def test_lookup_failed_wording_from_the_catalogs_hits_a_phrase(text):
    assert default_matcher().count(normalize(text)) >= 1


def test_a_not_found_phrase_in_link_text_does_not_count_for_the_page():
    from sites.crawler.soft404.features import extract

    html = (
        "<html><body><h1>Decay</h1><p>Three short notes on how links rot over the years.</p><ul>"
        "<li><a href='a.html'>decay 404.html</a></li><li><a href='b.html'>walk 405.html</a></li>"
        "<li><a href='c.html'>Error codes</a></li></ul></body></html>"
    )
    assert extract(html).phrase_hits == 0
    assert extract(html.replace("Three short", "Error 404: three short")).phrase_hits >= 1


def test_phrases_can_be_hidden_by_source():
    assert "seite nicht gefunden" in load_phrases()["de"]
    assert "seite nicht gefunden" not in load_phrases(without=["django-admin", "wagtail-admin"]).get("de", [])


def test_a_match_must_start_a_word():
    assert PhraseMatcher(["error"]).count(normalize("terror")) == 0


def test_a_single_word_phrase_must_also_end_a_word():
    matcher = PhraseMatcher(["404", "error"])
    assert matcher.count(normalize("4041 errors 404.")) == 1


def test_a_longer_phrase_may_end_inside_a_word_for_agglutinative_languages():
    assert PhraseMatcher(["sayfa bulunamad"]).count(normalize("Sayfa bulunamadı")) == 1


def test_unspaced_scripts_match_inside_a_sentence():
    assert PhraseMatcher(["見つかりません"]).count(normalize("ページが見つかりませんでした")) == 1


def test_matching_ignores_case_whitespace_and_apostrophe_style():
    matcher = PhraseMatcher(["We’re sorry"])
    assert matcher.count(normalize("WE'RE\n   SORRY")) == 1


def test_fragments_split_messages_at_placeholders_sentences_and_clauses():
    found = set(fragments("We’re sorry, but the requested page could not be found. %(name)s was deleted"))
    assert "we’re sorry" in found
    assert "but the requested page could not be found" in found
    assert "was deleted" in found
    assert all("%(" not in f for f in found)


def test_fragments_drop_single_words_of_spaced_scripts():
    assert list(fragments("Fehler")) == []
    assert list(fragments("見つかりません")) == ["見つかりません"]


@pytest.mark.parametrize(
    "text",
    [
        "This domain may be for sale!",
        "Diese Domain steht zum Verkauf",
        "Búsquedas relacionadas",
        "Ce nom de domaine est à vendre",
        "Этот домен продаётся",
        "このドメインは販売中です",
        "此域名正在出售",
    ],
)
def test_parked_domain_wording_in_many_languages_counts_as_parked_only(text):
    assert default_matcher().counts(normalize(text))[1] >= 1
    assert default_matcher().count(normalize(text)) == 0


def test_a_phrase_in_both_lists_counts_in_both():
    matcher = PhraseMatcher(["page not found", "not found"], ["domain for sale", "not found"])
    assert matcher.counts(normalize("Page not found. Domain for sale")) == (2, 2)


def test_a_latin_text_counts_the_same_with_a_character_of_another_script_in_it():
    # Text of Latin characters only is scanned with a smaller automaton; the counts must not change.
    matcher = default_matcher()
    text = normalize("Error 404 – page not found. We’re sorry; this domain is for sale → related searches")
    # "this domain is for sale", the "domain is for sale" inside it, and "related searches".
    assert matcher.counts(text) == matcher.counts(text + " 日") == (matcher.count(text), 3)
    assert matcher.counts(text)[0] >= 3


def test_parked_phrases_cover_many_languages_and_avoid_menu_wording():
    languages = load_parked_phrases()
    assert len(languages) >= 15 and {"en", "de", "fr", "es", "ja", "zh-hans", "ru"} <= set(languages)
    assert "related links" not in languages["en"]  # the menus of git-doc and libxslt pages say it


def test_not_found_wording_quoted_in_code_does_not_count_for_the_page():
    from sites.crawler.soft404.features import extract

    html = (
        "<html><body><h1>Client authentication problems</h1><p>If the database is missing you will see</p>"
        '<pre>FATAL:  database "testdb" does not exist</pre><p>and with <code>WHENEVER NOT FOUND</code> the '
        "program goes on.</p></body></html>"
    )
    assert extract(html).phrase_hits == 0
    assert extract(html.replace("<pre>", "<p>").replace("</pre>", "</p>")).phrase_hits == 1
