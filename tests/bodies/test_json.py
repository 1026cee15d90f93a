from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.bodies._json import decode_json
from sansio_http.messages._errors import BadRequest


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b'{"a": [1, 2.5, "caf\\u00e9", null, true]}', {"a": [1, 2.5, "café", None, True]}),
        ('{"é": 1}'.encode(), {"é": 1}),
        ('{"é": 1}', {"é": 1}),
        ('["✓"]'.encode("utf-8-sig"), ["✓"]),
        ('["✓"]'.encode("utf-16"), ["✓"]),
        ('["✓"]'.encode("utf-16-be").join([b"\xfe\xff", b""]), ["✓"]),
        ('["✓"]'.encode("utf-32"), ["✓"]),
        ('["✓"]'.encode("utf-32-be").join([b"\x00\x00\xfe\xff", b""]), ["✓"]),
    ],
)
def test_decode(data: bytes | str, value: Any) -> None:
    assert decode_json(data) == value


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not valid JSON: Expecting value at line 1 column 1"),
        (b'{"a":}', "not valid JSON"),
        (b"[1,]", "not valid JSON"),
        (b'"\xff"', "not valid UTF-8"),
        (b'"\xed\xa0\x80"', "not valid UTF-8"),  # an encoded surrogate
        (b"\xff\xfe\x00", "not valid UTF-16-LE"),
        (b"[" * 100_000, "nested too deeply"),
        (b'{"a":' * 100_000, "nested too deeply"),
        (b"1" * 5000, "cannot be decoded"),
        (b"NaN", "NaN is not a JSON value"),
        (b"[Infinity]", "Infinity is not a JSON value"),
        ("\ufeff[1]".encode("utf-8-sig"), "not valid JSON"),
    ],
)
def test_every_failure_is_a_400(data: bytes, message: str) -> None:
    with pytest.raises(BadRequest, match=message) as info:
        decode_json(data)
    assert info.value.status == 400


def test_loads_hook() -> None:
    seen: list[str] = []

    def loads(text: str) -> Any:
        seen.append(text)
        return json.loads(text)

    assert decode_json(b"NaN", loads=loads) != 0
    assert seen == ["NaN"]


def test_loads_hook_errors_are_400s() -> None:
    def loads(text: str) -> Any:
        raise ValueError("nope")

    with pytest.raises(BadRequest, match="nope"):
        decode_json(b"{}", loads=loads)


@given(st.binary(max_size=64))
def test_arbitrary_bytes_raise_only_bad_request(data: bytes) -> None:
    try:
        decode_json(data)
    except BadRequest:
        pass


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=10,
    )
)
def test_round_trip(value: Any) -> None:
    assert decode_json(json.dumps(value).encode()) == value
    assert decode_json(json.dumps(value, ensure_ascii=False).encode("utf-16")) == value
