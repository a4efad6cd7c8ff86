"""Label-free cuts that read the pages as well as their scores (issue 23, sixth round), measured in
`benchmarks/structure.py --parts types` beside the shipped linkage rule (checks.structure.similarity.linkage_threshold).

Pure: scores, the scored pages' key sequences and a pair similarity in, a threshold out.

- `linkage_split`: the shipped linkage rule, then the other way: the shallow minima of the score density above
  its cut (every local minimum, not only the clear valleys), lowest first; the first whose lower side is not of
  the group above (C < (W + B) / 2, as the linkage rule asks) and is its own kind (C < (W_band + B) / 2: its
  pages are more like each other than like the group above) becomes the cut. A small type on a shoulder of a
  wider group (celery's ten what's new pages above its changelogs) has no clear valley for the valley rule, but
  the pages below it are another kind. Not shipped: chosen on the sites it was tuned on (python, postgres,
  log4cplus), the descent alone is ahead (docs/benchmarks.md, "Sixth round").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from checks.structure import similarity as S


def linkage_split(
    scores: Sequence[float],
    chance: float,
    pages: Sequence[Sequence[int]],
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float],
    *,
    background: float,
    sample: int = S.LINKAGE_SAMPLE,
) -> float:
    cut = S.linkage_threshold(scores, chance, pages, pair_similarity, background=background)
    values = np.asarray(scores, dtype=float)
    ranked = [int(i) for i in np.argsort(-values, kind="stable")]
    _, minima = S.valley_cuts(scores, chance, depth=1.0)
    for upper in [c for c in minima if c > cut]:
        band_all = [i for i in ranked if cut <= values[i] < upper]
        if len(band_all) < S.VALLEY_MIN_GROUP:
            continue
        group = [pages[i] for i in S.spread_over_ranks([i for i in ranked if values[i] >= upper], sample)]
        band = [pages[i] for i in S.spread_over_ranks(band_all, sample)]
        w = _within(group, pair_similarity)
        w_band = _within(band, pair_similarity)
        c = float(np.mean([pair_similarity(a, b) for a in band for b in group]))
        if c < (w + background) / 2 and c < (w_band + background) / 2:
            return upper
    return cut


def _within(group: list, pair_similarity) -> float:
    pairs = [pair_similarity(a, b) for n, a in enumerate(group) for b in group[n + 1 :]]
    return float(np.mean(pairs)) if pairs else 1.0
