"""Train, cross-validate and save the soft-404 classifier (Prieto et al. 2014, sections 5-6).

The paper chose C4.5 in WEKA and improved it with bagging and boosting. scikit-learn's closest analogue is a
decision tree with the entropy criterion and at least two pages per leaf (J48's -M 2; J48's confidence pruning
has no scikit-learn counterpart); both ensembles use WEKA's default of 10 iterations.
"""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import joblib
import numpy as np
import sklearn
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from checks.soft404.corpus.manifest import PARKED_SOURCE, SOFT404, read_manifest
from sites.crawler.soft404.compiled import metadata_path, sha256_of, write_compiled
from sites.crawler.soft404.fastpredict import compile_model
from sites.crawler.soft404.features import FEATURE_NAMES, extract
from sites.crawler.soft404.model import NORMAL, NOT_FOUND, PARKED, THRESHOLD, PerKindClassifier
from sites.crawler.soft404.phrases import matcher_without

WEKA_ITERATIONS = 10  # WEKA's Bagging -I and AdaBoostM1 -I defaults
C45 = "C4.5"
BAGGING = "C4.5 - Bagging"
BOOSTING = "C4.5 - Boosting"


def c45(seed: int = 0) -> DecisionTreeClassifier:
    return DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, random_state=seed)


def paper_estimators(seed: int = 0) -> dict[str, object]:
    """The three classifiers of the paper's Tables 1-2, in their order."""
    return {
        C45: c45(seed),
        BAGGING: BaggingClassifier(c45(seed), n_estimators=WEKA_ITERATIONS, random_state=seed),
        BOOSTING: AdaBoostClassifier(c45(seed), n_estimators=WEKA_ITERATIONS, random_state=seed),
    }


# Features for parked pages only: on the real pages they are noise to the not-found detector, which with them
# lost two pages in the 50% corpus and one held-out page (C4.5), and without them is the real-pages-only model.
PARKED_COLUMNS = tuple(
    FEATURE_NAMES.index(name) for name in ("parked_phrase_density", "sponsored_link_ratio")
)


def estimators(seed: int = 0) -> dict[str, PerKindClassifier]:
    """The paper's three classifiers, each as a pair of detectors (PerKindClassifier), in their order."""
    return {
        name: PerKindClassifier(estimator, parked_columns=PARKED_COLUMNS)
        for name, estimator in paper_estimators(seed).items()
    }


@dataclass(frozen=True)
class ClassScores:
    precision: float
    recall: float
    support: int


@dataclass(frozen=True)
class CVResult:
    name: str
    soft404: ClassScores
    normal: ClassScores


def scores(name: str, y_true: np.ndarray, y_pred: np.ndarray) -> CVResult:
    precision, recall, _, support = precision_recall_fscore_support(
        y_true, y_pred, labels=[1, 0], zero_division=0
    )
    return CVResult(
        name,
        ClassScores(float(precision[0]), float(recall[0]), int(support[0])),
        ClassScores(float(precision[1]), float(recall[1]), int(support[1])),
    )


def cross_validate(
    name: str,
    estimator: object,
    X: np.ndarray,
    y: np.ndarray,
    *,
    folds: int = 10,
    seed: int = 0,
    groups: np.ndarray | None = None,
    X_test: np.ndarray | None = None,
    X_extra: np.ndarray | None = None,
    y_extra: np.ndarray | None = None,
    predictions: list | None = None,
) -> CVResult:
    """Score `estimator` by k-fold cross-validation (stratified, shuffled by `seed`), or by the given groups.

    `y` holds training classes; a page counts as predicted soft-404 when its probability of any class but
    NORMAL reaches THRESHOLD, as in a verdict. With groups, each group is held out in turn; its rows are then
    read from `X_test` when given, which lets a source's pages be judged with features computed as if its
    wording had never been seen. Rows in `X_extra` (the synthetic pages) join every training fold and are
    never scored.
    """
    X_test = X if X_test is None else X_test
    if X_extra is None or y_extra is None:
        X_extra, y_extra = np.empty((0, X.shape[1])), np.empty(0, dtype=y.dtype)
    if groups is None:
        splits = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(X, y)
    else:
        splits = ((np.flatnonzero(groups != g), np.flatnonzero(groups == g)) for g in np.unique(groups))
    predicted = np.zeros(len(y), dtype=int)
    for train, test in splits:
        fitted = clone(estimator).fit(np.vstack([X[train], X_extra]), np.concatenate([y[train], y_extra]))
        compiled = compile_model(fitted)  # judged by the probability the shipped model reports
        predicted[test] = [compiled.probability(row) >= THRESHOLD for row in X_test[test]]
    if predictions is not None:
        predictions.append(predicted)  # per page, for scores over a part of the corpus
    return scores(name, (y != NORMAL).astype(int), predicted)


