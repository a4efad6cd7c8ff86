"""The login page speaks like the rest of the dashboard: its labels carry no colon, as every other form's."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _labels(html: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>", "", label).strip()
        for label in re.findall(r"<label[^>]*>(.*?)</label>", html, re.S)
    ]


def test_the_login_labels_carry_no_colon_like_the_other_forms(client, owner):
    login = _labels(client.get(reverse("login")).content.decode())
    assert login == ["Username", "Password"]
    client.force_login(owner)
    site_form = _labels(client.get(reverse("sites:add")).content.decode())
    assert site_form and not [label for label in site_form if label.endswith(":")]


def test_the_login_form_still_logs_in_and_refuses_a_wrong_password(client, owner):
    refused = client.post(reverse("login"), {"username": owner.username, "password": "wrong"})
    assert refused.status_code == 200 and "correct username and password" in refused.content.decode()
    accepted = client.post(reverse("login"), {"username": owner.username, "password": "pw-" + owner.username})
    assert accepted.status_code == 302 and accepted["Location"] == reverse("sites:list")
