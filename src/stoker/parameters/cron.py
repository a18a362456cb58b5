"""Offline check for Heat's ``cron_expression`` custom constraint.

Heat accepts whatever ``croniter`` can build an iterator from: five fields (minute hour
day-of-month month day-of-week), optionally a sixth for seconds and a seventh for the year,
or an ``@daily``-style macro. This reimplements croniter's field grammar and its messages
("[<expression>] is not acceptable"), without computing any schedule.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from stoker.parameters.checks import Shown
from stoker.patterns import LazyPattern

_MACROS = frozenset(
    {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


class _Field(NamedTuple):
    """One field's range and names (a named tuple: a frozen dataclass costs more to create
    at import, paid by every process that reads parameters)."""

    low: int
    high: int
    names: dict[str, int]
    day_of_month: bool = False
    day_of_week: bool = False


_FIELDS = (
    _Field(0, 59, {}),  # minute
    _Field(0, 23, {}),  # hour
    _Field(1, 31, {}, day_of_month=True),
    _Field(1, 12, {name: index + 1 for index, name in enumerate(_MONTHS)}),
    _Field(0, 7, {name: index for index, name in enumerate(_DAYS)}, day_of_week=True),
    _Field(0, 59, {}),  # second (croniter puts it sixth)
    _Field(1970, 2099, {}),  # year
)
_ITEM = LazyPattern(r"^(?P<start>\*|\?|[0-9a-z]+)(?:-(?P<end>[0-9a-z]+))?(?:/(?P<step>[0-9]+))?$")


class _OutOfRange(ValueError):
    pass


def cron_expression(value: Any, shown: Shown) -> str | None:
    """``cron_expression``: a croniter expression; the empty string is accepted, as in Heat."""
    if not value:
        return None
    if not isinstance(value, str):
        return f"Invalid CRON expression: [{shown(value)}] is not acceptable"
    text = value.strip()
    if text.lower() in _MACROS:
        return None
    columns = text.split()
    if len(columns) not in (5, 6, 7):
        return (
            "Invalid CRON expression: Exactly 5, 6 or 7 columns has to be specified for "
            "iterator expression."
        )
    try:
        for column, field in zip(columns, _FIELDS, strict=False):
            for item in column.lower().split(","):
                if not _item_ok(item, field):
                    return f"Invalid CRON expression: [{shown(value)}] is not acceptable"
    except _OutOfRange:
        return f"Invalid CRON expression: [{shown(value)}] is not acceptable, out of range"
    return None


def _item_ok(item: str, field: _Field) -> bool:
    if field.day_of_month and item == "l":
        return True
    if field.day_of_week:
        special = re.fullmatch(r"([0-9a-z]+)(?:#([1-5])|l)", item)
        if special:
            return _number(special.group(1), field) is not None
    match = _ITEM.match(item)
    if match is None:
        return False
    start, end, step = match.group("start", "end", "step")
    if step is not None and int(step) == 0:
        return False
    if start in ("*", "?"):
        if start == "?" and not (field.day_of_month or field.day_of_week):
            return False
        return end is None
    low = _number(start, field)
    if low is None:
        return False
    if end is None:
        return True
    high = _number(end, field)
    if high is None:
        return False
    # croniter reads "fri-sun" (5-0) as 5-7; any other descending range is refused.
    return low <= high or (field.day_of_week and high == 0)


def _number(text: str, field: _Field) -> int | None:
    """The value ``text`` names in ``field``, None if it names none; `_OutOfRange` if outside."""
    if text.isdigit():
        number = int(text)
    elif text in field.names:
        number = field.names[text]
    else:
        return None
    if not field.low <= number <= field.high:
        raise _OutOfRange(text)
    return number