def format_table(sections: list[tuple[str, list[CVResult]]]) -> str:
    """Lay results out like the paper's Tables 1-2: precision and recall of each class per classifier."""
    lines = [
        f"| {'':<24} | {'Soft-404':^19} | {'Normal page':^19} |",
        f"| {'':<24} | {'Precision':>9} {'Recall':>9} | {'Precision':>9} {'Recall':>9} |",
    ]
    for title, results in sections:
        lines.append(f"| {title:<24} | {'':19} | {'':19} |")
        for r in results:
            lines.append(
                f"| {r.name:<24} | {r.soft404.precision:>9.3f} {r.soft404.recall:>9.3f} "
                f"| {r.normal.precision:>9.3f} {r.normal.recall:>9.3f} |"
            )
    return "\n".join(lines)


def save_model(estimator: object, path: Path, *, name: str, training: dict[str, object]) -> dict[str, object]:
    """Write the fitted estimator with joblib, its compiled form (compiled.py) and its metadata beside it as
    JSON; return the metadata."""
    path.parent.mkdir(parents=True, exist_ok=True)
    joblib.dump(estimator, path, compress=3)
    compiled_sha256 = write_compiled(compile_model(estimator), path)
    metadata = {
        "model": name,
        "sklearn_version": sklearn.__version__,
        "python_version": platform.python_version(),
        "feature_names": list(FEATURE_NAMES),
        "trained_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "model_sha256": sha256_of(path),
        "compiled_sha256": compiled_sha256,
        **training,
    }
    metadata_path(path).write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return metadata


# The phrase-list source harvested from each corpus source of not-found pages: the corpus and the phrase list
# come from the same catalogs, so phrase features look perfect unless that wording is hidden at test time.
PHRASES_OF_SOURCE = {
    "django-admin-404": "django-admin",
    "wagtail-admin-404": "wagtail-admin",
    "apache2-error": "apache2-data",
    "django-default-404": "servers",
    "nginx-error": "servers",
    "werkzeug-error": "servers",
    "sphinx-404": "servers",
    "mkdocs-material-404": "servers",
    # The lookup pages say what the lookup catalogs say: all of them are hidden together.
    "sphinx-lookup": "lookup",
    "mkdocs-material-lookup": "lookup",
}
LOOKUP_PHRASE_SOURCES = (
    "django-core",
    "django-admin-lookup",
    "wagtail-search",
    "django-oscar",
    "django-allauth",
    "sphinx-search",
)


def corpus_matrix(directory: Path, *, include_synthetic: bool = False) -> tuple[np.ndarray, np.ndarray, list]:
    """Compute the features of every corpus page: (X, training classes, manifest entries).

    Synthetic pages only come on request. A soft-404 page of the parked-domain source is of class PARKED,
    any other soft-404 page NOT_FOUND.
    """
    entries = [e for e in read_manifest(directory) if include_synthetic or not e.synthetic]
    rows = [extract((directory / e.file).read_bytes(), e.url).vector() for e in entries]
    X = np.vstack(rows) if rows else np.empty((0, len(FEATURE_NAMES)))
    classes = [
        NORMAL if e.label != SOFT404 else PARKED if e.source == PARKED_SOURCE else NOT_FOUND for e in entries
    ]
    return X, np.array(classes, dtype=int), entries


def unseen_wording_matrix(directory: Path, entries: list, X: np.ndarray) -> np.ndarray:
    """Recompute each not-found source's rows with a phrase list that lacks the phrases taken from it."""
    blind = X.copy()
    matchers = {
        ps: matcher_without(*(LOOKUP_PHRASE_SOURCES if ps == "lookup" else (ps,)))
        for ps in set(PHRASES_OF_SOURCE.values())
    }
    for row, entry in enumerate(entries):
        phrase_source = PHRASES_OF_SOURCE.get(entry.source)
        if phrase_source:
            html = (directory / entry.file).read_bytes()
            blind[row] = extract(html, entry.url, matcher=matchers[phrase_source]).vector()
    return blind


# Suffixes of the sources one site build yields: its 404 page, lookup pages, short pages and content pages.
_SITE_PARTS = ("-404", "-lookup", "-short", "-pages")


def site_of(source: str) -> str:
    """The site a corpus source comes from: "sphinx" for sphinx-404, sphinx-lookup, sphinx-short, sphinx-pages."""
    for suffix in _SITE_PARTS:
        if source.endswith(suffix):
            return source.removesuffix(suffix)
    return source


def language_of(lang: str) -> str:
    """The base language of a page's tag (pt-br -> pt, zh-hans -> zh), the unit held out by language."""
    return (lang or "und").split("-")[0].lower() or "und"


def balanced_indices(entries: list, y: np.ndarray) -> np.ndarray:
    """Every soft-404 page and as many normal pages, chosen by a hash of their id (the paper's 50% datasets)."""
    positives = np.flatnonzero(y != NORMAL)
    normals = sorted(
        np.flatnonzero(y == NORMAL), key=lambda i: hashlib.sha256(entries[i].id.encode()).hexdigest()
    )
    return np.sort(np.concatenate([positives, np.array(normals[: len(positives)], dtype=int)]))
