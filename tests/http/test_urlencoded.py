from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sansio_http import parse_urlencoded


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param("", [], id="empty"),
        pytest.param("a=1&b=2", [("a", "1"), ("b", "2")], id="plain"),
        pytest.param("a=1&a=2", [("a", "1"), ("a", "2")], id="repeated names in order"),
        pytest.param("&&a=1&&&b=2&", [("a", "1"), ("b", "2")], id="empty pieces skipped"),
        pytest.param("flag&x=", [("flag", ""), ("x", "")], id="no = gives empty value"),
        pytest.param("=v&=", [("", "v"), ("", "")], id="empty name kept"),
        pytest.param("a=b=c", [("a", "b=c")], id="first = splits"),
        pytest.param("a=1;b=2", [("a", "1;b=2")], id="semicolon is not a separator"),
        pytest.param("q=a+b&c+d=", [("q", "a b"), ("c d", "")], id="plus is space"),
        pytest.param("p=1%2B1%3D2", [("p", "1+1=2")], id="escaped plus and equals"),
        pytest.param("x=%26&y=%3d", [("x", "&"), ("y", "=")], id="escaped separators"),
        pytest.param("e=caf%C3%A9&E=caf%c3%a9", [("e", "café"), ("E", "café")], id="utf-8"),
        pytest.param("a=100%&b=%zz&c=%4", [("a", "100%"), ("b", "%zz"), ("c", "%4")], id="bad %"),
        pytest.param("a=%%41", [("a", "%A")], id="percent before an escape"),
        pytest.param("a=%ff&b=%C3", [("a", "\ufffd"), ("b", "\ufffd")], id="invalid utf-8"),
        pytest.param("a=%C3%28", [("a", "\ufffd(")], id="bad continuation"),
        pytest.param("a=%F0%9F%98%80", [("a", "😀")], id="astral"),
        pytest.param("a=%00b&c=\x00", [("a", "\x00b"), ("c", "\x00")], id="nul"),
        pytest.param("é=ü", [("é", "ü")], id="raw non-ascii text"),
        pytest.param("a=%C3é", [("a", "\ufffdé")], id="lone lead byte then raw text"),
        pytest.param("a=\ud800&b=\ud83d\ude00", [("a", "\ufffd"), ("b", "😀")], id="surrogates"),
    ],
)
def test_decoding_rules(data: str, expected: list[tuple[str, str]]) -> None:
    assert parse_urlencoded(data) == expected
    if data.isascii():
        assert parse_urlencoded(data.encode("ascii")) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(b"a=\xff", [("a", "\ufffd")], id="invalid raw byte"),
        pytest.param(b"a=\xc3%A9", [("a", "é")], id="raw lead byte with escaped continuation"),
        pytest.param(b"a=%C3\xa9&b=\xe9", [("a", "é"), ("b", "\ufffd")], id="escape then raw"),
        pytest.param(b"a=\xc3\xa9+%21", [("a", "é !")], id="raw utf-8"),
        pytest.param(b"a=\xf0\x9f&b=1", [("a", "\ufffd"), ("b", "1")], id="cut sequence"),
        pytest.param(b"a=\xf0\x9f\x00&b", [("a", "\ufffd\x00"), ("b", "")], id="cut before nul"),
    ],
)
def test_bytes_are_decoded_after_unescaping(data: bytes, expected: list[tuple[str, str]]) -> None:
    assert parse_urlencoded(data) == expected


text_pairs = st.lists(st.tuples(st.text(), st.text()), max_size=8)


@given(pairs=text_pairs)
@example(pairs=[("a&b=c", "d+e%20f"), ("", ""), ("\x00", "%00")])
def test_round_trip_whatever_the_text(pairs: list[tuple[str, str]]) -> None:
    encoded = urlencode(pairs)
    assert parse_urlencoded(encoded) == pairs
    assert parse_urlencoded(encoded.encode("ascii")) == pairs


@given(pairs=text_pairs)
def test_round_trip_with_percent_encoded_spaces(pairs: list[tuple[str, str]]) -> None:
    assert parse_urlencoded(urlencode(pairs, quote_via=quote)) == pairs


@given(data=st.binary())
def test_any_bytes_decode_without_error(data: bytes) -> None:
    pairs = parse_urlencoded(data)
    assert all(isinstance(n, str) and isinstance(v, str) for n, v in pairs)
    assert len(pairs) == len([piece for piece in data.split(b"&") if piece])


@given(data=st.text())
def test_any_text_decodes_like_its_utf8(data: str) -> None:
    assert parse_urlencoded(data) == parse_urlencoded(data.encode("utf-8"))


@given(data=st.text(alphabet=st.one_of(st.characters(categories=["Cs"]), st.sampled_from("a=&%+"))))
def test_text_with_lone_surrogates_decodes_to_valid_text(data: str) -> None:
    for name, value in parse_urlencoded(data):
        # Encoding strictly fails on any surrogate left in the output.
        name.encode("utf-8")
        value.encode("utf-8")


def _percent_decode(data: bytes) -> bytes:
    """Percent-decode as the WHATWG URL Standard spells it out, one byte at a time."""
    hexdigits = b"0123456789abcdefABCDEF"
    out = bytearray()
    i = 0
    while i < len(data):
        if (
            data[i] == 0x25
            and i + 2 < len(data)
            and all(c in hexdigits for c in data[i + 1 : i + 3])
        ):
            out.append(int(data[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(data[i])
            i += 1
    return bytes(out)


def _reference(data: bytes) -> list[tuple[str, str]]:
    pairs = []
    for piece in data.split(b"&"):
        if piece:
            name, _, value = piece.partition(b"=")
            pairs.append(
                (
                    _percent_decode(name.replace(b"+", b" ")).decode("utf-8", "replace"),
                    _percent_decode(value.replace(b"+", b" ")).decode("utf-8", "replace"),
                )
            )
    return pairs


pieces = st.sampled_from(
    [
        b"a",
        b"=",
        b"&",
        b"+",
        b"%",
        b"%2",
        b"%00",
        b"%C3",
        b"%a9",
        b"%F0%9F",
        b"\xc3",
        b"\xa9",
        b"\x00",
    ]
)


@given(data=st.one_of(st.binary(), st.lists(pieces, max_size=16).map(b"".join)))
def test_agrees_with_a_literal_reading_of_the_standard(data: bytes) -> None:
    assert parse_urlencoded(data) == _reference(data)
