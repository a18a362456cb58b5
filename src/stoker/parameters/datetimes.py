"""Offline checks for Heat's date and time custom constraints (iso_8601, expiration, timezone).

Heat parses dates with the ``iso8601`` library (through oslo's ``parse_isotime``) and looks
zones up with pytz; the grammar below is that library's, and zones come from the system's
time zone database through ``zoneinfo``. ``expiration`` compares with a clock the caller
passes in, so it is testable and deterministic.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from functools import cache
from typing import Any

from stoker.errors import DateError as DateError
from stoker.parameters.checks import NotCheckable, Shown

Clock = Callable[[], datetime]

#: the iso8601 library's grammar; compiled on first use (a cost that a process checking
#: no date, such as a lint run, need not pay)
_ISO8601_PATTERN = r"""
    (?P<year>[0-9]{4})
    (
        (
            (-(?P<monthdash>[0-9]{1,2}))
            |
            (?P<month>[0-9]{2})
            (?!$)  # YYYYMM alone is ambiguous, so it is not a date
        )
        (
            (
                (-(?P<daydash>[0-9]{1,2}))
                |
                (?P<day>[0-9]{2})
            )
            (
                [ T]
                (?P<hour>[0-9]{2})
                (:?(?P<minute>[0-9]{2}))?
                (:?(?P<second>[0-9]{1,2})([.,](?P<fraction>[0-9]+))?)?
                (?P<zone>Z|(?P<sign>[-+])(?P<zone_hour>[0-9]{2}):?(?P<zone_minute>[0-9]{2})?)?
            )?
        )?
    )?
    $
    """


@cache
def _iso8601() -> re.Pattern[str]:
    return re.compile(_ISO8601_PATTERN, re.VERBOSE)


def parse_iso8601(text: str) -> datetime:
    """An aware datetime (UTC when no zone is given), as ``iso8601.parse_date`` reads it."""
    match = _iso8601().match(text)
    if match is None:
        raise DateError("")
    part = match.groupdict()
    try:
        zone = _zone(part)
        microsecond = 0
        if part["fraction"]:
            # is checked, not with the module (which every template would pay)

            microsecond = int(Decimal(f"0.{part['fraction']}") * Decimal(1_000_000))
        return datetime(
            int(part["year"]),
            int(part["monthdash"] or part["month"] or 1),
            int(part["daydash"] or part["day"] or 1),
            int(part["hour"] or 0),
            int(part["minute"] or 0),
            int(part["second"] or 0),
            microsecond,
            tzinfo=zone,
        )
    except ValueError as error:
        raise DateError(str(error)) from None


def _zone(part: dict[str, str | None]) -> timezone:
    if part["zone"] in (None, "Z"):
        return UTC
    offset = timedelta(hours=int(part["zone_hour"] or 0), minutes=int(part["zone_minute"] or 0))
    return timezone(-offset if part["sign"] == "-" else offset)


def _parse_problem(value: Any, shown: Shown) -> tuple[datetime | None, str]:
    if not isinstance(value, str):
        return None, f"Unable to parse date string {shown(value)!r}"
    try:
        return parse_iso8601(value), ""
    except DateError as error:
        return None, str(error) or f"Unable to parse date string {shown(value)!r}"


def iso_8601(value: Any, shown: Shown) -> str | None:
    """``iso_8601``: any date or date-time the iso8601 library parses (Heat gives no reason)."""
    parsed, _ = _parse_problem(value, shown)
    return None if parsed is not None else ""


def expiration_check(now: Clock) -> Callable[[Any, Shown], str | None]:
    """``expiration``: an ISO 8601 time in the future of ``now()`` (an aware datetime)."""

    def expiration(value: Any, shown: Shown) -> str | None:
        if not value:
            return None
        parsed, reason = _parse_problem(value.strip() if isinstance(value, str) else value, shown)
        if parsed is not None:
            if parsed > now():
                return None
            reason = "Expiration time is out of date."
        return f"Expiration {shown(value)} is invalid: {reason}"

    return expiration


def utc_now() -> datetime:
    return datetime.now(UTC)


def timezone_name(value: Any, shown: Shown) -> str | None:
    """``timezone``: a name in the tz database (``Europe/Paris``, ``UTC``), any letter case."""
    if not value:
        return None
    if isinstance(value, str) and _zone_exists(value):
        return None
    return f"Invalid timezone: {shown(value)!r}"


def _zone_exists(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
        return True
    except Exception:  # noqa: BLE001 - not found, a bad key, a directory: all "no such zone"
        pass
    zones = _zone_names()
    if not zones:
        raise NotCheckable("this machine has no time zone database (install tzdata)")
    # pytz, which Heat uses, finds zones whatever the letter case.
    return name.lower() in zones


@cache
def _zone_names() -> frozenset[str]:
    return frozenset(name.lower() for name in zoneinfo.available_timezones())
