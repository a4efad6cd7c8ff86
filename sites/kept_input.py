"""A refused form's input, kept across the redirect back to the page it came from.

The site's and the crawl's pages build the analysis, schedule and alert forms in template tags, while another view
takes their POST and redirects back with a message; without this the page would show the form empty again, and the
user would retype a query or a cron expression to fix one field."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, QueryDict

SESSION_PREFIX = "kept-input:"
# A form's fields are bounded by their own max_length; this bounds what one refused POST may leave in the session.
MAX_VALUE_CHARS = 10_000


def input_keep(request: HttpRequest, key: str, form: forms.Form) -> None:
    """Keep the POST's values of `form`'s fields for the next input_take(request, key)."""
    request.session[SESSION_PREFIX + key] = {
        name: [value[:MAX_VALUE_CHARS] for value in request.POST.getlist(name)]
        for name in form.fields
        if name in request.POST
    }


def input_take(request: HttpRequest, key: str) -> QueryDict | None:
    """The input kept under `key`, once, to bind the form again (None when there is none)."""
    kept = request.session.pop(SESSION_PREFIX + key, None)
    if not isinstance(kept, dict):
        return None
    data = QueryDict(mutable=True)
    for name, values in kept.items():
        data.setlist(name, values)
    return data
