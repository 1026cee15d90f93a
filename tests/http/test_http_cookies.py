"""The Cookie request header."""

from __future__ import annotations

from http.cookies import SimpleCookie

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.http import parse_cookie


@pytest.mark.parametrize(
    ("header", "pairs"),
    [
        (None, []),
        ("", []),
        ("SID=31d4d96e407aad42", [("SID", "31d4d96e407aad42")]),
        # RFC 6265 §5.4's example.
        ("SID=31d4d96e407aad42; lang=en-US", [("SID", "31d4d96e407aad42"), ("lang", "en-US")]),
        ("a=1; a=2; b=3", [("a", "1"), ("a", "2"), ("b", "3")]),
        ("  a = 1 ;b=;;  ; c", [("a", "1"), ("b", "")]),
        ("=novalue; junk; d=4", [("d", "4")]),
        ("token=abc==; x=a=b", [("token", "abc=="), ("x", "a=b")]),
        ('q="hello world"', [("q", "hello world")]),
        ('q="a\\"b\\\\c"', [("q", 'a"b\\c')]),
        ('q="\\351t\\351"', [("q", "\u00e9t\u00e9")]),
        ('q="\\303\\251"', [("q", "\u00e9")]),
        ("a=\xa0x\x85", [("a", "\xa0x\x85")]),
        ('q="\\8"', [("q", "8")]),
        ('q="', [("q", '"')]),
        ('q=""', [("q", "")]),
        ('q="a"b', [("q", '"a"b')]),
        ("n=\u00c3\u00a9", [("n", "\u00e9")]),
        ("\u00c3\u00a9=1", [("\u00e9", "1")]),
        ("n=\u00e9", [("n", "\u00e9")]),
        ("n=\u20ac", [("n", "\u20ac")]),
        (
            "_ga=GA1.1.1234.5678; _gid=GA1.2.9.1; csrftoken=Xyz; sessionid=abc; theme=dark;"
            ' prefs="{\\"a\\":1}"',
            [
                ("_ga", "GA1.1.1234.5678"),
                ("_gid", "GA1.2.9.1"),
                ("csrftoken", "Xyz"),
                ("sessionid", "abc"),
                ("theme", "dark"),
                ("prefs", '{"a":1}'),
            ],
        ),
    ],
)
def test_parse_cookie(header: str | None, pairs: list[tuple[str, str]]) -> None:
    assert parse_cookie(header) == pairs


@given(
    st.dictionaries(
        st.from_regex(r"[A-Za-z0-9_]{1,10}", fullmatch=True),
        st.text(st.characters(max_codepoint=0x7F), max_size=20),
        max_size=6,
    )
)
def test_reads_what_http_cookies_writes(cookies: dict[str, str]) -> None:
    jar: SimpleCookie = SimpleCookie()
    for name, value in cookies.items():
        jar[name] = value
    header = "; ".join(morsel.OutputString() for morsel in jar.values())
    assert dict(parse_cookie(header)) == cookies


@given(st.text())
def test_arbitrary_text_never_raises(text: str) -> None:
    for name, value in parse_cookie(text):
        assert name
        assert isinstance(value, str)


def test_long_header_parses() -> None:
    assert len(parse_cookie("a=1; " * 20_000)) == 20_000
    assert parse_cookie('a="' + "\\" * 100_001 + '"') == [("a", "\\" * 50_001)]
