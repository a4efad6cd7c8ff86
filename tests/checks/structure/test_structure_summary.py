"""The filter's summary: which threshold it takes, and what it says about the group it passed over."""

from __future__ import annotations

import numpy as np

from checks.structure import similarity as S
from checks.structure.services import filter_summary


def _nested_scores() -> dict[int, float]:
    """A type (180 pages near 0.88) above a wider group of the same layout (120 near 0.48), above the rest."""
    rng = np.random.default_rng(11)
    groups = [rng.normal(0.08, 0.04, 700), rng.normal(0.48, 0.04, 120), rng.normal(0.88, 0.05, 180)]
    values = np.clip(np.concatenate(groups), 0, 1)
    return {page: float(value) for page, value in enumerate(values, start=1)}


def _pages(scores: dict[int, float], type_and_wider_alike: float) -> tuple[dict, object]:
    """Each page as its group (by its score, as _nested_scores made them) and how alike two pages are: 0.9
    within the type, 0.7 within the wider group, `type_and_wider_alike` between the two, 0.1 otherwise."""
    group = {
        page: ("type" if v > 0.7 else "wider" if v > 0.3 else "rest", page) for page, v in scores.items()
    }

    def alike(a, b):
        if a[0] == b[0]:
            return {"type": 0.9, "wider": 0.7, "rest": 0.1}[a[0]]
        return type_and_wider_alike if {a[0], b[0]} == {"type", "wider"} else 0.1

    return group, alike


def _summary(scores: dict[int, float], type_and_wider_alike: float = 0.3, **parameters) -> dict:
    pages, alike = _pages(scores, type_and_wider_alike)
    return filter_summary(
        parameters={"relation": "default", "template_ids": [0], **parameters},
        scores=scores,
        chance=0.1,
        targets=set(),
        non_targets=set(),
        other_scores={},
        pages=pages,
        pair_similarity=alike,
    )


def test_the_default_takes_the_closest_clear_group_and_names_the_wider_one_with_its_threshold():
    scores = _nested_scores()
    summary = _summary(scores)  # the wider group's pages are 0.3 like the type's: another kind
    assert summary["threshold"] == S.calibrated_threshold(list(scores.values()), 0.1, "valley")
    assert 170 <= summary["matches"] <= 185
    wider = summary["wider_group"]
    assert wider["threshold"] == S.calibrated_threshold(list(scores.values()), 0.1, "otsu")
    assert 290 <= wider["matches"] <= 305


def test_the_default_takes_the_wider_group_too_when_its_pages_are_of_the_types_kind():
    # 0.8 alike across the valley, against 0.9 within the type and ~0.1 between random pages: one type of two
    # variants (Doxygen's member lists), where the valley rule, the default before, took the closer one alone.
    scores = _nested_scores()
    summary = _summary(scores, type_and_wider_alike=0.8)
    assert 290 <= summary["matches"] <= 305
    assert summary["threshold"] == S.calibrated_threshold(list(scores.values()), 0.1, "otsu")
    assert "wider_group" not in summary
    assert (
        sum(v >= S.calibrated_threshold(list(scores.values()), 0.1, "valley") for v in scores.values()) < 190
    )


def test_no_wider_group_is_named_when_the_threshold_is_given_or_there_is_none():
    scores = _nested_scores()
    assert "wider_group" not in _summary(scores, threshold=0.3)
    rng = np.random.default_rng(2)
    two_groups = np.clip(np.concatenate([rng.normal(0.08, 0.04, 700), rng.normal(0.88, 0.05, 180)]), 0, 1)
    assert "wider_group" not in _summary({page: float(v) for page, v in enumerate(two_groups, start=1)})


def _shoulder() -> tuple[dict[int, float], dict, object]:
    """Ten pages of a type (0.34-0.5) on the shoulder of sixteen of another kind (0.2-0.3), the rest below 0.15;
    each kind's pages 0.8 alike, the two kinds 0.3, any other pair 0.2."""
    rng = np.random.default_rng(31)
    groups = [("rest", np.clip(rng.normal(0.06, 0.03, 320), 0, 0.15)), ("below", rng.uniform(0.2, 0.3, 16))]
    groups.append(("type", np.linspace(0.34, 0.5, 10)))
    scores, pages = {}, {}
    for name, values in groups:
        for value in values:
            page = len(scores) + 1
            scores[page], pages[page] = float(value), (name, page)

    def alike(a, b):
        if a[0] == b[0]:
            return 0.2 if a[0] == "rest" else 0.8
        return 0.3 if {a[0], b[0]} == {"type", "below"} else 0.2

    return scores, pages, alike


def test_fed_back_scores_are_cut_at_the_dip_above_a_kind_of_its_own_and_plain_ones_by_the_linkage_rule():
    scores, pages, alike = _shoulder()

    def matched(fed_back: bool) -> set:
        summary = filter_summary(
            parameters={"relation": "default", "template_ids": [0]},
            scores=scores,
            chance=0.05,
            targets=set(),
            non_targets=set(),
            other_scores={},
            pages=pages,
            pair_similarity=alike,
            fed_back=fed_back,
        )
        return {pages[page][0] for page, value in scores.items() if value >= summary["threshold"]}

    assert matched(fed_back=True) == {"type"}
    # Scores the feedback phase did not recompute (templates combined by max) keep the linkage rule's cut.
    assert matched(fed_back=False) == {"type", "below"}
