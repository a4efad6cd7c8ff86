"""Page types: structurally alike pages grouped without a template."""

from checks.structure.pagetypes import page_types, type_name
from checks.structure.plot import distribution_svg


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


def test_a_type_is_named_by_the_url_pattern_its_pages_share():
    assert type_name(["http://h/library/os.html", "http://h/library/re.html"]) == "/library/*.html"
    assert type_name(["http://h/sql-select.html", "http://h/sql-insert.html"]) == "/sql-*.html"


def test_a_type_most_of_whose_pages_share_a_directory_says_mostly_and_how_many():
    urls = [f"http://h/ref/{n}.html" for n in range(4)] + ["http://h/topics/x.html"]
    assert type_name(urls) == "mostly /ref/*.html (80%)"


def test_a_type_without_a_shared_url_is_named_by_the_words_its_titles_share():
    urls = ["http://h/a.html", "http://h/zz.html"]
    assert (
        type_name(urls, ["Chapter 5. Data Definition", "Chapter 6. Data Manipulation"])
        == "titles with “chapter data”"
    )
    assert type_name(urls) == "/*.html"


def test_the_distribution_plot_has_both_axes_titled_and_counted():
    svg = distribution_svg([0, 4, 10, 2], threshold=0.5, chance=0.25)
    assert 'class="x-axis"' in svg and 'class="y-axis"' in svg
    assert ">pages</text>" in svg and "similarity to the template page(s)" in svg
    assert ">10</text>" in svg and ">5</text>" in svg and ">0</text>" in svg
