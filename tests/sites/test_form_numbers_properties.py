"""Property tests of the numbers a user types into the site form: whatever the text, the form answers (valid or
not) and a valid value is within its documented range (sites/limits.py)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from sites.forms import SiteForm
from sites.limits import CRAWL_RANGES

numbers_as_typed = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e308", "1e-320", "0x10", "1_000", " 5 ", "", "٣", "1e999"]),
    st.text(max_size=20),
)


@settings(max_examples=300, deadline=None)
# The crawl settings the site form offers (fetch concurrency is a deployment setting and a command-line option).
@given(st.sampled_from(sorted(set(CRAWL_RANGES) & set(SiteForm.base_fields))), numbers_as_typed)
def test_a_crawl_setting_typed_in_the_form_is_refused_or_within_its_range(field, typed):
    form = SiteForm(data={"url": "https://example.com/", field: typed})
    if form.is_valid():
        value = form.cleaned_data[field]
        if value is not None:
            low, high = CRAWL_RANGES[field]
            assert math.isfinite(value) and low <= value <= high
    else:
        assert field in form.errors or "url" in form.errors
