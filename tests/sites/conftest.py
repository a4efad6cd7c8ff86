"""Fixtures of the dashboard tests: a site owner, signed in."""

from __future__ import annotations

import pytest

from tests.sites.factories import make_user


@pytest.fixture
def owner():
    return make_user("olivia")


@pytest.fixture
def signed_in(client, owner):
    client.force_login(owner)
    return client
