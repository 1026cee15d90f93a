"""What header containers and builders accept: text, and a clear TypeError for the rest.

A number, ``None`` or a list where a header value belongs is refused at the call that
passes it, with a message naming the field, what was given and what is accepted: never
converted in silence (``None`` would go out as the word "None"), never a failure deep
inside or on a later read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import Headers, MutableHeaders
from sansio_http.http import dump_options_header, parse_options_header

NOT_TEXT = [5, None, ["text/html"], 1.5, {"a": "b"}]


@pytest.mark.parametrize("value", NOT_TEXT, ids=repr)
@pytest.mark.parametrize(
    "call",
    [
        lambda headers, value: headers.add("X-Count", value),
        lambda headers, value: headers.__setitem__("X-Count", value),
        lambda headers, value: headers.setdefault("X-Count", value),
    ],
    ids=["add", "setitem", "setdefault"],
)
def test_one_value_that_is_not_text_names_the_field_and_the_type(
    call: Callable[[MutableHeaders, Any], None], value: object
) -> None:
    headers = MutableHeaders([("a", "1")])
    with pytest.raises(TypeError) as caught:
        call(headers, value)
    message = str(caught.value)
    assert "'X-Count'" in message
    assert f"must be str, not {type(value).__name__} ({value!r})" in message
    assert headers.raw() == [(b"a", b"1")]


@pytest.mark.parametrize("value", NOT_TEXT, ids=repr)
@pytest.mark.parametrize(
    "call",
    [
        lambda fields: MutableHeaders(fields),
        lambda fields: MutableHeaders([("a", "1")]).extend(fields),
        lambda fields: MutableHeaders([("a", "1")]).update(fields),
        lambda fields: Headers(fields),
    ],
    ids=["MutableHeaders", "extend", "update", "Headers"],
)
@pytest.mark.parametrize("shape", ["pairs", "mapping"])
def test_fields_with_a_value_that_is_not_text_name_it(
    call: Callable[[Any], object], shape: str, value: object
) -> None:
    fields: Any = {"x-count": value} if shape == "mapping" else [("x-count", value)]
    with pytest.raises(TypeError) as caught:
        call(fields)
    message = str(caught.value)
    assert "'x-count'" in message
    assert f"must be str or bytes, not {type(value).__name__}" in message


def test_a_failed_extend_or_update_changes_nothing() -> None:
    headers = MutableHeaders([("a", "1")])
    for change in (headers.extend, headers.update):
        with pytest.raises(TypeError):
            change([("b", "2"), ("c", None)])  # type: ignore[arg-type]
    assert headers.raw() == [(b"a", b"1")]


@pytest.mark.parametrize(
    "fields",
    [
        "content-type",  # a str is iterable, but its characters are no fields
        b"ab",
        bytearray(b"ab"),
        5,
        object(),
    ],
    ids=["str", "bytes", "bytearray", "int", "object"],
)
@pytest.mark.parametrize(
    "call",
    [
        lambda fields: MutableHeaders(fields),
        lambda fields: MutableHeaders().extend(fields),
        lambda fields: MutableHeaders().update(fields),
        lambda fields: Headers(fields),
    ],
    ids=["MutableHeaders", "extend", "update", "Headers"],
)
def test_what_holds_no_fields_is_refused_as_a_whole(
    call: Callable[[Any], object], fields: object
) -> None:
    with pytest.raises(TypeError, match=r"header fields must be a mapping or an iterable of"):
        call(fields)


@pytest.mark.parametrize(
    "field",
    [("x-a", "1", "2"), ("x-a",), "ab", b"ab", 7],
    ids=["three", "one", "str", "bytes", "int"],
)
@pytest.mark.parametrize(
    "call",
    [
        lambda fields: MutableHeaders(fields),
        lambda fields: MutableHeaders().extend(fields),
        lambda fields: MutableHeaders().update(fields),
        lambda fields: Headers(fields),
    ],
    ids=["MutableHeaders", "extend", "update", "Headers"],
)
def test_a_field_that_is_not_a_pair_is_refused(
    call: Callable[[Any], object], field: object
) -> None:
    # A two-character str used to unpack into a name and a value and be accepted.
    with pytest.raises(TypeError, match=r"a header field must be a \(name, value\) pair, not"):
        call([field])


def test_a_later_field_that_is_not_a_pair_is_refused_by_mutable_headers() -> None:
    for call in (MutableHeaders, MutableHeaders().extend, MutableHeaders().update):
        with pytest.raises(TypeError, match="pair, not str"):
            call([("x-a", "1"), "xy"])  # type: ignore[arg-type]


def test_pairs_of_any_two_item_sequence_stay_accepted() -> None:
    assert MutableHeaders([["X-A", "1"]]).raw() == [(b"x-a", b"1")]  # type: ignore[arg-type]
    assert Headers([["x-a", "1"]]).get("X-A") == "1"  # type: ignore[arg-type]
    assert Headers(iter([("x-a", "1")])).get("x-a") == "1"
    assert Headers(((b"x-a", b"1"),)).get("x-a") == "1"


def test_a_long_wrong_value_is_shortened_in_the_message() -> None:
    with pytest.raises(TypeError) as caught:
        MutableHeaders().add("x", ["y" * 500])  # type: ignore[arg-type]
    assert len(str(caught.value)) < 250
    assert "...)" in str(caught.value)


# -- dump_options_header ------------------------------------------------------------------


@pytest.mark.parametrize("value", NOT_TEXT, ids=repr)
def test_dump_options_header_refuses_a_parameter_value_that_is_not_text(value: object) -> None:
    with pytest.raises(TypeError) as caught:
        dump_options_header("attachment", {"filename": value})  # type: ignore[dict-item]
    message = str(caught.value)
    assert "parameter 'filename'" in message
    assert f"needs a str value, not {type(value).__name__}" in message


@pytest.mark.parametrize("value", [None, 5, b"text/html"], ids=repr)
def test_dump_options_header_refuses_a_value_that_is_not_text(value: object) -> None:
    with pytest.raises(TypeError, match=f"needs a str value, not {type(value).__name__}"):
        dump_options_header(value, {})  # type: ignore[arg-type]


def test_dump_options_header_refuses_a_parameter_name_that_is_not_text() -> None:
    with pytest.raises(TypeError, match=r"needs str parameter names, not int \(1\)"):
        dump_options_header("text/plain", {1: "x"})  # type: ignore[dict-item]


_PARAM_NAME = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)


@given(
    value=st.from_regex(r"[a-z]{1,8}/[a-z]{1,8}", fullmatch=True),
    params=st.dictionaries(
        _PARAM_NAME, st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF)), max_size=4
    ),
)
def test_dump_then_parse_options_round_trips(value: str, params: dict[str, str]) -> None:
    header = dump_options_header(value, params)
    assert parse_options_header(header) == (value, params)
    # What dump_options_header writes is a value MutableHeaders accepts.
    assert MutableHeaders({"content-type": header}).get("content-type") == header


_ANYTHING = st.one_of(
    st.text(max_size=8),
    st.binary(max_size=8),
    st.integers(),
    st.none(),
    st.lists(st.text(max_size=2), max_size=2),
)


@given(
    fields=st.lists(
        st.one_of(st.tuples(_ANYTHING, _ANYTHING), _ANYTHING, st.tuples(_ANYTHING)), max_size=4
    )
)
def test_arbitrary_fields_are_taken_or_refused_at_the_call(fields: list[Any]) -> None:
    # Whatever is given, MutableHeaders either holds checked fields or raises a TypeError
    # or a HeaderValueError (a ValueError) at once: never anything else, never later.
    try:
        headers = MutableHeaders(fields)
    except (TypeError, ValueError):
        return
    assert all(isinstance(n, bytes) and isinstance(v, bytes) for n, v in headers.raw())
    assert headers.items() == [(n.decode("latin-1"), v.decode("latin-1")) for n, v in headers.raw()]
