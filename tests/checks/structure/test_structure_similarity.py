"""Same-relationships (Deng & He 2018, §3.1), Formula (1), templates combined, §3.3 selection and calibration."""

import random

import numpy as np
import pytest

from checks.structure.extract import decode, dom_keys
from checks.structure.lcs import RelatedLCS, WeightedLCS, related_lcs_by_table
from checks.structure.similarity import (
    FEEDBACK_PAGES,
    PAPER_THRESHOLDS,
    VALLEY_MIN_GROUP,
    Keyer,
    MethodError,
    accuracy,
    background_similarity,
    best_threshold,
    calibrated_threshold,
    chance_level,
    check_threshold,
    combined,
    common_values,
    feedback_pages,
    id_word,
    key_weight,
    method_for,
    select_relation,
    similarity,
)
from sites.crawler.parse import parse_document


def dom(html: str):
    root, _ = parse_document(f"<html><body>{html}</body></html>".encode(), "utf-8")
    return decode(dom_keys(root, url="", body=b""))


def score(relation, a, b, **options):
    keyer = Keyer(method_for(relation, **options))
    template, page = keyer.keys(dom(a)), keyer.keys(dom(b))
    return keyer.scorer([template])(page)


def test_figure_1_example_scores_4_over_4_5():
    # Tree (a) BFS: div, div, span, div, span; tree (b) BFS: div, div, span, div. LCS 4, mean length 4.5.
    a = "<div><div><span></span></div><span></span><div></div></div>"
    b = "<div><div></div><span></span><div></div></div>"
    keyer = Keyer(method_for("rsn"))
    assert len(keyer.keys(dom(a))) == 5 and len(keyer.keys(dom(b))) == 4
    assert score("rsn", a, b) == pytest.approx(4 / 4.5)
    assert round(score("rsn", a, b) * 100, 2) == 88.89


