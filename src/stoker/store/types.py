"""Column types that behave the same on SQLite and PostgreSQL.

SQLite has no timestamp type and stores what it is given as text, while PostgreSQL's
``timestamptz`` hands back times in the session's zone. `UTCDateTime` stores UTC on both
and always returns an aware UTC datetime, so the engine never sees a naive time or a
backend's local zone. `dumps` is the one JSON encoder of the store: strict (no NaN, no
non-JSON values) so that what goes in is exactly what comes back on either backend.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

from stoker.store.jsontext import dumps as dumps
from stoker.store.jsontext import loads as loads
from stoker.store.jsontext import loads_text as loads_text


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime; naive datetimes are refused, not guessed at."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: the store keeps aware UTC times only")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            # SQLite compares these as text: one zone and one format keep the order right.
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)
