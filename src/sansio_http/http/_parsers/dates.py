"""HTTP dates: reading the three RFC 9110 formats and writing IMF-fixdate.

RFC 9110 §5.6.7 has senders write ``Sun, 06 Nov 1994 08:49:37 GMT``
(IMF-fixdate) and recipients also accept two obsolete forms: RFC 850's
``Sunday, 06-Nov-94 08:49:37 GMT`` and C's asctime ``Sun Nov  6 08:49:37
1994``. Parsed dates are aware datetimes in UTC. Nothing here reads a clock.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from typing import Final

_DAYS: Final = tuple("Mon Tue Wed Thu Fri Sat Sun".split())
_MONTHS: Final = tuple("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())
_MONTH_NUMBERS: Final = {name.lower(): number for number, name in enumerate(_MONTHS, 1)}
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)

# PERF: the patterns below have no nested repetition, and values longer than
# _MAX_LENGTH are refused before matching: the longest date in the RFC formats
# is 35 characters ("Wednesday, 09-Nov-1994 08:49:37 GMT"); the rest is slack
# for the extra spaces tolerated between fields.
_MAX_LENGTH: Final = 64
_SHORT_DAY = r"(?:mon|tue|wed|thu|fri|sat|sun)"
_LONG_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})"
# The day name is optional in IMF-fixdate as in its RFC 5322 parent; "UTC" is
# tolerated for "GMT", which some clients write.
_IMF_FIXDATE: Final = re.compile(
    rf"(?:{_SHORT_DAY}, *)?([0-9]{{1,2}}) +{_MONTH} +([0-9]{{4}}) +{_TIME} +(?:gmt|utc)",
    re.IGNORECASE,
)
_RFC850: Final = re.compile(
    rf"{_LONG_DAY}, *([0-9]{{1,2}})-{_MONTH}-([0-9]{{2}}|[0-9]{{4}}) +{_TIME} +(?:gmt|utc)",
    re.IGNORECASE,
)
_ASCTIME: Final = re.compile(
    rf"{_SHORT_DAY} +{_MONTH} +([0-9]{{1,2}}) +{_TIME} +([0-9]{{4}})", re.IGNORECASE
)
# RFC 9110 §5.6.7 resolves a two-digit year against the current date, which a
# sans-IO core cannot read. We use the fixed POSIX %y window instead: 00-68 are
# 2000-2068, 69-99 are 1969-1999. It agrees with the RFC rule for every date
# a sender could plausibly mean today; RFC 850 dates are rare, and most are
# ``Expires`` values in the past (often 1970).
_PIVOT: Final = 69


def _build(year: int, month: int, day: int, hour: int, minute: int, second: int) -> datetime | None:
    # IMF-fixdate allows second 60 for a leap second (RFC 5322 §3.3), which
    # datetime cannot hold; the moment before it is the closest one.
    if second == 60:
        second = 59
    try:
        return datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError:
        return None


def parse_date(value: str | None) -> datetime | None:
    """Parse an HTTP date in any of the three RFC 9110 formats.

    Names of days and months are read case-insensitively and the day name is
    not checked against the date. Two-digit RFC 850 years use the POSIX
    window: 00-68 are 2000-2068 and 69-99 are 1969-1999, since the RFC's own
    rule needs the current date and this module reads no clock. A leap second
    (``:60``) reads as ``:59``.

    Args:
        value: The header value, or None.

    Returns:
        An aware datetime in UTC, or None when the value is absent, longer than
        64 characters, or not a valid date in one of the formats. Never raises.
    """
    if not value:
        return None
    text = value.strip()
    if len(text) > _MAX_LENGTH:
        return None
    if match := _IMF_FIXDATE.fullmatch(text):
        day, month, year, hour, minute, second = match.groups()
    elif match := _RFC850.fullmatch(text):
        day, month, year, hour, minute, second = match.groups()
        if len(year) == 2:
            short = int(year)
            year = str(short + (2000 if short < _PIVOT else 1900))
    elif match := _ASCTIME.fullmatch(text):
        month, day, hour, minute, second, year = match.groups()
    else:
        return None
    return _build(
        int(year), _MONTH_NUMBERS[month.lower()], int(day), int(hour), int(minute), int(second)
    )


def http_date(value: datetime | date | float) -> str:
    """Format a moment as an IMF-fixdate, like ``Sun, 06 Nov 1994 08:49:37 GMT``.

    Args:
        value: An aware datetime (converted to UTC), a naive one (taken as
            UTC), a date (its midnight in UTC), or a POSIX timestamp in
            seconds. Fractions of a second are dropped.

    Returns:
        The date in the format RFC 9110 §5.6.7 asks senders to use.

    Raises:
        ValueError: The timestamp is not a finite number, or the moment falls
            outside the years 1 to 9999 once in UTC.
    """
    try:
        if isinstance(value, datetime):
            moment = value if value.tzinfo is None else value.astimezone(timezone.utc)
        elif isinstance(value, date):
            moment = datetime(value.year, value.month, value.day)
        else:
            moment = _EPOCH + timedelta(seconds=value)
    except OverflowError as exc:
        raise ValueError(f"{value!r} is out of the range of dates") from exc
    return (
        f"{_DAYS[moment.weekday()]}, {moment.day:02d} {_MONTHS[moment.month - 1]} "
        f"{moment.year:04d} {moment.hour:02d}:{moment.minute:02d}:{moment.second:02d} GMT"
    )
