"""The measured cut that reads the pages and is not shipped (benchmarks/structure_cuts.py, issue 23's sixth round)."""

import numpy as np

from benchmarks.structure_cuts import linkage_split
from checks.structure.similarity import calibrated_threshold


def _alike(within: dict[str, float], across: float, background: float):
    """Pages are (group, n); two pages of one group are `within[group]` alike, of the two groups `across`, any
    other pair `background`."""

    def pair_similarity(a, b):
        if a[0] == b[0]:
            return within[a[0]]
        return across if {a[0], b[0]} == {"type", "below"} else background

    return pair_similarity


def _shoulder():
    """Ten pages of a type at 0.34-0.5 on the shoulder of sixteen pages of another kind at 0.2-0.3 (celery's what's
    new pages above its changelogs), the rest of the site below 0.15: a shallow dip between the two, no clear valley."""
    rng = np.random.default_rng(31)
    groups = [("rest", np.clip(rng.normal(0.06, 0.03, 320), 0, 0.15)), ("below", rng.uniform(0.2, 0.3, 16))]
    groups.append(("type", np.linspace(0.34, 0.5, 10)))
    scores = [float(v) for _, values in groups for v in values]
    pages = [(name, n) for name, values in groups for n in range(len(values))]
    return scores, pages


def test_a_small_type_on_the_shoulder_of_another_kind_is_split_off():
    scores, pages = _shoulder()
    alike = _alike({"type": 0.8, "below": 0.8, "rest": 0.2}, across=0.3, background=0.2)
    cut = linkage_split(scores, 0.05, pages, alike, background=0.2)
    chosen = {page[0] for page, value in zip(pages, scores, strict=True) if value >= cut}
    assert chosen == {"type"}
    # The shipped rule has no clear valley there: it keeps the pages below.
    shipped = calibrated_threshold(
        scores, 0.05, "linkage", pages=pages, pair_similarity=alike, background=0.2
    )
    assert sum(value >= shipped for value in scores) > 20


def test_the_pages_below_stay_when_they_are_of_the_types_kind():
    scores, pages = _shoulder()
    alike = _alike({"type": 0.8, "below": 0.8, "rest": 0.2}, across=0.75, background=0.2)
    cut = linkage_split(scores, 0.05, pages, alike, background=0.2)
    assert {page[0] for page, value in zip(pages, scores, strict=True) if value >= cut} == {"type", "below"}
