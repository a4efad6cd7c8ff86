"""User regular expressions run in linear time, and what cannot is refused at input with a clear message."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError

from sites.patterns import MAX_PATTERN_LENGTH, compile_user_pattern


def test_a_catastrophic_pattern_for_backtracking_engines_answers_at_once():
    # Python's re needs 2**40 steps here (hours); RE2's automaton reads the text once.
    pattern = compile_user_pattern(r"(a+)+$")
    assert not isinstance(pattern, re.Pattern)
    assert pattern.search("a" * 40 + "!") is None
    assert pattern.search("x" + "a" * 40) is not None


def test_ordinary_url_patterns_work_as_with_re():
    pattern = compile_user_pattern(r"/library/[a-z_]+\.html$")
    assert pattern.search("http://h/library/os_path.html")
    assert not pattern.search("http://h/library/os.html?x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (r"(a)\1", "back references"),
        (r"foo(?=bar)", "look-ahead"),
        (r"(?<!x)y", "look-behind"),
        ("(unclosed", "missing )"),
        ("a{1000}{1000}", "bad repetition"),
        ("((((a{100}){100}){100}){100})", "not a usable regular expression"),
    ],
)
def test_patterns_re2_cannot_run_in_linear_time_or_bounded_memory_are_refused_with_the_reason(text, message):
    with pytest.raises(ValidationError, match=re.escape(message)):
        compile_user_pattern(text, what="target pattern")


def test_patterns_longer_than_the_cap_are_refused():
    compile_user_pattern("a" * MAX_PATTERN_LENGTH)
    with pytest.raises(ValidationError, match=f"at most {MAX_PATTERN_LENGTH}"):
        compile_user_pattern("a" * (MAX_PATTERN_LENGTH + 1))
