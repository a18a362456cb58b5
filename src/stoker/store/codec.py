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


#: "YYYY-MM-DD HH:MM:SS." of the seconds seen lately: the thousands of times of a large
#: operation fall in few seconds, and this prefix and the microseconds cost a fraction
#: of ``isoformat`` (its C code formats through ``PyUnicode_FromFormat``, and the offset
#: of an aware time on top)
_SECONDS: dict[tuple[int, int, int, int, int, int], str] = {}


# A resource's transition's time is written twice (its row's updated_at, the event's time)
# and the rows of one batch share their created_at: remembering recent ones halves the
# encoding.
@lru_cache(maxsize=4096)
def _sqlite_time_in(value: datetime | None) -> str | None:
    """SQLAlchemy's SQLite format: ``YYYY-MM-DD HH:MM:SS.ffffff`` (what
    ``isoformat(" ", "microseconds")`` writes, less the offset), in UTC."""
    if value is None:
        return None
    value = _aware_utc(value)
    second = (value.year, value.month, value.day, value.hour, value.minute, value.second)
    prefix = _SECONDS.get(second)
    if prefix is None:
        if len(_SECONDS) >= 4096:  # a long-running server: bounded
            _SECONDS.clear()
        year, month, day, hour, minute, seconds = second
        prefix = f"{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{seconds:02}."
        _SECONDS[second] = prefix
    # printf-style: cheaper than a format spec, once per time written
    return prefix + "%06d" % value.microsecond  # noqa: UP031


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
