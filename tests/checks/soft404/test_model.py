"""Training, cross-validation, safe persistence and the shipped soft-404 model."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn

from checks.soft404.training import cross_validate, estimators, format_table, paper_estimators, save_model
from sites.crawler.soft404.compiled import compiled_path, metadata_path
from sites.crawler.soft404.errors import ModelVersionError
from sites.crawler.soft404.fastpredict import compile_model
from sites.crawler.soft404.features import FEATURE_NAMES, parse
from sites.crawler.soft404.model import MODEL_FILE, PARKED, PerKindClassifier, default_model, load_model
from sites.crawler.soft404.shipped import load_compiled
from tests.conftest import REPO, TESTBED, unavailable  # test data: evaluated, never trained on

DATA = Path(__file__).resolve().parents[2] / "data" / "soft404"


def toy_data(n: int = 300, classes: int = 2, noise: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Random features and classes NORMAL, NOT_FOUND and (with classes=3) PARKED, decided by a few of them;
    `noise` is the share of rows given a random class instead."""
    rng = np.random.default_rng(0)
    X = rng.random((n, len(FEATURE_NAMES))) * 100
    y = ((X[:, 2] > 60) | ((X[:, 7] < 20) & (X[:, 4] < 50))).astype(int)
    if classes == 3:
        y[(y == 0) & (X[:, 11] > 70)] = PARKED
    flipped = rng.random(n) < noise
    y[flipped] = rng.integers(0, classes, int(flipped.sum()))
    return X, y


@pytest.fixture
def saved_model(tmp_path: Path) -> Path:
    X, y = toy_data()
    path = tmp_path / "model.joblib"
    save_model(estimators()["C4.5"].fit(X, y), path, name="C4.5", training={"training_pages": len(y)})
    return path


def edit_metadata(path: Path, **changes: object) -> None:
    meta_file = metadata_path(path)
    metadata = json.loads(meta_file.read_text())
    metadata.update(changes)
    meta_file.write_text(json.dumps(metadata))


def test_a_saved_model_loads_back_with_its_metadata(saved_model):
    model = load_model(saved_model)
    assert model.metadata["sklearn_version"] == sklearn.__version__
    assert model.metadata["feature_names"] == list(FEATURE_NAMES)
    assert model.metadata["training_pages"] == 300 and model.metadata["trained_at"].endswith("Z")


def test_a_model_from_another_scikit_learn_major_version_is_refused(saved_model):
    edit_metadata(saved_model, sklearn_version="0.24.2")
    with pytest.raises(ModelVersionError, match=r"scikit-learn 0\.24\.2.*refused.*train_soft404"):
        load_model(saved_model)


def test_a_model_from_another_minor_version_of_the_same_major_loads(saved_model):
    major = sklearn.__version__.split(".")[0]
    edit_metadata(saved_model, sklearn_version=f"{major}.0.0")
    assert load_model(saved_model).estimator is not None


def test_a_model_trained_on_other_features_is_refused(saved_model):
    edit_metadata(saved_model, feature_names=["page_bytes"])
    with pytest.raises(ModelVersionError, match="other features"):
        load_model(saved_model)


def test_a_model_whose_file_changed_after_saving_is_refused(saved_model):
    saved_model.write_bytes(saved_model.read_bytes() + b"\0")
    with pytest.raises(ModelVersionError, match="checksum"):
        load_model(saved_model)


def test_a_model_without_its_metadata_is_refused(saved_model):
    metadata_path(saved_model).unlink()
    with pytest.raises(ModelVersionError, match="missing"):
        load_model(saved_model)


def test_a_saved_model_is_also_saved_compiled_and_loads_without_its_estimator(saved_model):
    compiled = load_compiled(saved_model)
    X, _ = toy_data()
    model = load_model(saved_model)
    assert compiled == model.compiled
    assert [compiled.probability(row) for row in X[:50]] == [model.probability(row) for row in X[:50]]


def test_a_compiled_model_whose_file_changed_after_saving_is_refused(saved_model):
    path = compiled_path(saved_model)
    path.write_text(path.read_text().replace('"kind":"tree"', '"kind":"bagging"'))
    with pytest.raises(ModelVersionError, match="checksum"):
        load_compiled(saved_model)


def test_a_model_saved_before_compiled_files_is_compiled_when_loaded(saved_model):
    compiled_path(saved_model).unlink()
    metadata = json.loads(metadata_path(saved_model).read_text())
    del metadata["compiled_sha256"]
    metadata_path(saved_model).write_text(json.dumps(metadata))
    assert load_compiled(saved_model) == load_model(saved_model).compiled


