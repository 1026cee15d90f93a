"""HTTP dates in the three RFC 9110 formats."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.http import http_date, parse_date

UTC = timezone.utc
RFC_MOMENT = datetime(1994, 11, 6, 8, 49, 37, tzinfo=UTC)


@pytest.mark.parametrize(
    "header",
    [
        # RFC 9110 §5.6.7's three examples.
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        # Tolerated variations.
        "  Sun, 06 Nov 1994 08:49:37 GMT  ",
        "sun, 06 nov 1994 08:49:37 gmt",
        "Mon, 06 Nov 1994 08:49:37 GMT",
        "06 Nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 UTC",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov 06 08:49:37 1994",
    ],
)
def test_parse_date_formats(header: str) -> None:
    assert parse_date(header) == RFC_MOMENT


@pytest.mark.parametrize(
    ("header", "year"),
    [
        ("Thursday, 01-Jan-70 00:00:00 GMT", 1970),
        ("Wednesday, 31-Dec-69 23:59:59 GMT", 1969),
        ("Saturday, 01-Jan-00 00:00:00 GMT", 2000),
        ("Sunday, 31-Dec-68 00:00:00 GMT", 2068),
        ("Friday, 31-Dec-99 23:59:59 GMT", 1999),
    ],
)
def test_two_digit_years_use_the_posix_window(header: str, year: int) -> None:
    parsed = parse_date(header)
    assert parsed is not None
    assert parsed.year == year


def test_leap_second_reads_as_59() -> None:
    assert parse_date("Sat, 31 Dec 2016 23:59:60 GMT") == datetime(
        2016, 12, 31, 23, 59, 59, tzinfo=UTC
    )


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "yesterday",
        "Sun, 06 Nov 1994 08:49:37",
        "Sun, 06 Nov 1994 08:49:37 CET",
        "Sun, 31 Feb 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 06 Nov 0000 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06-Nov-94 08:49:37 GMT",
        "Sunday, 06-Nov-994 08:49:37 GMT",
        "1994-11-06T08:49:37Z",
        "Sun, 06 Nov 1994 08:49:37 GMT" + " " * 40 + "x",
        "Sun, 06 Nov" + " " * 100 + "1994 08:49:37 GMT",
    ],
)
def test_malformed_dates_give_none(header: str | None) -> None:
    assert parse_date(header) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (RFC_MOMENT, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (datetime(1994, 11, 6, 8, 49, 37, 999_999), "Sun, 06 Nov 1994 08:49:37 GMT"),
        (
            datetime(1994, 11, 6, 9, 49, 37, tzinfo=timezone(timedelta(hours=1))),
            "Sun, 06 Nov 1994 08:49:37 GMT",
        ),
        (date(2024, 2, 29), "Thu, 29 Feb 2024 00:00:00 GMT"),
        (784111777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (784111777.9, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (datetime(5, 1, 1), "Sat, 01 Jan 0005 00:00:00 GMT"),
    ],
)
def test_http_date(value: datetime | date | float, expected: str) -> None:
    assert http_date(value) == expected


@pytest.mark.parametrize("value", [1e20, float("nan"), float("inf")])
def test_http_date_refuses_impossible_timestamps(value: float) -> None:
    with pytest.raises(ValueError, match=r"range|NaN"):
        http_date(value)


def test_http_date_refuses_dates_leaving_the_calendar() -> None:
    moment = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1)))
    with pytest.raises(ValueError, match="out of the range"):
        http_date(moment)


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
def test_round_trip(moment: datetime) -> None:
    expected = moment.replace(microsecond=0, tzinfo=UTC)
    assert parse_date(http_date(moment)) == expected


@given(st.text())
def test_arbitrary_text_never_raises(text: str) -> None:
    parsed = parse_date(text)
    assert parsed is None or parsed.tzinfo is UTC
