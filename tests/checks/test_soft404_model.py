"""Training, cross-validation, safe persistence and the shipped soft-404 model."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import sklearn

from checks.soft404.fastpredict import compile_model
from checks.soft404.features import FEATURE_NAMES
from checks.soft404.model import (
    MODEL_FILE,
    ModelVersionError,
    cross_validate,
    default_model,
    estimators,
    format_table,
    load_model,
    metadata_path,
    save_model,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "soft404"


def toy_data(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.random((n, len(FEATURE_NAMES))) * 100
    y = ((X[:, 2] > 60) | ((X[:, 7] < 20) & (X[:, 4] < 50))).astype(int)
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


@pytest.mark.parametrize("name", ["C4.5", "C4.5 - Bagging", "C4.5 - Boosting"])
def test_compiled_model_gives_the_same_probabilities_as_scikit_learn(name):
    X, y = toy_data()
    fitted = estimators(seed=3)[name].fit(X[:200], y[:200])
    compiled = compile_model(fitted)
    expected = fitted.predict_proba(X[200:])[:, 1]
    assert np.allclose([compiled.probability(row) for row in X[200:]], expected, atol=1e-12)


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
