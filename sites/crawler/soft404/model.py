"""Load the soft-404 classifier and its per-kind estimator (Prieto et al. 2014, sections 5-6).

What a crawl needs at run time: the saved model, checked before unpickling, and the estimator class its
pickle names. Training, cross-validation and saving live in the tooling, checks/soft404/training.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import joblib
import numpy as np
import sklearn
from lxml import etree
from sklearn.base import BaseEstimator, clone

from sites.crawler.soft404.compiled import SHIPPED_MODEL, metadata_path, sha256_of
from sites.crawler.soft404.errors import ModelVersionError
from sites.crawler.soft404.fastpredict import CompiledModel, compile_model
from sites.crawler.soft404.features import FEATURE_NAMES, extract, extract_from_tree

DATA_DIR = Path(__file__).parent / "data"
MODEL_FILE = SHIPPED_MODEL


# Training classes: the corpus labels a page normal or soft-404, and the soft-404 pages of the parked-domain
# source are parked pages. Evaluations and the shipped probability only ask "soft-404 or not".
NORMAL, NOT_FOUND, PARKED = 0, 1, 2
CLASS_NAMES = ("normal", "not-found", "parked")
THRESHOLD = 0.5  # the probability from which evaluations count a page as soft-404, as verdict.py's default


class PerKindClassifier(BaseEstimator):
    """One classifier per kind of soft-404 page; a page's probability is the larger of the two.

    The not-found detector learns not-found pages against normal ones, on the real pages only; the parked
    detector learns parked pages against every other page. Trained as one classifier, with the synthetic parked
    pages as soft-404 pages or as a third class, boosting lost recall on held-out real sources (0.997 fell to
    between 0.90 and 0.99 as the parked pages' design changed): the first splits moved to what parked and
    not-found pages share, being short. Apart, the not-found detector is the model trained on real pages
    alone, and the parked detector adds only the pages it flags (no real page of the corpus, held out by
    source, in docs/soft404-classifier.md).
    """

    def __init__(self, estimator: object = None, parked_columns: tuple[int, ...] = ()):
        self.estimator = estimator
        self.parked_columns = parked_columns  # columns only the parked detector sees

    def fit(self, X: np.ndarray, y: np.ndarray) -> PerKindClassifier:
        """Fit both detectors on training classes NORMAL, NOT_FOUND and PARKED (no parked page: no detector)."""
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
        known = y != PARKED
        columns = [c for c in range(X.shape[1]) if c not in self.parked_columns]
        self.not_found_ = clone(self.estimator).fit(X[known][:, columns], (y[known] == NOT_FOUND).astype(int))
        parked = (y == PARKED).astype(int)
        self.parked_ = clone(self.estimator).fit(X, parked) if parked.any() else None
        self.detectors_ = [d for d in (self.not_found_, self.parked_) if d is not None]
        # The feature columns each detector reads, for fastpredict.compile_model.
        self.detector_columns_ = [columns, list(range(X.shape[1]))][: len(self.detectors_)]
        self.classes_ = np.array([NORMAL, 1])  # normal, soft-404 of either kind
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Return [P(normal), P(soft-404)] per row, as Soft404Model.probability computes them."""
        compiled = compile_model(self)
        positive = np.array([compiled.probability(row) for row in np.asarray(X)])
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return (self.predict_proba(X)[:, 1] >= THRESHOLD).astype(int)


def _major(version: str) -> str:
    return version.split(".", 1)[0]


@dataclass(frozen=True)
class Soft404Model:
    estimator: object
    metadata: dict[str, object]
    compiled: CompiledModel

    def probability(self, features: np.ndarray) -> float:
        """Return the probability that a page with these features (FEATURE_NAMES order) is a soft-404."""
        return self.compiled.probability(features)

    def page_probability(self, html: bytes | str, url: str = "", *, encoding: str | None = None) -> float:
        """Parse a page, extract its features and classify it."""
        return self.compiled.probability(extract(html, url, encoding=encoding).vector())

    def probability_of_tree(self, root: etree._Element, *, page_bytes: int, url: str = "") -> float:
        """Classify a page the caller has parsed (features.extract_from_tree), reading `root` without change.

        `page_bytes` is the size of the raw body and `url` the page's final URL, as page_probability takes them.
        """
        return self.compiled.probability(extract_from_tree(root, page_bytes=page_bytes, url=url).vector())


def load_model(path: Path = MODEL_FILE) -> Soft404Model:
    """Load a saved model after checking, before unpickling anything, that this process can trust it."""
    meta_file = metadata_path(path)
    if not meta_file.exists():
        raise ModelVersionError(f"{meta_file} is missing; a model is only loaded together with its metadata")
    metadata = json.loads(meta_file.read_text(encoding="utf-8"))
    trained_with = str(metadata.get("sklearn_version", "unknown"))
    if _major(trained_with) != _major(sklearn.__version__):
        raise ModelVersionError(
            f"{path} was trained with scikit-learn {trained_with}, but this process runs scikit-learn "
            f"{sklearn.__version__}; a model from another major version is refused. Retrain it: "
            "python manage.py train_soft404"
        )
    if metadata.get("feature_names") != list(FEATURE_NAMES):
        raise ModelVersionError(
            f"{path} was trained on other features than sites.crawler.soft404.features computes"
        )
    if metadata.get("model_sha256") != sha256_of(path):
        raise ModelVersionError(f"{path} does not match the checksum in {meta_file}")
    estimator = joblib.load(path)
    return Soft404Model(estimator, metadata, compile_model(estimator))


@lru_cache(maxsize=1)
def default_model() -> Soft404Model:
    """The model shipped in sites/crawler/soft404/data, loaded once per process."""
    return load_model(MODEL_FILE)
