"""A batch of fetched pages is written with one executemany (frontier._update_done, external_cache_store): each
value must reach its column exactly as the ORM would have written it, whatever Python type the crawl handed over."""

import enum
from datetime import UTC, datetime

import numpy as np
import pytest
from django.db import connection

from sites.models import Page
from sites.services.columns import ColumnValues

NOW = datetime(2026, 11, 26, 1, 2, 3, tzinfo=UTC)

VALUES = {
    "status_code": [200, None, True],  # a bool is an integer to Python, not to PostgreSQL
    "final_url": ["https://example.org/a", "", None],
    "redirects": [[], [{"url": "https://example.org/", "status": 301}], None],
    "size": [0, 5_000_000, None],
    "title": ["Ünïcode title", ""],
    "noindex": [True, False],
    "fetched_at": [NOW, NOW, None],
    "soft404_probability": [0.25, np.float64(0.75), 1, None],
    "probe": [None, {"url": "https://example.org/x", "status": 404, "kind": "probe"}, True, 1, "text"],
    "state": [Page.State.DONE, "done"],
    "verdict_cached_at": [None, NOW],
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(VALUES))
def test_each_value_reaches_its_column_as_the_orm_writes_it(name):
    field = Page._meta.get_field(name)
    column = ColumnValues(field, connection)
    for value in VALUES[name] * 2:  # twice: the second time may come from what the batch converted already
        expected = field.get_db_prep_save(value, connection)
        got = column(value)
        assert _as_sent(got) == _as_sent(expected), (name, value, got, expected)


def _as_sent(value):
    """A parameter as the driver sends it: its type and value (PostgreSQL's Jsonb wrapper by what it wraps)."""
    return type(value), getattr(value, "obj", value)


def test_json_true_and_one_are_not_confused_by_the_batch_memory():
    field = Page._meta.get_field("probe")
    column = ColumnValues(field, connection)
    assert (_as_sent(column(True)), _as_sent(column(1))) == (
        _as_sent(field.get_db_prep_save(True, connection)),
        _as_sent(field.get_db_prep_save(1, connection)),
    )


class Colour(enum.Enum):
    RED = "red"


def test_a_value_of_another_type_goes_through_the_field():
    field = Page._meta.get_field("error_kind")
    got = ColumnValues(field, connection)(Colour.RED)
    assert _as_sent(got) == _as_sent(field.get_db_prep_save(Colour.RED, connection))
