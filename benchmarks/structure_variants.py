"""The default's threshold rules as benchmarks/structure_matrix.py scores them: the shipped feedback rule, the
linkage rule, and the variants measured in issue 23's eleventh session (docs/benchmarks.md), none shipped.

A rule takes a `Run` (one template of one site, over the site's similarity matrix) and returns the scores of the
other pages (in `run.pages` order) and the threshold that cuts them. Every similarity a rule reads is a matrix
entry: `run.pair(a, b)` for two pages' positions, `run.mean_of(templates)` for the scores against several
templates (the mean of their rows, as Keyer.scorer combines them).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import contextmanager

import numpy as np

from checks.structure import similarity as S
from checks.structure.lcs import WeightedLCS


class Run:
    """One template of one site: the other pages (their positions in the matrix), their scores against the
    template, its chance level and the site's background similarity."""

    def __init__(self, data: dict, template: int) -> None:
        self.data, self.template, self.matrix = data, template, data["matrix"]
        self.pages = [i for i in range(len(data["urls"])) if i != template]
        self.scores = self.matrix[template, self.pages]
        weights = data["weights"]
        self.chance = S.chance_level(
            [data["sequences"][template]],
            data["sequences"],
            pair_similarity=lambda a, b: WeightedLCS(a, weights).similarity(b),
        )
        self.background = data["background"]

    def pair(self, a: int, b: int) -> float:
        return float(self.matrix[a, b])

    def mean_of(self, templates: Sequence[int]) -> np.ndarray:
        return self.matrix[np.asarray(templates)][:, self.pages].mean(axis=0)


Rule = Callable[[Run], tuple[np.ndarray, float]]


def _nearest(run: Run, scores: np.ndarray, count: int = S.FEEDBACK_PAGES) -> list[int]:
    """S.feedback_pages on these scores: matrix positions of the best pages the linkage cut selects."""
    positions = S.feedback_pages(
        scores, run.chance, run.pages, run.pair, nearest=count, background=run.background
    )
    return [run.pages[i] for i in positions]


def _split(run: Run, scores: np.ndarray) -> float:
    return S.linkage_split_threshold(scores, run.chance, run.pages, run.pair, background=run.background)


def _linkage(run: Run, scores: np.ndarray) -> float:
    return S.linkage_threshold(scores, run.chance, run.pages, run.pair, background=run.background)


def feedback(run: Run) -> tuple[np.ndarray, float]:
    """The shipped default (docs/structure.md item 9)."""
    scores = run.mean_of([run.template, *_nearest(run, run.scores)])
    return scores, _split(run, scores)


def linkage(run: Run) -> tuple[np.ndarray, float]:
    """Item 8, the default before the seventh round."""
    return run.scores, _linkage(run, run.scores)


def nearest_count(count: int) -> Rule:
    def rule(run: Run) -> tuple[np.ndarray, float]:
        scores = run.mean_of([run.template, *_nearest(run, run.scores, count)])
        return scores, _split(run, scores)

    return rule


def template_not_of_its_nearest(fallback: str) -> Rule:
    """(a) A template whose nearest pages are of another kind: item 8's test asked of the template itself, C_t <
    (W + B) / 2 with C_t its mean similarity to its nearest pages and W theirs to each other; then no feedback,
    the template's own scores cut by the linkage rule (`linkage`) or linkage-split (`split`)."""

    def rule(run: Run) -> tuple[np.ndarray, float]:
        nearest = _nearest(run, run.scores)
        if len(nearest) >= 2:
            within = S._mean_within(nearest, run.pair)
            if S._mean_across([run.template], nearest, run.pair) < (within + run.background) / 2:
                cut = _linkage if fallback == "linkage" else _split
                return run.scores, cut(run, run.scores)
        return feedback(run)

    return rule


def feedback_rounds(rounds: int) -> Rule:
    """The nearest pages chosen again on the fed-back scores, `rounds` times."""

    def rule(run: Run) -> tuple[np.ndarray, float]:
        scores = run.scores
        for _ in range(rounds):
            scores = run.mean_of([run.template, *_nearest(run, scores)])
        return scores, _split(run, scores)

    return rule


def feedback_spread(run: Run) -> tuple[np.ndarray, float]:
    """Ten pages spread over the ranks of the linkage rule's selection instead of the ten best: the whole group
    rather than the template's closest copies."""
    cut = _linkage(run, run.scores)
    ranked = [int(i) for i in np.argsort(-run.scores, kind="stable") if run.scores[i] >= cut]
    chosen = [run.pages[i] for i in S.spread_over_ranks(ranked, S.FEEDBACK_PAGES)]
    scores = run.mean_of([run.template, *chosen])
    return scores, _split(run, scores)


