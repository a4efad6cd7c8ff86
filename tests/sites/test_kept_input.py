"""A refused form's input kept for the page it goes back to: its own fields only, bounded, given back once."""

from __future__ import annotations

import pytest
from django import forms
from django.contrib.sessions.backends.db import SessionStore
from django.test import RequestFactory

from sites.kept_input import MAX_VALUE_CHARS, input_keep, input_take

pytestmark = pytest.mark.django_db


class QueryForm(forms.Form):
    query = forms.CharField()
    tags = forms.MultipleChoiceField(choices=[("a", "a"), ("b", "b")])


def _posted(data: dict):
    request = RequestFactory().post("/", data)
    request.session = SessionStore()
    return request


def test_only_the_forms_fields_are_kept_each_value_bounded_and_given_back_once():
    request = _posted({"query": "x" * (MAX_VALUE_CHARS + 5), "tags": ["a", "b"], "csrfmiddlewaretoken": "t"})
    input_keep(request, "search", QueryForm(request.POST))
    kept = input_take(request, "search")
    assert kept["query"] == "x" * MAX_VALUE_CHARS and kept.getlist("tags") == ["a", "b"]
    assert "csrfmiddlewaretoken" not in kept
    assert input_take(request, "search") is None


def test_input_kept_under_one_key_is_not_given_to_another():
    request = _posted({"query": "python"})
    input_keep(request, "search:1", QueryForm(request.POST))
    assert input_take(request, "search:2") is None and input_take(request, "search:1")["query"] == "python"
