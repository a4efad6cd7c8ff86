"""Job parameters a user types are bounded: refused with a message before a job exists."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"states": "99999999999999999999"}, "between 2 and 10,000 states"),
        ({"threshold": "nan"}, "must be in"),
        ({"threshold": "inf"}, "must be in"),
        ({"threshold": "x"}, "must be a number"),
        ({"max_downloads": "99999999999999999999"}, "between 1 and 1000"),
    ],
)
def test_page_search_parameters_are_bounded(raw, message):
    from checks.jobs import JobInputError
    from checks.pagefinding.services import findpage_parameters
    from tests.sites.factories import make_site

    site = make_site()
    with pytest.raises(JobInputError, match=message):
        findpage_parameters(site, {"query": "apples pears", "start_url": site.url, **raw})
