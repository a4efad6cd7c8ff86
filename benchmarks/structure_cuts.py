"""Label-free cuts that read the pages as well as their scores (issue 23, sixth and seventh rounds), measured in
`benchmarks/structure.py --parts types` beside the shipped rule (checks.structure.similarity: the feedback rule).

Pure: scores, the scored pages' key sequences and a pair similarity in, a threshold out.

- `linkage_split`: the linkage rule, then up to the lowest shallow dip whose lower side is a kind of its own;
  since the seventh round the shipped default's cut, on the fed-back scores (S.linkage_split_threshold).
- `core_cut`, `cohesion_drop_cut`, `dip_cohesion_cut`: three readings of "the template's own group" as a cut
  that rises above the linkage cut (seventh round; behind it on the sites cuts are chosen on).
- `template_feedback`: the template's nearest pages as further templates, then a cut; its variants (how many
  pages, only those the linkage cut selects, which cut) are the benchmark's `feedback ...` candidates, and one of
  them is the shipped default (docs/benchmarks.md, "Seventh round").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from checks.structure import similarity as S

# Shipped as part of the default's feedback rule since the seventh round (checks.structure.similarity).
linkage_split = S.linkage_split_threshold


def _within(group: list, pair_similarity) -> float:
    pairs = [pair_similarity(a, b) for n, a in enumerate(group) for b in group[n + 1 :]]
    return float(np.mean(pairs)) if pairs else 1.0


# Issue 23, seventh round: cutting higher where the pages just above the cut are another kind than the template's
# own group. Three readings of "the template's own group" as cuts (`core_cut`, `cohesion_drop_cut`,
# `dip_cohesion_cut`), and the template's nearest pages as further templates (`template_feedback`), each measured
# in `benchmarks/structure.py --parts types` and not shipped (docs/benchmarks.md, "Seventh round").
CORE_PAGES = S.VALLEY_MIN_GROUP  # the smallest group the valley rule counts as a type


def _shallow_bands(scores, chance, pages, pair_similarity, background, sample):
    """The linkage cut, then each shallow minimum of the density above it (lowest first) with the pages between
    the linkage cut and it (the band, `sample` of them spread over their ranks) and those above it (the group)."""
    cut = S.linkage_threshold(scores, chance, pages, pair_similarity, background=background)
    values = np.asarray(scores, dtype=float)
    ranked = [int(i) for i in np.argsort(-values, kind="stable")]
    _, minima = S.valley_cuts(scores, chance, depth=1.0)
    bands = []
    for upper in [c for c in minima if c > cut]:
        band_all = [i for i in ranked if cut <= values[i] < upper]
        group_all = [i for i in ranked if values[i] >= upper]
        if len(band_all) < S.VALLEY_MIN_GROUP or len(group_all) < S.VALLEY_MIN_GROUP:
            continue
        band = [pages[i] for i in S.spread_over_ranks(band_all, sample)]
        group = [pages[i] for i in S.spread_over_ranks(group_all, sample)]
        bands.append((upper, band, group, values[band_all]))
    return cut, ranked, bands


def _between(a: list, b: list, pair_similarity) -> float:
    return float(np.mean([pair_similarity(x, y) for x in a for y in b]))


def core_cut(
    scores, chance, pages, pair_similarity, *, background: float, sample: int = S.LINKAGE_SAMPLE
) -> float:
    """A page belongs when it is as like the template's nearest pages as they are to each other: the core is
    the template and its CORE_PAGES nearest pages, W_core their mean over pairs; the cut rises to the first
    shallow minimum above the linkage cut whose band is nearer the site's background than the core's own
    likeness, A < (W_core + B) / 2, A the band's mean similarity to the core."""
    cut, ranked, bands = _shallow_bands(scores, chance, pages, pair_similarity, background, sample)
    core = [pages[i] for i in ranked[:CORE_PAGES]]
    w_core = _within(core, pair_similarity)
    for upper, band, _, _ in bands:
        if _between(band, core, pair_similarity) < (w_core + background) / 2:
            return upper
    return cut


def cohesion_drop_cut(
    scores, chance, pages, pair_similarity, *, background: float, sample: int = S.LINKAGE_SAMPLE
) -> float:
    """The template's own group is the largest top-k (k >= VALLEY_MIN_GROUP, within the linkage cut) whose
    pages are as alike to each other as to the template: mean similarity over the group's pairs at least the
    group's mean score. The cut falls just below its last page."""
    cut = S.linkage_threshold(scores, chance, pages, pair_similarity, background=background)
    values = np.asarray(scores, dtype=float)
    chosen = [int(i) for i in np.argsort(-values, kind="stable") if values[i] >= cut]
    largest = None
    for k in range(S.VALLEY_MIN_GROUP, len(chosen) + 1):
        top = [pages[i] for i in S.spread_over_ranks(chosen[:k], sample)]
        if _within(top, pair_similarity) >= float(np.mean(values[chosen[:k]])):
            largest = k
    if largest is None or largest == len(chosen):
        return cut
    last, next_ = values[chosen[largest - 1]], values[chosen[largest]]
    return float((last + next_) / 2) if last > next_ else cut


def dip_cohesion_cut(
    scores, chance, pages, pair_similarity, *, background: float, sample: int = S.LINKAGE_SAMPLE
) -> float:
    """A shallow dip whose lower side's pages are nearer each other than to the group above (W_band > C) and
    not of that group (C < (W + B) / 2, the linkage rule's test) becomes the cut, the lowest such dip first."""
    cut, _, bands = _shallow_bands(scores, chance, pages, pair_similarity, background, sample)
    for upper, band, group, _ in bands:
        c = _between(band, group, pair_similarity)
        if _within(band, pair_similarity) > c and c < (_within(group, pair_similarity) + background) / 2:
            return upper
    return cut


def template_feedback(
    template: Sequence[int],
    pages: Sequence[Sequence[int]],
    scores: Sequence[float],
    chance: float,
    scorer: Callable[[list], Callable[[Sequence[int]], float]],
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float],
    *,
    background: float,
    nearest: int,
    within_cut: bool,
    split: bool = False,
) -> tuple[list[float], float]:
    """Pseudo-relevance feedback (Rocchio 1971): the template's `nearest` pages join it as templates (their
    mean, as a filter of several templates scores, docs/structure.md), so a page scores by its likeness to the
    template's group rather than to the one page; then the linkage rule on those scores. With `within_cut` only
    nearest pages the linkage cut selects join (a type smaller than `nearest` is not diluted by other pages);
    with `split` the new scores are cut by `linkage_split` instead. `scorer(templates)` is Keyer.scorer. Returns
    the new scores (in the order of `pages`) and their cut."""
    if within_cut:
        ranked = S.feedback_pages(
            scores, chance, pages, pair_similarity, nearest=nearest, background=background
        )
    else:
        ranked = [int(i) for i in np.argsort(-np.asarray(scores, dtype=float), kind="stable")][:nearest]
    score = scorer([template, *(pages[i] for i in ranked)])
    mixed = [score(page) for page in pages]
    cut = linkage_split if split else S.linkage_threshold
    return mixed, cut(mixed, chance, pages, pair_similarity, background=background)
