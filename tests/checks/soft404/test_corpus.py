"""The soft-404 corpus: reproducible sampling and manifests, test data kept out, and the page sources."""

import shutil
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from checks.soft404.corpus import apache_errors
from checks.soft404.corpus.manifest import (
    NORMAL,
    SOFT404,
    CorpusPage,
    deduplicate,
    html_lang,
    is_test_data,
    manifest_sha256,
    read_manifest,
    stable_sample,
    write_corpus,
)
from checks.soft404.corpus.normal_pages import DocTree, doc_tree_pages
from checks.soft404.corpus.notfound_pages import django_admin_404_pages, nginx_pages, werkzeug_pages
from checks.soft404.corpus.parked_pages import LAYOUTS, layout_of, parked_pages
from checks.soft404.training import corpus_matrix
from sites.crawler.soft404.features import extract
from sites.crawler.soft404.model import NOT_FOUND, PARKED
from sites.crawler.soft404.phrases import default_matcher, normalize
from tests.conftest import TESTBED, unavailable


def make_page(
    name: str, label: int = NORMAL, html: bytes | None = None, synthetic: bool = False
) -> CorpusPage:
    return CorpusPage(
        source="test",
        name=name,
        label=label,
        lang="en",
        url=f"http://localhost/{name}",
        package="tests",
        license="-",
        origin=name,
        html=html or f"<html><body><p>{name}</p></body></html>".encode(),
        synthetic=synthetic,
    )


def test_html_lang_reads_the_root_element():
    assert html_lang(b'<!doctype html><html class="x" lang="pt_BR">') == "pt-br"
    assert html_lang(b"<html><body>", default="und") == "und"


def test_test_bed_pages_and_trees_count_as_test_data():
    assert is_test_data("/work/shared/testbed/notfound.html")
    assert is_test_data("/usr/share/doc/postgresql-doc-15/html/sql-select.html")
    assert not is_test_data("/usr/share/doc/git-doc/git-rm.html")


def test_a_doc_tree_under_the_test_bed_yields_no_pages():
    tree = DocTree("python", "python3.11-doc", "PSF", "/usr/share/doc/python3.11/html", "**/*.html", "en")
    assert doc_tree_pages(tree, None) == []


def test_stable_sample_depends_on_ids_not_on_input_order():
    pages = [make_page(f"p{i}") for i in range(50)]
    first = stable_sample(pages, 10)
    assert [p.id for p in first] == [p.id for p in stable_sample(list(reversed(pages)), 10)]
    assert len(first) == 10 and len(stable_sample(pages, None)) == 50


def test_deduplicate_drops_byte_identical_pages():
    pages = [make_page("a", html=b"<p>same</p>"), make_page("b", html=b"<p>same</p>"), make_page("c")]
    kept, dropped = deduplicate(pages)
    assert [p.name for p in kept] == ["a", "c"] and dropped == 1


def test_written_corpus_is_reproducible_and_reads_back(tmp_path):
    pages = [make_page("b"), make_page("a", label=SOFT404), make_page("parked", SOFT404, synthetic=True)]
    write_corpus(pages, tmp_path / "one")
    write_corpus(list(reversed(pages)), tmp_path / "two")
    assert manifest_sha256(tmp_path / "one") == manifest_sha256(tmp_path / "two")
    entries = read_manifest(tmp_path / "one")
    assert [e.id for e in entries] == ["test/a", "test/b", "test/parked"]
    assert (tmp_path / "one" / entries[0].file).read_bytes() == pages[1].html
    assert entries[2].synthetic and entries[0].license == "-"


def test_evaluation_leaves_synthetic_pages_out(tmp_path):
    write_corpus([make_page("real"), make_page("parked", SOFT404, synthetic=True)], tmp_path)
    assert corpus_matrix(tmp_path)[0].shape[0] == 1
    assert corpus_matrix(tmp_path, include_synthetic=True)[0].shape[0] == 2


def test_parked_pages_are_a_training_class_of_their_own(tmp_path):
    parked = next(parked_pages())
    write_corpus([make_page("real"), make_page("gone", SOFT404), parked], tmp_path)
    assert corpus_matrix(tmp_path, include_synthetic=True)[1].tolist() == [
        PARKED,
        NOT_FOUND,
        NORMAL,
    ]  # sorted by id


