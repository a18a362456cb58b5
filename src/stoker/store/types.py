"""Column types that behave the same on SQLite and PostgreSQL.

SQLite has no timestamp type and stores what it is given as text, while PostgreSQL's
``timestamptz`` hands back times in the session's zone. `UTCDateTime` stores UTC on both
and always returns an aware UTC datetime, so the engine never sees a naive time or a
backend's local zone. `dumps` is the one JSON encoder of the store: strict (no NaN, no
non-JSON values) so that what goes in is exactly what comes back on either backend.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


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


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def dumps(value: Any) -> str:
    """Encode JSON-native data; anything else (a datetime, a set, NaN) is an error."""
    if not value:  # most attribute and data maps, and requires lists, cheaply
        if type(value) is dict:
            return "{}"
        if type(value) is list:
            return "[]"
    return _ENCODER.encode(value)


def loads(text: str | bytes) -> Any:
    return json.loads(text)


_DECODER = json.JSONDecoder()


def loads_text(text: str) -> Any:
    """Decode JSON text the store wrote (no surrounding whitespace: straight to the
    scanner, which is measurably faster on the bulk read path)."""
    return _DECODER.raw_decode(text)[0]
