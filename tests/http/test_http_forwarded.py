"""The RFC 7239 Forwarded header."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.http import parse_forwarded


@pytest.mark.parametrize(
    ("header", "elements"),
    [
        (None, []),
        ("", []),
        # RFC 7239 §4 and §7 examples.
        ('for="_gazonk"', [{"for": "_gazonk"}]),
        ('For="[2001:db8:cafe::17]:4711"', [{"for": "[2001:db8:cafe::17]:4711"}]),
        (
            "for=192.0.2.60;proto=http;by=203.0.113.43",
            [{"for": "192.0.2.60", "proto": "http", "by": "203.0.113.43"}],
        ),
        ("for=192.0.2.43, for=198.51.100.17", [{"for": "192.0.2.43"}, {"for": "198.51.100.17"}]),
        ("for=unknown;host=example.com", [{"for": "unknown", "host": "example.com"}]),
        ('for="a\\"b\\c"', [{"for": 'a"bc'}]),
        ('for="x,y;z=1"', [{"for": "x,y;z=1"}]),
        (" , for=a ;; , ;", [{"for": "a"}]),
        ("ext=1", [{"ext": "1"}]),
    ],
)
def test_parse_forwarded(header: str | None, elements: list[dict[str, str]]) -> None:
    assert parse_forwarded(header) == elements


@pytest.mark.parametrize(
    "header",
    [
        "for=[2001:db8::1]",
        "for",
        "for=",
        "=a",
        "for = a",
        "for=a;For=b",
        'for="unterminated',
        'for="a"b',
        "for=a, by",
        "f\u00f6r=a",
        "for=a b",
    ],
)
def test_malformed_header_gives_empty_list(header: str) -> None:
    assert parse_forwarded(header) == []


NAME = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=16)


@given(st.lists(st.dictionaries(NAME, VALUE, min_size=1, max_size=4), max_size=4))
def test_round_trip(elements: list[dict[str, str]]) -> None:
    header = ", ".join(
        ";".join(
            f'{name}="' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
            for name, text in element.items()
        )
        for element in elements
    )
    assert parse_forwarded(header) == elements


@given(st.text())
def test_arbitrary_text_never_raises(text: str) -> None:
    for element in parse_forwarded(text):
        assert element
        assert all(name == name.lower() for name in element)


def test_long_values_parse() -> None:
    assert len(parse_forwarded("for=a, " * 20_000)) == 20_000
    assert parse_forwarded('for="' + "\\" * 100_001) == []
