"""`stoker.store.codec`: the text a time is stored as on SQLite is SQLAlchemy's format,
written without ``isoformat`` (see `_sqlite_time_in`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from stoker.store.codec import CODECS, _sqlite_time_in

_TIMES = [
    datetime(2026, 11, 28, 14, 5, 9, 123456, tzinfo=UTC),
    datetime(2026, 11, 28, 14, 5, 9, tzinfo=UTC),  # no microseconds: still written
    datetime(2026, 11, 28, 14, 5, 9, 7, tzinfo=UTC),
    datetime(1, 1, 1, 0, 0, 0, 1, tzinfo=UTC),  # a year of one digit: four
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(2026, 1, 1, 1, 30, 0, 500, tzinfo=timezone(timedelta(hours=2))),  # to UTC
]


@pytest.mark.parametrize("value", _TIMES)
def test_sqlite_time_text_is_isoformat_s_in_utc(value: datetime) -> None:
    expected = value.astimezone(UTC).isoformat(" ", "microseconds")[: -len("+00:00")]
    _sqlite_time_in.cache_clear()
    assert _sqlite_time_in(value) == expected
    assert _sqlite_time_in(value) == expected  # from the caches
    assert CODECS["sqlite"].time_out(expected) == value


def test_times_of_one_second_differ_in_their_microseconds() -> None:
    start = datetime(2026, 11, 28, 14, 5, 9, tzinfo=UTC)
    texts = [_sqlite_time_in(start + timedelta(microseconds=n)) for n in (0, 1, 999999)]
    assert texts == [
        "2026-11-28 14:05:09.000000",
        "2026-11-28 14:05:09.000001",
        "2026-11-28 14:05:09.999999",
    ]


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        _sqlite_time_in(datetime(2026, 11, 28, 14, 5, 9, 1))
