"""Values for raw SQL statements, converted for their columns as the ORM would, at a fraction of its cost."""

from __future__ import annotations

from django.db import models


class ColumnValues:
    """A field's values as its column takes them, as `Field.get_db_prep_save` makes them, for less: one per
    field and statement (`db_connection` the cursor's, `cursor.db`).

    Converting ~25 values a page through the ORM's field methods (and the thread-local connection proxy) was the
    biggest part of recording a batch of external targets (issue 22): a string, number or boolean goes into a
    text, number or boolean column as it is, and a value that does need converting (a date, JSON) is mostly the
    same for the whole batch (the time it was fetched, "no redirects"), so it is converted once."""

    # What get_db_prep_save hands on unchanged, by field type: the value's exact type (a bool is no integer here).
    UNCHANGED = (
        (models.BooleanField, (bool, type(None))),
        (models.IntegerField, (int, type(None))),
        (models.FloatField, (float, type(None))),
        (models.CharField, (str, type(None))),
        (models.TextField, (str, type(None))),
    )

    SAMPLES = {bool: True, int: 7, float: 0.5, str: "x", type(None): None}

    def __init__(self, field, db_connection) -> None:
        self.name, self.field, self.connection = field.name, field, db_connection
        kinds = next((kinds for cls, kinds in self.UNCHANGED if isinstance(field, cls)), ())
        # Only where this database's adapter hands the value on as it is (PostgreSQL's wraps an integer in its
        # column's type, Int2 or Int4, which the statement's parameters then keep).
        self.unchanged = tuple(
            kind
            for kind in kinds
            if field.get_db_prep_save(self.SAMPLES[kind], db_connection) is self.SAMPLES[kind]
        )
        self.converted: dict = {}

    def __call__(self, value):
        if type(value) in self.unchanged:
            return value
        key = (type(value), value)  # typed: True and 1 are one dict key but not one JSON value
        try:
            return self.converted[key]
        except KeyError:
            converted = self.converted[key] = self.field.get_db_prep_save(value, self.connection)
            return converted
        except TypeError:  # unhashable (a dict or list for a JSON column): converted each time
            return self.field.get_db_prep_save(value, self.connection)
