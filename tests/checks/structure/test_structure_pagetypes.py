"""Page types: structurally alike pages grouped without a template."""

from checks.structure.pagetypes import page_types


def test_pages_of_two_structures_form_two_types_biggest_first():
    article = [1, 2, 3, 4, 5, 6, 7, 8]
    listing = [1, 2, 9, 10, 11, 12, 13]
    sequences = {f"a{n}": article[: 6 + n % 3] for n in range(10)}
    sequences.update({f"l{n}": listing + ([14] if n % 2 else []) for n in range(4)})
    types = page_types(sequences)
    assert [t.size for t in types] == [10, 4]
    assert set(types[0].members) == {f"a{n}" for n in range(10)}
    assert types[1].leader in types[1].members


def test_identical_pages_form_one_type_and_a_lone_page_its_own():
    types = page_types({"a": [1, 2, 3], "b": [1, 2, 3], "c": [7, 8, 9, 10]})
    assert sorted(t.size for t in types) == [1, 2]


def test_no_pages_no_types():
    assert page_types({}) == []
