"""The `<id:…>` path converter: a database id, so that a number past the database's integer range is a 404
(not a 500 from an OverflowError inside the query). Every app's urls.py uses it for its ids."""

from __future__ import annotations

from django.urls import register_converter

# Both SQLite's INTEGER and PostgreSQL's bigint (Django's BigAutoField) end here.
DATABASE_ID_MAX = 2**63 - 1


class DatabaseIdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > DATABASE_ID_MAX:
            raise ValueError("beyond the database's integer range")  # Django then tries the next pattern: 404
        return number

    def to_url(self, value: int) -> str:
        return str(int(value))


register_converter(DatabaseIdConverter, "id")
