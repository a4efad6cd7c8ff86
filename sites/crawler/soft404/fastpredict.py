"""Evaluate a fitted tree, bagging or AdaBoost model on one page in microseconds, without sklearn's overhead.

scikit-learn validates input and dispatches per call: predict_proba on one row costs 0.11 ms for a tree,
1.5 ms for 10-tree bagging and 1.1 ms for 10-tree AdaBoost, more than the whole feature extraction of a
small page. The fitted trees are copied into plain lists once and walked in Python: 2 to 8 microseconds.

The model may have more than two classes (normal, not-found, parked): the probability of a soft-404 is that of
every class but the normal one. Tests check it equals 1 - predict_proba(...)[:, normal] for a tree and bagging,
and WEKA's AdaBoostM1 probability for boosting (see CompiledModel.probability).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # compiling needs scikit-learn; evaluating a compiled model does not (compiled.py)
    from sklearn.tree import DecisionTreeClassifier


@dataclass(frozen=True)
class CompiledTree:
    feature: list[int]
    threshold: list[float]
    left: list[int]
    right: list[int]
    positive: list[float]  # probability of any class but the negative one at each node
    label: list[int]  # index, in the model's classes, of the class a leaf predicts (its largest share)
    columns: list[int]  # the model's feature index for each column this tree was fitted on

    def leaf(self, row: Sequence[float]) -> int:
        node = 0
        left, right, feature, threshold, columns = (
            self.left,
            self.right,
            self.feature,
            self.threshold,
            self.columns,
        )
        while left[node] != -1:
            node = left[node] if row[columns[feature[node]]] <= threshold[node] else right[node]
        return node

    def probability(self, row: Sequence[float]) -> float:
        return self.positive[self.leaf(row)]


def compile_tree(
    tree: DecisionTreeClassifier, classes: Sequence[object], negative: object, columns: Sequence[int]
) -> CompiledTree:
    """Copy a fitted tree; `classes` are the model's classes as the tree saw them (labels, or their indices)."""
    structure = tree.tree_
    values = structure.value[:, 0, :]
    totals = np.where(values.sum(axis=1) > 0, values.sum(axis=1), 1)
    seen = list(tree.classes_)  # a bootstrap sample may lack a class
    if negative in seen:
        positive = 1.0 - values[:, seen.index(negative)] / totals
    else:
        positive = np.ones(structure.node_count)
    as_model_class = [list(classes).index(c) for c in seen]
    return CompiledTree(
        feature=structure.feature.tolist(),
        threshold=structure.threshold.tolist(),
        left=structure.children_left.tolist(),
        right=structure.children_right.tolist(),
        positive=positive.tolist(),
        # numpy's argmax, as predict uses it: a tie goes to the first class.
        label=[as_model_class[i] for i in values.argmax(axis=1)],
        columns=list(columns),
    )


@dataclass(frozen=True)
class CompiledModel:
    kind: str  # "tree", "bagging", "boosting", or "any" (the largest probability of its parts)
    trees: list[CompiledTree]
    weights: list[float]  # AdaBoost estimator weights; unused otherwise
    n_classes: int = 2
    negative: int = 0  # index of the normal class among the model's classes, -1 if it saw no normal page
    parts: tuple[CompiledModel, ...] = ()

    def probability(self, features: np.ndarray) -> float:
        """Return the probability of a soft-404: of any class but the normal one.

        A tree and bagging give 1 - predict_proba(...)[0, normal]. Boosting gives what WEKA's AdaBoostM1, the
        paper's classifier, does: each tree votes its weight for the class it predicts, and the class sums go
        through a softmax (Utils.logs2probs). scikit-learn's SAMME predict_proba divides the sums by the total
        weight first, which caps a unanimous vote of two classes at e^2 / (1 + e^2) = 0.881. Both rank the
        classes alike, so a two-class model falls on the same side of 0.5 either way.
        """
        # sklearn trees compare float32 inputs against their thresholds.
        row = np.asarray(features, dtype=np.float32).astype(np.float64).tolist()
        if self.kind == "any":
            return max(part.probability(row) for part in self.parts)
        if self.kind == "tree":
            return self.trees[0].probability(row)
        if self.kind == "bagging":
            return sum(t.probability(row) for t in self.trees) / len(self.trees)
        if self.negative < 0:
            return 1.0
        sums = [0.0] * self.n_classes
        for tree, weight in zip(self.trees, self.weights, strict=True):
            sums[tree.label[tree.leaf(row)]] += weight
        top = max(sums)
        exps = [math.exp(s - top) for s in sums]
        return 1.0 - exps[self.negative] / sum(exps)


def compile_model(
    model: object, negative_label: object = 0, columns: Sequence[int] | None = None
) -> CompiledModel:
    """Copy a fitted DecisionTreeClassifier, a bagging or AdaBoost ensemble of them, or a model holding such
    models in `detectors_` (model.PerKindClassifier), into a CompiledModel.

    `columns` are the indices, in the feature vectors the compiled model will be given, of the columns `model`
    was fitted on (all of them by default).
    """
    from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier
    from sklearn.tree import DecisionTreeClassifier

    detectors = getattr(model, "detectors_", None)
    if detectors is not None:
        parts = (
            compile_model(d, negative_label, cols)
            for d, cols in zip(detectors, model.detector_columns_, strict=True)
        )
        return CompiledModel("any", [], [], parts=tuple(parts))
    columns = list(range(model.n_features_in_)) if columns is None else list(columns)
    classes = list(model.classes_)
    negative = (
        classes.index(negative_label) if negative_label in classes else -1
    )  # -1: trained on no normal page
    if isinstance(model, DecisionTreeClassifier):
        tree = compile_tree(model, classes, negative_label, columns)
        return CompiledModel("tree", [tree], [], len(classes), negative)
    if isinstance(model, BaggingClassifier):
        # Bagging fits its trees on class indices, not labels, and each on a subset of the columns.
        indices = list(range(len(classes)))
        trees = [
            compile_tree(est, indices, negative, [columns[c] for c in cols])
            for est, cols in zip(model.estimators_, model.estimators_features_, strict=True)
        ]
        return CompiledModel("bagging", trees, [], len(classes), negative)
    if isinstance(model, AdaBoostClassifier):
        trees = [compile_tree(est, classes, negative_label, columns) for est in model.estimators_]
        if len(trees) == 1:
            # The first tree made no error and boosting stopped: WEKA then answers with that tree alone, where
            # scikit-learn gives it weight 1 and a probability of 0.73 at most.
            return CompiledModel("tree", trees, [], len(classes), negative)
        weights = [float(w) for w in model.estimator_weights_[: len(trees)]]
        return CompiledModel("boosting", trees, weights, len(classes), negative)
    raise TypeError(f"cannot compile {type(model).__name__}")