def test_the_shipped_model_is_shipped_compiled_too():
    assert load_compiled(MODEL_FILE) == load_model(MODEL_FILE).compiled


def test_reading_pages_never_imports_scikit_learn():
    # A page reader classifies with the compiled model: scikit-learn would cost each reader 90 MB.
    script = (
        "import sys\n"
        "from sites.crawler.reading import PageRequest, read_page\n"
        "reading = read_page(PageRequest(body=b'<title>Not found</title><h1>404</h1>', url='http://e.com/x'))\n"
        "assert reading.probability > 0.5, reading\n"
        "print('sklearn' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("name", ["C4.5", "C4.5 - Bagging"])
def test_compiled_tree_and_bagging_give_scikit_learns_probability_of_any_class_but_normal(name, classes):
    X, y = toy_data(classes=classes)
    fitted = paper_estimators(seed=3)[name].fit(X[:200], y[:200])
    expected = 1 - fitted.predict_proba(X[200:])[:, 0]
    assert np.allclose([compile_model(fitted).probability(row) for row in X[200:]], expected, atol=1e-12)


@pytest.mark.parametrize("classes", [2, 3])
def test_compiled_boosting_gives_wekas_softmax_of_the_weighted_votes(classes):
    X, y = toy_data(classes=classes, noise=0.1)
    fitted = paper_estimators(seed=3)["C4.5 - Boosting"].fit(X[:200], y[:200])
    weights = fitted.estimator_weights_[: len(fitted.estimators_)]
    assert len(weights) > 1  # a real ensemble, not one error-free tree
    votes = sum(
        w * (t.predict(X[200:])[:, None] == fitted.classes_)
        for t, w in zip(fitted.estimators_, weights, strict=True)
    )
    expected = 1 - np.exp(votes[:, 0]) / np.exp(votes).sum(axis=1)
    compiled = [compile_model(fitted).probability(row) for row in X[200:]]
    assert np.allclose(compiled, expected, atol=1e-9)
    if classes == 2:  # the same side of 0.5 as scikit-learn's prediction
        assert ((np.array(compiled) >= 0.5) == (fitted.predict(X[200:]) == 1)).all()


def test_a_unanimous_boosting_vote_is_not_capped_at_scikit_learns_0_881():
    X, y = toy_data()
    fitted = paper_estimators()["C4.5 - Boosting"].fit(X, y)
    assert max(compile_model(fitted).probability(row) for row in X) > 0.99


def test_per_kind_classifier_takes_the_larger_probability_of_its_detectors():
    X, y = toy_data(classes=3)
    model = PerKindClassifier(paper_estimators()["C4.5"]).fit(X, y)
    known = y != PARKED
    alone = paper_estimators()["C4.5"].fit(X[known], y[known])
    compiled, parts = compile_model(model), [compile_model(model.not_found_), compile_model(model.parked_)]
    for row in X[:50]:
        assert compiled.probability(row) == max(part.probability(row) for part in parts)
        assert parts[0].probability(row) == compile_model(alone).probability(row)  # parked pages unseen


def test_per_kind_classifier_without_parked_pages_has_one_detector():
    X, y = toy_data()
    model = PerKindClassifier(paper_estimators()["C4.5"]).fit(X, y)
    assert model.parked_ is None and len(compile_model(model).parts) == 1


def test_cross_validation_scores_real_rows_only_and_trains_on_the_extra_rows():
    X, y = toy_data()
    X_extra, y_extra = X[:40] + 1000, np.full(40, PARKED)
    result = cross_validate("C4.5", estimators()["C4.5"], X, y, folds=5, X_extra=X_extra, y_extra=y_extra)
    assert result.soft404.support + result.normal.support == len(y)


def test_cross_validation_reports_precision_and_recall_for_both_classes():
    X, y = toy_data()
    result = cross_validate("C4.5", estimators()["C4.5"], X, y, folds=10)
    assert result.soft404.support == int(y.sum()) and result.normal.support == int((1 - y).sum())
    assert 0.8 < result.soft404.recall <= 1.0 and 0.8 < result.normal.precision <= 1.0
    table = format_table([("Toy", [result])])
    assert "Soft-404" in table and "Normal page" in table and "| C4.5 " in table


def test_leave_one_group_out_never_trains_on_the_group_it_tests():
    X, y = toy_data()
    groups = np.where(y == 1, "positives", "negatives")
    # Holding out every positive leaves a training set of negatives only, which predicts no soft-404 at all.
    assert cross_validate("C4.5", estimators()["C4.5"], X, y, groups=groups).soft404.recall == 0.0


def test_shipped_model_is_loaded_once_per_process():
    assert default_model() is default_model()
    assert default_model().metadata["feature_names"] == list(FEATURE_NAMES)
    assert MODEL_FILE.stat().st_size + metadata_path(MODEL_FILE).stat().st_size < 2_000_000


def test_shipped_model_flags_a_spanish_not_found_page_inside_a_site_template():
    html = (DATA / "notfound-es.html").read_bytes()
    assert default_model().page_probability(html, "http://127.0.0.1:8102/tutorial-xyz.html") >= 0.5


@pytest.mark.parametrize(
    "name", ["git-mktree.html", "handbook-ru-config-printing.html", "handbook-ja-ftp-file-server.html"]
)
def test_shipped_model_passes_real_documentation_pages(name):
    html = (DATA / name).read_bytes()
    assert default_model().page_probability(html, f"http://localhost/doc/{name}") < 0.5


@pytest.mark.parametrize(
    "text",
    [
        "<h1>Fehler 404</h1><p>Die angeforderte Seite konnte nicht gefunden werden.</p>",
        "<h1>ページが見つかりません</h1><p>申し訳ありませんが、お探しのページは見つかりませんでした。</p>",
        "<h1>Страница не найдена</h1><p>К сожалению, запрашиваемая вами страница не найдена.</p>",
        "<h1>تعذر العثور على الصفحة</h1><p>عذراً، تعذر العثور على الصفحة المطلوبة</p>",
    ],
)
def test_shipped_model_flags_short_not_found_pages_in_other_languages(text):
    html = (
        f"<!DOCTYPE html><html><head><title>404</title></head><body>{text}<a href='/'>Home</a></body></html>"
    )
    assert default_model().page_probability(html, "http://example.org/missing") >= 0.5


@pytest.mark.skipif(
    not Path("/usr/share/doc/python3.11/html/library/os.html").exists(),
    reason="python3.11-doc is not installed",
)
def test_shipped_model_passes_a_long_python_documentation_page():
    html = Path("/usr/share/doc/python3.11/html/library/os.html").read_bytes()
    assert default_model().page_probability(html, "http://127.0.0.1:8101/library/os.html") < 0.5


def test_shipped_model_copy_refuses_a_foreign_major_version(tmp_path):
    copy = tmp_path / "model.joblib"
    shutil.copy(MODEL_FILE, copy)
    shutil.copy(metadata_path(MODEL_FILE), metadata_path(copy))
    edit_metadata(copy, sklearn_version="2.0.0" if sklearn.__version__.startswith("1.") else "1.0.0")
    with pytest.raises(ModelVersionError):
        load_model(copy)


def test_shipped_model_flags_a_parked_domain_page():
    html = (DATA / "parked-fr.html").read_bytes()
    assert default_model().page_probability(html, "http://jardinage-bio.example/") >= 0.9


@pytest.mark.parametrize(
    ("name", "url", "at_least"),
    [
        ("parked.html", "http://127.0.0.1:8106/", 0.9),
        ("notfound.html", "http://127.0.0.1:8102/tutorial-xyz.html", 0.5),
    ],
)
def test_shipped_model_flags_the_test_beds_soft404_pages(name, url, at_least):
    page = TESTBED / name
    if not page.exists():
        unavailable(f"no test bed at {TESTBED}")
    assert default_model().page_probability(page.read_bytes(), url) >= at_least


@pytest.mark.parametrize("name", ["parked-fr.html", "notfound-es.html", "git-mktree.html"])
def test_probability_of_a_parsed_tree_equals_the_probability_of_the_page(name):
    html = (DATA / name).read_bytes()
    model = default_model()
    root = parse(html)
    url = f"http://example.org/{name}"
    assert model.probability_of_tree(root, page_bytes=len(html), url=url) == model.page_probability(html, url)


def test_the_not_found_detector_never_reads_the_parked_columns():
    X, y = toy_data(classes=3)
    model = PerKindClassifier(paper_estimators()["C4.5 - Bagging"], parked_columns=(11, 12)).fit(X, y)
    not_found = compile_model(model).parts[0]
    changed = X.copy()
    changed[:, 11:13] = -changed[:, 11:13]
    assert [not_found.probability(r) for r in X] == [not_found.probability(r) for r in changed]
    alone = paper_estimators()["C4.5 - Bagging"].fit(X[y != PARKED][:, :11], y[y != PARKED])
    assert np.allclose([not_found.probability(r) for r in X], 1 - alone.predict_proba(X[:, :11])[:, 0])
