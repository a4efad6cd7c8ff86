"""Text processing and the paper's generated sites."""

from __future__ import annotations

import random

from benchmarks.pagefinding_graphs import GeneratedSite, GraphParameters, generate, make_query
from checks.pagefinding import text
from checks.pagefinding.text import query_terms, terms, url_terms, written_words


def test_terms_drop_stop_words_and_stem():
    assert terms("Contact us: the addresses and phone numbers") == ("contact", "address", "phone", "number")


def test_words_that_name_things_are_kept_though_scikit_learns_list_drops_them(monkeypatch):
    """ "The name of the system table": scikit-learn's list drops "name" and "system", which a page is about."""
    monkeypatch.setattr(text, "KEEP_CONTENT_WORDS", True)
    assert terms("The name of the system table") == ("name", "system", "tabl")
    assert terms("it seems to have become done") == ()  # copulas and auxiliaries stay stop words
    assert written_words("Give the name; show the names")["name"] == 1
    monkeypatch.setattr(text, "KEEP_CONTENT_WORDS", False)
    assert terms("The name of the system table") == ("tabl",)


def test_version_numbers_stay_whole():
    assert terms("Django 2.2.11 release notes") == ("django", "2.2.11", "releas", "note")


def test_a_query_of_stop_words_only_has_no_terms():
    assert query_terms("the and of which") == ()
    assert query_terms("Tax tax FORM") == ("tax", "form")


def test_url_terms_split_path_words_and_drop_the_extension():
    assert url_terms("http://h/library/install-guide.html?q=Running") == (
        "librari",
        "instal",
        "guid",
        "q",
        "run",
    )


def test_every_generated_node_is_reachable_from_the_start():
    graph = generate(GraphParameters(n=500), random.Random(3))
    seen, stack = {0}, [0]
    while stack:
        for child in graph.out[stack.pop()]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    assert len(seen) == 500


def test_labels_draw_from_the_target_node_with_probability_alpha():
    graph = generate(GraphParameters(n=1000), random.Random(4))
    inside = total = 0
    for source, targets in enumerate(graph.out):
        for target, label in zip(targets, graph.labels[source], strict=True):
            own = set(graph.texts[target])
            inside += sum(word in own for word in label)
            total += len(label)
    # α = 0.75; a word drawn from the other words is never in the node by construction.
    assert 0.72 < inside / total < 0.78


def test_out_degrees_are_heavy_tailed():
    graph = generate(GraphParameters(n=5000), random.Random(5))
    degrees = sorted((len(out) for out in graph.out), reverse=True)
    mean = sum(degrees) / len(degrees)
    assert degrees[0] > 20 * mean
    assert 5 < mean < 12


def test_the_query_draws_from_the_target_with_probability_alpha():
    params = GraphParameters(n=300)
    inside = total = 0
    for seed in range(60):
        rng = random.Random(seed)
        graph = generate(params, rng)
        target = rng.randrange(1, params.n)
        query = make_query(graph, target, params, rng)
        inside += sum(word in set(graph.texts[target]) for word in query)
        total += len(query)
    assert 0.65 < inside / total < 0.85


def test_optimal_path_is_known_on_a_generated_site():
    graph = generate(GraphParameters(n=200), random.Random(6))
    env = GeneratedSite(graph)
    path = env.shortest_path(150)
    assert path[0] == 0 and path[-1] == 150
    assert all(b in graph.out[a] for a, b in zip(path, path[1:], strict=False))


def test_a_generated_page_holds_its_own_words_and_its_link_texts():
    graph = generate(GraphParameters(n=50), random.Random(7))
    page = GeneratedSite(graph).download(0)
    assert page.terms[: len(graph.texts[0])] == graph.texts[0]
    assert set(word for label in graph.labels[0] for word in label) <= page.term_set
    assert [link.target for link in page.links] == graph.out[0]


def _shared_share(graph, pairs) -> float:
    """Mean share of a node's distinct words that the other node of the pair also holds."""
    shares = [len(set(graph.texts[a]) & set(graph.texts[b])) / len(set(graph.texts[b])) for a, b in pairs]
    return sum(shares) / len(shares)


def test_linked_pages_share_more_words_when_copies_take_their_prototypes_text():
    def linked_share(params: GraphParameters) -> float:
        graph = generate(params, random.Random(6))
        pairs = [(source, target) for source, targets in enumerate(graph.out) for target in targets]
        return _shared_share(graph, pairs)

    independent = linked_share(GraphParameters(n=800))
    copied = linked_share(GraphParameters(n=800, text_copy=0.5, prototype_link=1.0))
    # 0.14 → 0.21 (seed 6): most links are copied or random in-links, not the prototype's own link.
    assert copied > independent + 0.04


def test_a_prototype_link_keeps_every_node_reachable_and_sections_give_the_start_s_copies_new_topics():
    graph = generate(GraphParameters(n=500, prototype_link=1.0, sections=True), random.Random(7))
    seen, stack = {0}, [0]
    while stack:
        for child in graph.out[stack.pop()]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    assert len(seen) == 500
    # The start's children include its copies, the sections: they are not all on the start's topic.
    assert len({graph.topics[child] for child in graph.out[0]}) > 3


def test_labels_drawn_from_the_text_favour_a_page_s_repeated_words():
    params = GraphParameters(n=300, keywords=(3, 3), text_length=(30, 30), word_choice="text")
    graph = generate(params, random.Random(8))
    hits = total = 0
    for source, targets in enumerate(graph.out):
        for target, label in zip(targets, graph.labels[source], strict=True):
            counts = {word: graph.texts[target].count(word) for word in set(graph.texts[target])}
            top = max(counts.values())
            hits += sum(counts.get(word, 0) == top for word in label)
            total += len(label)
    # Three keywords repeated through a page: uniform over them its most written one takes 0.29 of the label
    # words (seed 8), drawn from the text 0.38.
    assert hits / total > 0.34


def test_an_unknown_word_choice_is_refused():
    import pytest

    with pytest.raises(ValueError, match="word_choice"):
        generate(GraphParameters(n=10, word_choice="tokens"), random.Random(1))
