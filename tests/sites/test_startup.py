"""What a crawling process does before its first crawl: its open-files limit is raised so that
WEBAUDIT_FETCH_CONCURRENCY requests at once (and a kept connection for each of their hosts) fit."""

import resource

import pytest

from sites.startup import OPEN_FILES_WANTED, open_files_limit_raise


@pytest.fixture
def low_soft_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    yield hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_low_soft_limit_is_raised_within_the_hard_one(low_soft_limit):
    hard = low_soft_limit
    expected = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(OPEN_FILES_WANTED, hard)
    assert open_files_limit_raise() == expected
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (expected, hard)


def test_a_limit_already_high_enough_is_left_alone(low_soft_limit):
    assert open_files_limit_raise(wanted=100) == 256
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 256