def test_formula_1_divides_the_lcs_by_the_mean_length():
    assert similarity([1, 2, 3, 4], [1, 2, 3, 4]) == 1.0
    assert similarity([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(1 / 4)
    assert similarity([1, 2], [1, 2, 3, 4, 5, 6]) == pytest.approx(2 / 4)
    assert similarity([], []) == 1.0 and similarity([], [1]) == 0.0


def test_rsn_compares_names_only():
    assert (
        score("rsn", '<div class="a"><span id="x"></span></div>', '<div class="b"><span id="y"></span></div>')
        == 1.0
    )


def test_rpsa_compares_the_chosen_attributes_and_ignores_the_rest():
    same = score("rpsa", '<div class="a" title="t1"></div>', '<div class="a" title="t2"></div>')
    different = score("rpsa", '<div class="a"></div>', '<div class="b"></div>')
    assert same == 1.0 and different == 0.0


def test_rpsa_relates_nodes_sharing_one_attribute_even_when_the_others_differ():
    # Definition 2: same tag and k >= 1 common attributes (name and value), not all of them.
    template = '<div class="a" id="x"></div><div class="b"></div>'
    page = '<div id="x"></div><div class="b" id="y"></div>'
    assert score("rpsa", template, page) == 1.0
    assert score("csr", template, page) == 0.0


def test_rpsa_is_not_transitive_and_the_lcs_follows_the_relation_itself():
    # Each page node shares one attribute with each template node, the two page nodes share none: the LCS is 2.
    template = '<div class="a" id="x"></div><div class="a" id="x"></div>'
    page = '<div class="a"></div><div id="x"></div>'
    assert score("rpsa", template, page) == 1.0
    # Order still counts: the nested tree's BFS is div.doc, div#x, span.s; against span.s, div.doc it is 2 of 3.
    nested = '<div class="doc"><div id="x"><span class="s"></span></div></div>'
    flat = '<span class="s"></span><div class="doc"></div>'
    assert score("rpsa", nested, flat) == pytest.approx(1 / 2.5)


def test_rpsa_needs_the_same_tag_and_one_common_attribute_so_bare_nodes_relate_to_nothing():
    assert score("rpsa", '<div class="a"></div>', '<span class="a"></span>') == 0.0
    assert score("rpsa", "<div></div>", "<div></div>") == 0.0
    assert score("rpsa", '<div title="t"></div>', '<div title="t"></div>') == 0.0  # title is not chosen


def test_rpsa_lcs_equals_algorithm_1_on_random_relations():
    rng = random.Random(7)
    for _ in range(500):
        atoms = [tuple(sorted(rng.sample(range(5), rng.randint(0, 3)))) for _ in range(7)]
        a = [rng.randrange(7) for _ in range(rng.randint(0, 90))]
        b = [rng.randrange(7) for _ in range(rng.randint(0, 90))]
        expected = related_lcs_by_table(a, b, lambda x, y, atoms=atoms: bool(set(atoms[x]) & set(atoms[y])))
        assert RelatedLCS(a, atoms).lcs(b) == expected


def test_rpsa_attribute_subset_is_configurable():
    a, b = '<div class="a" role="main"></div>', '<div class="b" role="main"></div>'
    assert score("rpsa", a, b) == 0.0
    assert score("rpsa", a, b, attributes=["div.role"]) == 1.0


def test_csr_needs_every_attribute_equal():
    assert score("csr", '<div class="a" title="t"></div>', '<div title="t" class="a"></div>') == 1.0
    assert score("csr", '<div class="a" title="t1"></div>', '<div class="a" title="t2"></div>') == 0.0


def test_paper_relations_see_only_div_and_span_by_default_and_the_tag_set_is_a_setting():
    a, b = "<div></div><ul></ul><ul></ul>", "<div></div><table></table>"
    assert score("rsn", a, b) == 1.0
    assert score("rsn", a, b, tags=["div", "ul", "table"]) == pytest.approx(1 / 2.5)


def test_tags_that_are_not_stored_are_refused():
    with pytest.raises(MethodError, match="not stored"):
        method_for("rsn", tags=["div", "td"])


def test_default_method_leaves_out_attribute_values_found_on_one_page_only():
    pages = [dom(f'<div class="main" id="page-{n}"><span class="x"></span></div>') for n in range(3)]
    keyer = Keyer(method_for(None), common=common_values(pages))
    assert similarity(keyer.keys(pages[0]), keyer.keys(pages[1])) == 1.0
    csr = Keyer(method_for("csr"))
    assert similarity(csr.keys(pages[0]), csr.keys(pages[1])) == 0.5


def test_default_method_keeps_each_key_once_so_text_length_does_not_weigh():
    short = dom('<div class="doc">' + '<span class="pre">x</span>' * 3 + "</div>")
    long = dom('<div class="doc">' + '<span class="pre">x</span>' * 300 + "</div>")
    keyer = Keyer(method_for("default"))
    assert keyer.keys(short) == keyer.keys(long)
    paper = Keyer(method_for("rsn"))
    assert similarity(paper.keys(short), paper.keys(long)) < 0.05


def test_several_templates_combine_by_mean_or_max():
    templates = [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert combined(templates, [1, 2, 3, 4]) == pytest.approx(0.5)
    assert combined(templates, [1, 2, 3, 4], "max") == 1.0


@pytest.mark.parametrize("relation", ["lcs", "CSRX", "div"])
def test_unknown_relations_are_refused(relation):
    with pytest.raises(MethodError, match="unknown relation"):
        method_for(relation)


@pytest.mark.parametrize("value", [-0.1, 1.01, 7])
def test_thresholds_outside_0_1_are_refused(value):
    with pytest.raises(MethodError, match="outside"):
        check_threshold(value)


def test_bad_attribute_subsets_are_refused():
    with pytest.raises(MethodError, match="tag.attribute"):
        method_for("rpsa", attributes=["class"])


def test_paper_thresholds_are_the_papers():
    assert PAPER_THRESHOLDS["csr"] == 0.2 and PAPER_THRESHOLDS["rpsa"] == 0.4


def test_accuracy_follows_formulas_2_and_3():
    scores = {"t1": 0.9, "t2": 0.8, "t3": 0.1, "n1": 0.7, "n2": 0.2}
    row = accuracy(scores, {"t1", "t2", "t3"}, 0.5, relation="csr")
    assert (row.tuf, row.af, row.taf) == (3, 3, 2)
    assert row.pr == pytest.approx(2 / 3) and row.rr == pytest.approx(2 / 3)


def test_relation_selection_picks_the_relation_and_threshold_that_separate_the_labels():
    targets, non_targets = {"t1", "t2"}, {"n1", "n2"}
    table = {
        "rpsa": {"t1": 0.5, "t2": 0.3, "n1": 0.4, "n2": 0.6},
        "csr": {"t1": 0.35, "t2": 0.3, "n1": 0.1, "n2": 0.05},
    }
    rows = select_relation(table, targets, non_targets)
    assert rows[0].relation == "csr" and rows[0].threshold == 0.3 and rows[0].pr == rows[0].rr == 1.0
    assert best_threshold(table["rpsa"], targets, non_targets).f1 < 1.0


def test_calibrated_threshold_falls_between_the_two_groups_and_not_below_chance():
    scores = [0.1, 0.12, 0.15, 0.18, 0.2] * 20 + [0.7, 0.75, 0.8, 0.85] * 5
    threshold = calibrated_threshold(scores, chance=0.05)
    assert 0.2 < threshold <= 0.7
    assert calibrated_threshold(scores, chance=0.9) == 0.9


def test_chance_level_is_what_shuffled_pages_score():
    # Two pages made of the same 20 keys in unrelated orders: high raw overlap, chance well below 1.
    template = list(range(20))
    pages = [list(range(20))[::-1] for _ in range(10)]
    level = chance_level([template], pages)
    assert 0.1 < level < 0.6


def _small_tight_type_among_many_pages():
    rng = np.random.default_rng(3)
    others = np.clip(rng.normal(0.35, 0.12, 500), 0, 1)
    same_type = np.clip(rng.normal(0.95, 0.02, 30), 0, 1)
    return others, same_type


def test_the_minimum_error_rule_isolates_a_small_tight_type_that_otsu_cuts_into_the_big_group():
    others, same_type = _small_tight_type_among_many_pages()
    scores = np.concatenate([others, same_type]).tolist()
    threshold = calibrated_threshold(scores, chance=0.2)  # the rule when none is named
    assert threshold == calibrated_threshold(scores, 0.2, "minimum-error")
    assert (same_type >= threshold).all() and (others >= threshold).sum() == 0
    assert (others >= calibrated_threshold(scores, 0.2, "otsu")).sum() > 0


def test_the_threshold_never_goes_below_the_chance_level_and_unknown_rules_are_refused():
    others, same_type = _small_tight_type_among_many_pages()
    assert calibrated_threshold(np.concatenate([others, same_type]).tolist(), chance=0.97) == 0.97
    with pytest.raises(MethodError, match="threshold rule"):
        calibrated_threshold([0.1, 0.9], 0.0, "fits-best")


def test_the_gap_rule_cuts_in_the_widest_gap_above_chance():
    assert calibrated_threshold([0.1, 0.2, 0.3, 0.35, 0.8, 0.85, 0.9], 0.15, "gap") == pytest.approx(0.575)


def test_the_nested_rule_finds_a_small_type_scoring_just_above_a_group_of_near_alike_pages():
    rng = np.random.default_rng(5)
    others = np.clip(rng.normal(0.3, 0.1, 500), 0, 1)
    near = rng.normal(0.80, 0.02, 100)
    same_type = rng.normal(0.95, 0.01, 20)
    scores = np.concatenate([others, near, same_type]).tolist()
    one_cut = calibrated_threshold(scores, 0.2, "minimum-error")
    assert (near >= one_cut).all()  # one cut keeps the near-alike pages with the type
    nested = calibrated_threshold(scores, 0.2, "nested")
    assert (same_type >= nested).all() and not (near >= nested).any()


def weighted_lcs_by_table(a, b, weights) -> float:
    """The weighted LCS as the plain O(n·m) table: what WeightedLCS must equal."""
    previous = [0.0] * (len(b) + 1)
    for x in a:
        current = [0.0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + weights[x] if x == y else max(current[j - 1], previous[j]))
        previous = current
    return previous[-1]


def test_weighted_lcs_is_the_heaviest_common_subsequence_of_the_plain_table():
    rng = random.Random(7)
    for _ in range(500):
        keys = rng.randrange(1, 40)
        weights = [rng.choice([0.0, 0.3, 1.0, rng.random() * 3]) for _ in range(keys)]
        template = rng.sample(range(keys), rng.randrange(0, keys + 1))
        page = rng.sample(range(keys), rng.randrange(0, keys + 1))
        assert WeightedLCS(template, weights).heaviest(page) == pytest.approx(
            weighted_lcs_by_table(template, page, weights)
        )


def test_weighted_lcs_takes_the_heavy_keys_over_the_many_light_ones():
    weights = [1.0, 1.0, 1.0, 5.0]
    # In the page's order the three light keys and the heavy one cannot all be kept: the heavy one wins.
    assert WeightedLCS([0, 1, 2, 3], weights).heaviest([3, 0, 1, 2]) == 5.0
    assert WeightedLCS([0, 1, 2, 3], weights).similarity([0, 1, 2, 3]) == 1.0


CHROME = '<div class="header"><ul class="menu"></ul></div><div class="sidebar"><ul></ul></div>'
FUNCTIONS = '<div class="body"><dl class="py function"></dl><dl class="py function"></dl><dl class="py class"></dl></div>'
PROSE = '<div class="body"><div class="section"><div class="highlight"><pre></pre></div></div></div>'


def _site(functions: int, prose: int) -> dict[str, object]:
    pages = {f"f{n}": dom(CHROME + FUNCTIONS) for n in range(functions)}
    pages.update({f"p{n}": dom(CHROME + PROSE) for n in range(prose)})
    return pages


def test_default_method_weighs_each_key_by_its_inverse_document_frequency():
    pages = _site(functions=3, prose=9)
    keyer = Keyer(method_for(None), common=common_values(pages.values()))
    sequences = keyer.keyed(pages)
    weight = dict(zip(sequences["f0"], [keyer.weights[key] for key in sequences["f0"]], strict=True))
    chrome, rare = sequences["f0"][0], [key for key in sequences["f0"] if key not in sequences["p0"]][0]
    assert weight[chrome] == 0.0  # on every page: the site's chrome says nothing about the page's type
    assert weight[rare] == pytest.approx(np.log(12 / 3))


def test_default_method_separates_pages_that_share_only_the_site_chrome():
    pages = _site(functions=3, prose=9)
    keyer = Keyer(method_for(None), common=common_values(pages.values()))
    sequences = keyer.keyed(pages)
    score = keyer.scorer([sequences["f0"]])
    assert score(sequences["f1"]) == 1.0
    assert score(sequences["p0"]) < 0.25  # only div.body in common beside the chrome, and it is on every page
    # Every block alike, the chrome makes the prose page look like the template.
    blocks = Keyer(method_for("blocks"), common=common_values(pages.values()))
    unweighted = blocks.keyed(pages)
    assert blocks.scorer([unweighted["f0"]])(unweighted["p0"]) > 0.5


def test_default_method_sets_its_threshold_by_the_feedback_rule_and_blocks_by_minimum_error():
    assert method_for(None).threshold_rule == "feedback"
    assert method_for("blocks").threshold_rule == "minimum-error"
    assert method_for("blocks").tags == method_for(None).tags


def test_chance_level_of_the_default_method_shuffles_under_the_weights():
    pages = _site(functions=3, prose=9)
    keyer = Keyer(method_for(None), common=common_values(pages.values()))
    sequences = keyer.keyed(pages)
    template, others = [sequences["f0"]], list(sequences.values())
    weighted = chance_level(template, others, pair_similarity=keyer.pair_similarity())
    assert weighted < chance_level(template, others)  # the chrome, unweighted, gives every page a base score


# Two families of reference pages with one layout (DocBook's refentry: name, synopsis, sections), told apart
# only by how their ids are named, as postgres' SQL commands (`SQL-ABORT`) and SPI functions (`SPI-SPI-CONNECT`).
def _reference_page(scheme: str, n: int, sections: list[str]) -> str:
    body = "".join(f'<div class="refsect1" id="{scheme}-{n}-{name}"><h2></h2></div>' for name in sections)
    return (
        f'<div class="navheader"></div><div class="refentry" id="{scheme}-{n}"><div class="refnamediv"></div>'
        f'<div class="refsynopsisdiv"><pre class="synopsis"></pre></div>{body}</div>'
    )


def _two_reference_families() -> dict[str, object]:
    pages = {f"sql{n}": dom(_reference_page("SQL", n, ["DESCRIPTION", "NOTES"])) for n in range(6)}
    pages.update({f"spi{n}": dom(_reference_page("SPI", n, ["DESCRIPTION", "NOTES"])) for n in range(6)})
    pages.update(
        {f"chapter{n}": dom('<div class="navheader"></div><div class="chapter"></div>') for n in range(12)}
    )
    return pages


def test_an_ids_first_word_is_its_naming_scheme_and_a_single_word_is_none():
    assert id_word("SQL-CREATETABLE-NOTES") == "SQL"
    assert id_word("id-1.9.3.85.6") == "id"
    assert id_word("module-json") == "module"
    assert id_word("c.PyObject_Call") == "c"
    assert id_word("sidebar") is None
    assert id_word("") is None


def test_default_method_tells_apart_two_families_of_one_layout_by_the_first_word_of_their_ids():
    pages = _two_reference_families()
    keyer = Keyer(method_for(None), common=common_values(pages.values()))
    sequences = keyer.keyed(pages)
    score = keyer.scorer([sequences["sql0"]])
    same = min(score(sequences[f"sql{n}"]) for n in range(1, 6))
    other = max(score(sequences[f"spi{n}"]) for n in range(6))
    assert same == 1.0 and other <= 0.5  # the shared blocks without their named ones
    # `blocks` drops each page's own ids whole, so the two families have the same keys and score alike.
    blocks = Keyer(method_for("blocks"), common=common_values(pages.values()))
    unweighted = blocks.keyed(pages)
    assert blocks.scorer([unweighted["sql0"]])(unweighted["spi0"]) == 1.0


def test_a_heading_id_shared_by_two_pages_of_different_types_does_not_make_them_alike():
    # Ids made from headings (`examples`) recur on a few pages of any type; weighed by rarity, a whole id on two
    # pages would be the heaviest key of both. The default keeps only an id's first word of two or more.
    functions = [dom(CHROME + FUNCTIONS + '<div class="section" id="examples"></div>')]
    functions += [dom(CHROME + FUNCTIONS) for _ in range(3)]
    prose = [dom(CHROME + PROSE + '<div class="section" id="examples"></div>')]
    prose += [dom(CHROME + PROSE) for _ in range(7)]
    pages = dict(enumerate(functions + prose))
    keyer = Keyer(method_for(None), common=common_values(pages.values()))
    sequences = keyer.keyed(pages)
    score = keyer.scorer([sequences[0]])
    assert score(sequences[1]) > 0.6 > 0.3 > score(sequences[4])


def test_a_key_on_one_page_weighs_nothing_as_no_two_pages_share_it():
    assert key_weight(100, 1) == key_weight(100, 0) == 0.0
    assert key_weight(100, 100) == 0.0
    assert key_weight(100, 4) == pytest.approx(np.log(25))


def test_the_valley_rule_cuts_above_a_group_of_near_alike_pages_when_a_clear_valley_parts_them():
    rng = np.random.default_rng(11)
    others = np.clip(rng.normal(0.08, 0.04, 700), 0, 1)
    near = np.clip(rng.normal(0.48, 0.04, 120), 0, 1)  # the same layout, another family
    same_type = np.clip(rng.normal(0.88, 0.05, 180), 0, 1)
    scores = np.concatenate([others, near, same_type]).tolist()
    otsu = calibrated_threshold(scores, 0.1, "otsu")
    assert (near >= otsu).mean() > 0.9  # the site's biggest divide: the layout against the rest
    valley = calibrated_threshold(scores, 0.1, "valley")
    assert (same_type >= valley).mean() > 0.97 and (near >= valley).sum() == 0


def test_the_valley_rule_does_not_cut_above_the_templates_few_near_copies():
    # A type of many variants, and three pages nearly the template's copies (the what's new pages of the next
    # releases, a patch release's notes): a valley parts them from the type, but three pages are not a type.
    rng = np.random.default_rng(13)
    others = np.clip(rng.normal(0.06, 0.03, 500), 0, 1)
    same_type = rng.uniform(0.3, 0.7, 200)
    near_copies = np.array([0.95, 0.96, 0.97])
    scores = np.concatenate([others, same_type, near_copies]).tolist()
    valley = calibrated_threshold(scores, 0.05, "valley")
    assert (same_type >= valley).mean() > 0.95 and (others >= valley).sum() == 0
    # The rule before, which took any valley with two pages above it, selected the three copies alone.
    assert (same_type >= calibrated_threshold(scores, 0.05, "valley-2")).sum() == 0


def test_a_group_of_the_fewest_pages_that_count_as_a_type_keeps_its_valley():
    rng = np.random.default_rng(14)
    others = np.clip(rng.normal(0.1, 0.05, 800), 0, 1)
    near = np.clip(rng.normal(0.45, 0.05, 300), 0, 1)
    same_type = np.clip(rng.normal(0.9, 0.01, VALLEY_MIN_GROUP), 0, 1)  # 21 release notes among 1,169 pages
    scores = np.concatenate([others, near, same_type]).tolist()
    valley = calibrated_threshold(scores, 0.1, "valley")
    assert (same_type >= valley).all() and (near >= valley).sum() == 0


def test_the_valley_rule_keeps_otsus_cut_for_a_type_whose_scores_fall_off_evenly():
    rng = np.random.default_rng(12)
    others = np.clip(rng.normal(0.08, 0.04, 700), 0, 1)
    same_type = rng.uniform(0.35, 0.95, 300)  # no valley inside: a type of many variants
    scores = np.concatenate([others, same_type]).tolist()
    assert calibrated_threshold(scores, 0.1, "valley") == calibrated_threshold(scores, 0.1, "otsu")
    assert (same_type >= calibrated_threshold(scores, 0.1, "valley")).mean() > 0.95


# The linkage rule reads the pages as well as their scores. Here a page is its group's name, and how alike two
# pages are is a table by group: what the weighted LCS gives on the sites of docs/benchmarks.md, in round figures.
def _alike(table: dict[frozenset, float]):
    def pair_similarity(a, b):
        return 1.0 if a == b else table[frozenset((a[0], b[0]))]

    return pair_similarity


def _group(name: str, scores: np.ndarray) -> tuple[list[float], list[tuple[str, int]]]:
    return scores.tolist(), [(name, n) for n in range(len(scores))]


def _scored_site(*groups):
    scores, pages = [], []
    for name, values in groups:
        more_scores, more_pages = _group(name, values)
        scores += more_scores
        pages += more_pages
    return scores, pages


def test_a_type_of_two_variants_of_one_layout_is_taken_whole_by_the_default_rule():
    # Doxygen's member lists: 12 of classes without inherited members score ~0.97 against one of them, the 86
    # others ~0.6, the rest of the site below 0.35; the two variants are 0.83 alike, the site's pages 0.2.
    rng = np.random.default_rng(21)
    scores, pages = _scored_site(
        ("rest", np.clip(rng.normal(0.15, 0.07, 350), 0, 0.35)),
        ("with inherited", rng.uniform(0.55, 0.65, 86)),
        ("without", rng.uniform(0.95, 0.99, 12)),
    )
    alike = _alike(
        {
            frozenset(("rest",)): 0.2,
            frozenset(("rest", "with inherited")): 0.2,
            frozenset(("rest", "without")): 0.2,
            frozenset(("with inherited",)): 0.95,
            frozenset(("without",)): 1.0,
            frozenset(("with inherited", "without")): 0.83,
        }
    )
    rule = method_for(None).threshold_rule
    threshold = calibrated_threshold(scores, 0.1, rule, pages=pages, pair_similarity=alike)
    chosen = {page[0] for page, value in zip(pages, scores, strict=True) if value >= threshold}
    assert chosen == {"with inherited", "without"}
    # The valley rule, the default until issue 23's sixth round, took the highest clear valley: 12 of 98.
    valley = calibrated_threshold(scores, 0.1, "valley")
    assert sum(value >= valley for value in scores) == 12


def test_the_linkage_rule_keeps_a_small_types_valley_above_a_group_of_another_kind():
    # The postgres release notes (21, ~0.8, 0.94 alike) above the chapter pages that share their layout's frame
    # (300 near 0.45, only 0.33 like the notes): the pages below the valley are not of the notes' kind.
    rng = np.random.default_rng(22)
    scores, pages = _scored_site(
        ("rest", np.clip(rng.normal(0.08, 0.04, 800), 0, 1)),
        ("chapters", np.clip(rng.normal(0.45, 0.05, 300), 0, 1)),
        ("release notes", np.clip(rng.normal(0.82, 0.02, 21), 0, 1)),
    )
    alike = _alike(
        {
            frozenset(("rest",)): 0.1,
            frozenset(("rest", "chapters")): 0.15,
            frozenset(("rest", "release notes")): 0.1,
            frozenset(("chapters",)): 0.6,
            frozenset(("release notes",)): 0.94,
            frozenset(("chapters", "release notes")): 0.33,
        }
    )
    threshold = calibrated_threshold(scores, 0.1, "linkage", pages=pages, pair_similarity=alike)
    assert threshold == calibrated_threshold(scores, 0.1, "valley")
    chosen = {page[0] for page, value in zip(pages, scores, strict=True) if value >= threshold}
    assert chosen == {"release notes"}


def test_the_linkage_rule_is_the_valley_rules_base_when_there_is_no_valley():
    rng = np.random.default_rng(12)
    scores, pages = _scored_site(
        ("rest", np.clip(rng.normal(0.08, 0.04, 700), 0, 1)), ("type", rng.uniform(0.35, 0.95, 300))
    )
    alike = _alike({frozenset(("rest",)): 0.1, frozenset(("rest", "type")): 0.1, frozenset(("type",)): 0.7})
    threshold = calibrated_threshold(scores, 0.1, "linkage", pages=pages, pair_similarity=alike)
    assert threshold == calibrated_threshold(scores, 0.1, "otsu")


def test_the_linkage_rule_refuses_to_run_without_the_pages():
    with pytest.raises(ValueError, match="reads the scored pages"):
        calibrated_threshold([0.1, 0.9], 0.0, "linkage")


TEMPLATE = ("template", 0)


def _template_also_like_another_kind():
    """A template as like sixteen pages of another kind (0.40-0.47) as its own type's twelve (0.48-0.52), the rest
    of the site far below (celery's what's new 2.5, which shares blocks with the changelogs): no valley parts
    the two kinds in the template's scores, but each kind's pages are alike (0.8) and the two kinds are not
    (0.2). A page's similarity to the template is its score; `scorer` is Keyer.scorer's mean."""
    rng = np.random.default_rng(7)
    scores, pages = _scored_site(
        ("rest", np.clip(rng.normal(0.06, 0.03, 300), 0, 0.15)),
        ("below", np.linspace(0.40, 0.47, 16)),
        ("type", np.linspace(0.48, 0.52, 12)),
    )
    to_template = dict(zip(pages, scores, strict=True))
    alike = _alike(
        {
            frozenset(("rest",)): 0.2,
            frozenset(("rest", "below")): 0.2,
            frozenset(("rest", "type")): 0.2,
            frozenset(("below",)): 0.8,
            frozenset(("type",)): 0.8,
            frozenset(("below", "type")): 0.2,
        }
    )

    def pair_similarity(a, b):
        if TEMPLATE in (a, b):
            return 1.0 if a == b else to_template[b if a == TEMPLATE else a]
        return alike(a, b)

    def scorer(templates):
        return lambda page: float(np.mean([pair_similarity(t, page) for t in templates]))

    return scores, pages, pair_similarity, scorer


def test_the_feedback_rule_takes_the_templates_nearest_pages_the_linkage_rule_selects():
    scores, pages, pair_similarity, scorer = _template_also_like_another_kind()
    nearest = feedback_pages(scores, 0.05, pages, pair_similarity, background=0.2)
    assert len(nearest) == FEEDBACK_PAGES
    assert {pages[i][0] for i in nearest} == {"type"}
    # A type smaller than that gives only the pages the linkage cut selects.
    few = [0.9, 0.88, 0.86, 0.85, 0.84, 0.83] + [0.05] * 200
    pages_of_few = [("type", n) for n in range(6)] + [("rest", n) for n in range(200)]
    alike = _alike({frozenset(("type",)): 0.9, frozenset(("rest",)): 0.2, frozenset(("rest", "type")): 0.1})
    assert {pages_of_few[i][0] for i in feedback_pages(few, 0.05, pages_of_few, alike)} == {"type"}


def test_the_default_parts_a_type_from_another_kind_its_template_also_resembles():
    scores, pages, pair_similarity, scorer = _template_also_like_another_kind()
    nearest = feedback_pages(scores, 0.05, pages, pair_similarity, background=0.2)
    score = scorer([TEMPLATE, *(pages[i] for i in nearest)])
    fed = [score(page) for page in pages]
    rule = method_for(None).threshold_rule
    threshold = calibrated_threshold(
        fed, 0.05, rule, pages=pages, pair_similarity=pair_similarity, background=0.2
    )
    assert {page[0] for page, value in zip(pages, fed, strict=True) if value >= threshold} == {"type"}
    # The linkage rule, the default until issue 23's seventh round, found no valley and took both kinds.
    linkage = calibrated_threshold(
        scores, 0.05, "linkage", pages=pages, pair_similarity=pair_similarity, background=0.2
    )
    assert {page[0] for page, value in zip(pages, scores, strict=True) if value >= linkage} == {
        "type",
        "below",
    }


def test_the_background_is_the_mean_likeness_of_random_pairs_of_pages():
    pages = [("a", n) for n in range(50)] + [("b", n) for n in range(50)]
    alike = _alike({frozenset(("a",)): 0.6, frozenset(("b",)): 0.6, frozenset(("a", "b")): 0.0})
    # Half the pairs are of one group (0.6), half across (0): ~0.3, whatever pages are drawn.
    assert background_similarity(pages, alike) == pytest.approx(0.3, abs=0.06)
    assert background_similarity(pages[:1], alike) == 0.0
