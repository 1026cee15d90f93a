"""JSON numbers: what a finite float holds decodes, anything beyond it is a 400.

RFC 8259 §6 has no Infinity or NaN: a number that Python would read as ``inf`` could not be
written back as JSON (the App would answer ``{"value":Infinity}``), so it is the client's
fault like any other invalid body.
"""

from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.bodies._json import decode_json
from sansio_http.messages._errors import BadRequest

TOO_LARGE = "The JSON body cannot be decoded: a number is too large for a finite float."


@pytest.mark.parametrize(
    "data",
    [
        b"1e999999",
        b"-1e999",
        b"1E309",
        b"1.8e308",
        b"[1, 2e308]",
        b'{"value": 1e400}',
        b"17976931348623159" + b"0" * 292 + b".0",  # no exponent: 1.8e308 written out
        # An exponent of 100,000 digits: read in one pass, never converted to an int.
        b"1e" + b"9" * 100_000,
        b"-0.5e+" + b"9" * 100_000,
    ],
)
def test_a_number_beyond_a_finite_float_is_a_400(data: bytes) -> None:
    with pytest.raises(BadRequest) as info:
        decode_json(data)
    assert (info.value.status, info.value.detail) == (400, TOO_LARGE)


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b"1.7976931348623157e308", sys.float_info.max),
        (b"-1.7976931348623157e308", -sys.float_info.max),
        (b"1e-999999", 0.0),  # too small rounds to zero, which JSON writes back
        (b"1e-" + b"9" * 100_000, 0.0),
        (b"-0.0", -0.0),
        (b"[2.5e3]", [2500.0]),
        # Integers stay exact Python ints: they never become Infinity.
        (b"1" + b"0" * 400, 10**400),
    ],
)
def test_a_number_a_finite_float_holds_decodes(data: bytes, value: object) -> None:
    assert decode_json(data) == value


@pytest.mark.parametrize("data", [b"NaN", b"-Infinity", b"[Infinity]", b'{"a": NaN}'])
def test_nan_and_infinity_literals_are_a_400(data: bytes) -> None:
    with pytest.raises(BadRequest, match="is not a JSON value"):
        decode_json(data)


numbers = st.builds(
    lambda sign, whole, fraction, exponent: sign + whole + fraction + exponent,
    st.sampled_from(["", "-"]),
    st.sampled_from(["0"]) | st.from_regex(r"[1-9][0-9]{0,20}", fullmatch=True),
    st.sampled_from([""]) | st.from_regex(r"\.[0-9]{1,20}", fullmatch=True),
    st.sampled_from([""]) | st.from_regex(r"[eE][+-]?[0-9]{1,6}", fullmatch=True),
)


@given(numbers)
def test_any_json_number_decodes_as_python_reads_it_or_is_a_400(text: str) -> None:
    expected = json.loads(text)  # the standard library's reading, infinities and all
    if isinstance(expected, float) and math.isinf(expected):
        with pytest.raises(BadRequest) as info:
            decode_json(text.encode())
        assert info.value.detail == TOO_LARGE
    else:
        decoded = decode_json(f"[{text}]".encode())
        assert decoded == [expected]
        assert json.loads(json.dumps(decoded, allow_nan=False)) == decoded


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_round_trips(value: float) -> None:
    assert decode_json(json.dumps(value).encode()) == value
