"""The measured cuts that read the pages and are not shipped (benchmarks/structure_cuts.py, issue 23's sixth and
seventh rounds)."""

import numpy as np

from benchmarks.structure_cuts import dip_cohesion_cut, linkage_split, template_feedback
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


def test_a_shoulder_whose_pages_are_a_kind_of_their_own_is_cut_away_by_the_dip_cohesion_cut():
    scores, pages = _shoulder()
    alike = _alike({"type": 0.8, "below": 0.8, "rest": 0.2}, across=0.3, background=0.2)
    cut = dip_cohesion_cut(scores, 0.05, pages, alike, background=0.2)
    assert {page[0] for page, value in zip(pages, scores, strict=True) if value >= cut} == {"type"}


def test_a_shoulder_of_loose_pages_stays_with_the_dip_cohesion_cut():
    # The pages below are no nearer each other (0.25) than to the type (0.3): not a kind of their own.
    scores, pages = _shoulder()
    alike = _alike({"type": 0.8, "below": 0.25, "rest": 0.2}, across=0.3, background=0.2)
    cut = dip_cohesion_cut(scores, 0.05, pages, alike, background=0.2)
    assert {page[0] for page, value in zip(pages, scores, strict=True) if value >= cut} == {"type", "below"}


TEMPLATE = ("template", 0, 1.0)


def _feedback_site():
    """A template as like sixteen pages of another kind (0.40-0.47) as its own type's twelve (0.48-0.52), the rest
    of the site far below; the type's pages are alike (0.8), the two kinds are not (0.2). A page is (group, n,
    its similarity to the template)."""
    rng = np.random.default_rng(7)
    groups = [
        ("rest", np.clip(rng.normal(0.06, 0.03, 300), 0, 0.15)),
        ("below", np.linspace(0.40, 0.47, 16)),
        ("type", np.linspace(0.48, 0.52, 12)),
    ]
    pages = [(name, n, float(v)) for name, values in groups for n, v in enumerate(values)]
    within = {"type": 0.8, "below": 0.8, "rest": 0.2}

    def pair_similarity(a, b):
        if a[0] == "template" or b[0] == "template":
            return b[2] if a[0] == "template" else a[2]
        if a[0] == b[0]:
            return within[a[0]]
        return 0.2

    def scorer(templates):
        return lambda page: float(np.mean([pair_similarity(t, page) for t in templates]))

    return [page[2] for page in pages], pages, pair_similarity, scorer


def test_the_templates_nearest_pages_as_templates_part_its_type_from_a_kind_it_also_resembles():
    scores, pages, pair_similarity, scorer = _feedback_site()
    mixed, cut = template_feedback(
        TEMPLATE, pages, scores, 0.05, scorer, pair_similarity, background=0.2, nearest=10, within_cut=True
    )
    assert {page[0] for page, value in zip(pages, mixed, strict=True) if value >= cut} == {"type"}
    # On the template's own scores the shipped rule keeps both kinds: no valley parts them.
    shipped = calibrated_threshold(
        scores, 0.05, "linkage", pages=pages, pair_similarity=pair_similarity, background=0.2
    )
    assert {page[0] for page, value in zip(pages, scores, strict=True) if value >= shipped} == {
        "type",
        "below",
    }