def template_weight(weight: float) -> Rule:
    """Rocchio's α: the template weighs `weight` against each nearest page's 1."""

    def rule(run: Run) -> tuple[np.ndarray, float]:
        nearest = _nearest(run, run.scores)
        rows = run.matrix[np.asarray([run.template, *nearest])][:, run.pages]
        weights = np.array([weight] + [1.0] * len(nearest))
        scores = (rows * weights[:, None]).sum(axis=0) / weights.sum()
        return scores, _split(run, scores)

    return rule


def background_lift(share: float) -> Rule:
    """A page's likeness to the group above its likeness to the site: (s − λ g) / (1 − λ g), g its mean
    similarity to 30 random pages of the crawl, clipped to [0, 1]."""

    def rule(run: Run) -> tuple[np.ndarray, float]:
        drawn = random.Random(1).sample(range(len(run.data["urls"])), min(30, len(run.data["urls"])))
        generic = run.matrix[:, drawn].mean(axis=1)[run.pages]
        fed = run.mean_of([run.template, *_nearest(run, run.scores)])
        scores = np.clip((fed - share * generic) / (1 - share * generic), 0.0, 1.0)
        return scores, S.linkage_split_threshold(scores, 0.0, run.pages, run.pair, background=run.background)

    return rule


# ---- variants of the cut, by swapping the valley rule's candidate cuts (S.valley_cuts) for one run ----------


@contextmanager
def _valley_cuts(replacement):
    original = S.valley_cuts
    S.valley_cuts = replacement
    try:
        yield
    finally:
        S.valley_cuts = original