def test_evaluate_command_trains_on_synthetic_pages_but_scores_real_ones(tmp_path):
    gone = "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"
    pages = [
        make_page(f"real{i}", html=f"<html><body><p>{'words ' * (50 + i)}</p></body></html>".encode())
        for i in range(12)
    ]
    pages += [
        make_page(f"gone{i}", SOFT404, html=gone.replace("Found", f"Found {i}").encode()) for i in range(8)
    ]
    pages += list(parked_pages())[:4]
    write_corpus(pages, tmp_path)
    out = StringIO()
    call_command("evaluate_soft404", corpus=tmp_path, folds=4, quick=True, stdout=out)
    assert out.getvalue().startswith("20 real pages scored, 8 soft-404 (40.0%); 4 synthetic pages")


def test_parked_pages_are_synthetic_and_varied():
    pages = list(parked_pages())
    assert len(pages) == 36 and all(p.synthetic and p.label == SOFT404 for p in pages)
    assert Counter(layout_of(p.id) for p in pages) == {layout: 6 for layout in LAYOUTS}
    assert len({p.lang for p in pages}) == 10
    features = [extract(p.html, p.url) for p in pages]
    assert all(f.keywords == 0 or 20 <= f.keywords <= 60 for f in features)
    assert any(f.keywords == 0 for f in features) and any(f.keywords >= 30 for f in features)
    assert all(f.parked_phrase_density > 0 for f in features)  # every page says what it is somewhere
    assert min(f.text_words for f in features) < 10 and max(f.text_words for f in features) > 90
    assert min(f.page_bytes for f in features) < 1000 and max(f.page_bytes for f in features) > 15000


def test_parked_pages_are_the_same_on_every_build():
    assert [p.html for p in parked_pages()] == [p.html for p in parked_pages()]


def test_parked_pages_are_not_the_test_beds():
    testbed = TESTBED / "parked.html"
    if not testbed.exists():
        unavailable(f"no test bed at {TESTBED}")
    text = testbed.read_bytes()
    assert all(p.html != text for p in parked_pages())


# A copy of Debian apache2-data's HTTP_NOT_FOUND.html.var and the files it includes (Apache-2.0).
APACHE_ERRORS = Path(__file__).resolve().parents[2] / "data" / "soft404" / "apache-error"


def test_apache_404_page_renders_in_21_languages_without_ssi_left():
    docs = apache_errors.error_documents("HTTP_NOT_FOUND", directory=APACHE_ERRORS)
    assert len(docs) == 21
    assert all("<!--#" not in d.html and "<title>" in d.html for d in docs)
    german = next(d for d in docs if d.lang == "de")
    assert "Objekt nicht gefunden!" in german.html and "Error 404" in german.html


def test_apache_page_with_a_referer_adds_the_broken_link_paragraph():
    direct = {
        d.lang: d.html for d in apache_errors.error_documents("HTTP_NOT_FOUND", directory=APACHE_ERRORS)
    }
    referred = {
        d.lang: d.html
        for d in apache_errors.error_documents("HTTP_NOT_FOUND", referer="http://r/", directory=APACHE_ERRORS)
    }
    assert "http://r/" in referred["en"] and "http://r/" not in direct["en"]


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx missing")
def test_nginx_pages_come_from_the_installed_binary():
    pages = list(nginx_pages())
    assert {p.name.split("-")[0] for p in pages} == {"404", "410"}
    assert all(p.html.startswith(b"<html>") and b"</html>" in p.html for p in pages)


def test_werkzeug_pages_are_its_not_found_and_gone_bodies():
    pages = {p.name: p.html.decode() for p in werkzeug_pages()}
    assert "404 Not Found" in pages["404"] and "410 Gone" in pages["410"]


def test_django_admin_404_is_rendered_in_each_language_with_its_own_words():
    pages = {p.lang: p for p in django_admin_404_pages()}
    assert len(pages) >= 90
    japanese = pages["ja"].html.decode()
    assert "ページが見つかりません" in japanese
    assert default_matcher().count(normalize(pages["ru"].html.decode())) >= 1
