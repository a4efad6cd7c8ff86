"""Fixtures of the checks tests: the test analysis kind, registered for one test at a time."""

from __future__ import annotations

import pytest

from checks.jobs.kinds import kind_register, kind_unregister


@pytest.fixture
def pagecount_kind():
    kind_register("tests.checks.jobkinds:KIND", name="pagecount")
    yield "pagecount"
    kind_unregister("pagecount")