def _density_minima(values: np.ndarray, low: float, high: float, depth: float, count_of=None) -> list[float]:
    """S.valley_cuts' loop over the smoothed density from `low` up, keeping its cuts below `high`; a group
    above is counted by `count_of(histogram bins)` (pages by default)."""
    bins = 100
    histogram, edges = np.histogram(values, bins=bins, range=(0.0, 1.0))
    sigma = S.VALLEY_SMOOTHING * bins
    reach = np.arange(-math.ceil(4 * sigma), math.ceil(4 * sigma) + 1)
    kernel = np.exp(-0.5 * (reach / sigma) ** 2)
    density = np.convolve(histogram.astype(float), kernel / kernel.sum(), mode="same")
    middles = (edges[:-1] + edges[1:]) / 2
    counted = count_of if count_of is not None else histogram
    above_from = np.cumsum(counted[::-1])[::-1]
    highest_above = np.maximum.accumulate(density[::-1])[::-1]
    lowest = int(np.searchsorted(middles, low, side="right"))
    highest_below, cuts = 0.0, {}
    for i in range(lowest, bins - 1):
        if i > lowest and density[i] <= density[i - 1] and density[i] <= density[i + 1]:
            sides = min(highest_below, highest_above[i + 1])
            if sides > 0 and density[i] <= depth * sides and above_from[i] >= S.VALLEY_MIN_GROUP:
                start = i
                while start > lowest and density[start - 1] <= density[i] + 1e-12:
                    start -= 1
                cut = round(float(edges[(start + i + 1) // 2]), 4)
                if cut < high:
                    cuts[int((values >= cut).sum())] = cut
        highest_below = max(highest_below, density[i])
    return sorted(cuts.values())


def distinct_scores(otsu_too: bool) -> Rule:
    """(b) Near-copies: pages of one structure score alike, and a group of 70 identical class-use pages above a
    valley is one structure, not a type (VALLEY_MIN_GROUP's reason): the group above a valley counted in distinct
    scores; with `otsu_too`, Otsu's cut over the distinct scores as well."""

    def cuts(scores, chance, depth=S.VALLEY_DEPTH, **_):
        values = np.asarray(scores, dtype=float)
        distinct = np.unique(np.round(values, 6))
        base = round(max(S.otsu_threshold(distinct if otsu_too else values), chance), 4)
        counted, _ = np.histogram(distinct, bins=100, range=(0.0, 1.0))
        return base, _density_minima(values, base, 1.0, depth, counted)

    def rule(run: Run) -> tuple[np.ndarray, float]:
        with _valley_cuts(cuts):
            return feedback(run)

    return rule


def below_otsu(depth: float) -> Rule:
    """(c) Cuts too high: the descent goes on below Otsu's cut, over the density's valleys of `depth` (0.1 the
    clear ones, 1.0 every local minimum) down to the chance level."""
    original = S.valley_cuts

    def cuts(scores, chance, **kwargs):
        base, above = original(scores, chance, **kwargs)
        if kwargs.get("depth", S.VALLEY_DEPTH) != S.VALLEY_DEPTH:
            return base, above
        below = _density_minima(np.asarray(scores, dtype=float), chance, base, depth)
        return (below[0] if below else base), [*below[1:], *([base] if below else []), *above]

    def rule(run: Run) -> tuple[np.ndarray, float]:
        with _valley_cuts(cuts):
            return feedback(run)

    return rule


def every_minimum(depth: float) -> Rule:
    """The linkage descent over every density minimum of `depth` above Otsu's cut, not only the clear valleys."""
    original = S.valley_cuts

    def cuts(scores, chance, **kwargs):
        base, above = original(scores, chance, **kwargs)
        if kwargs.get("depth", S.VALLEY_DEPTH) != S.VALLEY_DEPTH:
            return base, above
        return base, _density_minima(np.asarray(scores, dtype=float), base, 1.0, depth)

    def rule(run: Run) -> tuple[np.ndarray, float]:
        with _valley_cuts(cuts):
            return feedback(run)

    return rule


CANDIDATES: dict[str, Rule] = {
    "feedback": feedback,
    "linkage": linkage,
    "nearest 5": nearest_count(5),
    "nearest 7": nearest_count(7),
    "nearest 15": nearest_count(15),
    "(a) template not of its nearest: linkage": template_not_of_its_nearest("linkage"),
    "(a) template not of its nearest: split": template_not_of_its_nearest("split"),
    "(a) feedback twice": feedback_rounds(2),
    "(a) feedback spread over the group": feedback_spread,
    "(a) template weighs 3": template_weight(3.0),
    "(a) template weighs 0.5": template_weight(0.5),
    "(b) valley groups in distinct scores": distinct_scores(otsu_too=False),
    "(b) and Otsu over distinct scores": distinct_scores(otsu_too=True),
    "(c) below Otsu: clear valleys": below_otsu(S.VALLEY_DEPTH),
    "(c) below Otsu: every minimum": below_otsu(1.0),
    "(c) every minimum a rung": every_minimum(1.0),
    "(c) minima of depth 0.3 as rungs": every_minimum(0.3),
    "(c) lift over the site, 0.25": background_lift(0.25),
    "(c) lift over the site, 0.5": background_lift(0.5),
}


def split_above_families(run: Run) -> tuple[np.ndarray, float]:
    """(c) A family of identical pages (VALLEY_MIN_GROUP or more with one score: one structure, a kind of its own
    whatever the density's smoothing) just below the type: the split also tries the cut just above each such
    family, with linkage-split's test."""
    scores = run.mean_of([run.template, *_nearest(run, run.scores)])
    cut = _linkage(run, scores)
    values = np.round(np.asarray(scores, dtype=float), 6)
    distinct, counts = np.unique(values[values >= cut], return_counts=True)
    above = [
        float((distinct[k] + distinct[k + 1]) / 2)
        for k in range(len(distinct) - 1)
        if counts[k] >= S.VALLEY_MIN_GROUP
    ]
    _, minima = S.valley_cuts(scores, run.chance, depth=1.0)
    ranked = [int(i) for i in np.argsort(-values, kind="stable")]
    for upper in sorted({*(c for c in minima if c > cut), *above}):
        band_all = [i for i in ranked if cut <= values[i] < upper]
        if len(band_all) < S.VALLEY_MIN_GROUP:
            continue
        group = [run.pages[i] for i in S.spread_over_ranks([i for i in ranked if values[i] >= upper], 20)]
        band = [run.pages[i] for i in S.spread_over_ranks(band_all, 20)]
        within, within_band = S._mean_within(group, run.pair), S._mean_within(band, run.pair)
        across = S._mean_across(band, group, run.pair)
        if across < (within + run.background) / 2 and across < (within_band + run.background) / 2:
            return scores, upper
    return scores, cut


CANDIDATES["(c) split also above a family of identical pages"] = split_above_families


def consensus_blocks(share: float, power: float) -> Rule:
    """(c) Sibling kinds (Javadoc's package-use pages beside its package summaries, Doxygen's namespace pages
    beside its class pages, the other reference pages beside postgres's SQL commands) share the type's layout but
    lack a block every member of the type has. The keys held by `share` of the template's group (the template and
    its nearest pages) are its consensus; a page's fed-back score is multiplied by the share of the consensus's
    weight it holds, to the `power`."""

    def rule(run: Run) -> tuple[np.ndarray, float]:
        group = [run.template, *_nearest(run, run.scores)]
        sequences, weights = run.data["sequences"], run.data["weights"]
        held = Counter(key for page in group for key in set(sequences[page]))
        keys = {key for key, pages in held.items() if pages >= share * len(group) and weights[key] > 0}
        scores = run.mean_of(group)
        total = sum(weights[key] for key in keys)
        if total:
            coverage = [
                sum(weights[key] for key in keys.intersection(sequences[page])) / total for page in run.pages
            ]
            scores = scores * np.asarray(coverage) ** power
        return scores, _split(run, scores)

    return rule


CANDIDATES["(c) consensus blocks of the group, held by all"] = consensus_blocks(1.0, 1.0)
CANDIDATES["(c) consensus blocks of the group, held by all, squared"] = consensus_blocks(1.0, 2.0)
CANDIDATES["(c) consensus blocks of the group, held by half"] = consensus_blocks(0.5, 1.0)
