"""Values as the database driver takes and gives them, for the bulk paths.

Writing and reading thousands of resource and event rows through SQLAlchemy's per-value
type processing costs several times the database's own work, so the bulk statements (see
`stoker.store.bulk`) hand the driver ready values instead. A `Codec` does for those what
`stoker.store.types.UTCDateTime` does for everything else, and must store exactly the
same thing: on SQLite the text SQLAlchemy writes for a naive UTC datetime
(``YYYY-MM-DD HH:MM:SS.ffffff``, so times compare correctly as text); on PostgreSQL an
aware datetime for ``timestamptz``. JSON goes to the driver as text on both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any


def _aware_utc(value: datetime) -> datetime:
    if value.tzinfo is UTC:
        return value
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: the store keeps aware UTC times only")
    return value.astimezone(UTC)


# A transition's time is written twice (the row's updated_at, the event's time) and the
# rows of one batch share their created_at: remembering recent ones halves the encoding.
@lru_cache(maxsize=4096)
def _sqlite_time_in(value: datetime | None) -> str | None:
    if value is None:
        return None
    # "YYYY-MM-DD HH:MM:SS.ffffff+00:00" less the offset: SQLAlchemy's SQLite format.
    return _aware_utc(value).isoformat(" ", "microseconds")[:-6]


# Rows written in one batch share their times: remembering recent ones halves the cost
# of reading thousands of rows.
@lru_cache(maxsize=4096)
def _sqlite_time_out(value: str | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def _postgresql_time_in(value: datetime | None) -> datetime | None:
    return None if value is None else _aware_utc(value)


@lru_cache(maxsize=4096)
def _postgresql_time_out(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class Codec:
    time_in: Callable[[datetime | None], Any]
    time_out: Callable[[Any], datetime | None]


CODECS = {
    "sqlite": Codec(_sqlite_time_in, _sqlite_time_out),
    "postgresql": Codec(_postgresql_time_in, _postgresql_time_out),
}
