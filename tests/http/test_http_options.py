"""Values with parameters, list headers and dict headers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.http import (
    dump_options_header,
    parse_dict_header,
    parse_list_header,
    parse_options_header,
)

TOKEN = st.text(
    alphabet="!#$%&'+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12
)
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, ("", {})),
        ("", ("", {})),
        ("text/html", ("text/html", {})),
        ("Text/HTML; Charset=UTF-8", ("text/html", {"charset": "UTF-8"})),
        ('text/plain; charset="utf-8"', ("text/plain", {"charset": "utf-8"})),
        # RFC 9110 §8.3.1: these three are equivalent.
        ('text/html;charset="utf-8"', ("text/html", {"charset": "utf-8"})),
        ("text/html ; charset=utf-8 ", ("text/html", {"charset": "utf-8"})),
        (
            'multipart/form-data; boundary="----WebKitFormBoundary7MA4YWxkTrZu0gW"',
            ("multipart/form-data", {"boundary": "----WebKitFormBoundary7MA4YWxkTrZu0gW"}),
        ),
        ('form-data; name="a;b=c"; x=1', ("form-data", {"name": "a;b=c", "x": "1"})),
        (r'a; q="say \"hi\" \\ there"', ("a", {"q": 'say "hi" \\ there'})),
        # Browsers leave backslashes raw in form-data filenames (WHATWG).
        (r'form-data; filename="C:\dir\a.txt"', ("form-data", {"filename": r"C:\dir\a.txt"})),
        ('a; b="unterminated; c=d', ("a", {"b": "unterminated; c=d"})),
        ('a; b="x"junk', ("a", {"b": "x"})),
        ("a; b=1; b=2", ("a", {"b": "1"})),
        ("a; flag; =x; b=2", ("a", {"b": "2"})),
        ("a;;; b=2;", ("a", {"b": "2"})),
        # RFC 8187 §3.2.2 examples.
        (
            "attachment; filename*=UTF-8''%e2%82%ac%20rates",
            ("attachment", {"filename*": "\u20ac rates"}),
        ),
        (
            "attachment; filename*=iso-8859-1'en'%A3%20rates",
            ("attachment", {"filename*": "\u00a3 rates"}),
        ),
        (
            "attachment; filename=\"EURO rates\"; filename*=utf-8''%e2%82%ac%20rates",
            ("attachment", {"filename": "EURO rates", "filename*": "\u20ac rates"}),
        ),
        (
            "a; title*=us-ascii'en-us'This%20is%20%2A%2A%2Afun%2A%2A%2A",
            ("a", {"title*": "This is ***fun***"}),
        ),
        ("a; t*=\"UTF-8''%C3%A9\"", ("a", {"t*": "\u00e9"})),
        ("a; t*=UTF-8''%FF", ("a", {"t*": "\ufffd"})),
        ("a; t*=utf-7''x", ("a", {})),
        ("a; t*=Latin_1''%E9", ("a", {"t*": "\u00e9"})),
        ("a; t*=\x00''x", ("a", {})),
        ("a; t*=unicode_escape''x", ("a", {})),
        ("a; t*=no-such-charset''x", ("a", {})),
        ("a; t*=UTF-8", ("a", {})),
        ("a; t*=UTF-8'x", ("a", {})),
        # RFC 2231 §3 and §4.1 continuations.
        (
            'message/external-body; URL*0="ftp://"; URL*1="cs.utk.edu/pub"',
            ("message/external-body", {"url": "ftp://cs.utk.edu/pub"}),
        ),
        (
            "a; title*0*=us-ascii'en'This%20is%20even%20more%20; title*1*=%2A%2A%2Afun%2A%2A%2A%20;"
            ' title*2="isn\'t it!"',
            ("a", {"title*": "This is even more ***fun*** isn't it!"}),
        ),
        ("a; n*0*=UTF-8''%C3; n*1*=%A9", ("a", {"n*": "\u00e9"})),
        ("a; n*0=x; n*1*=%C3%A9", ("a", {"n": "x\u00e9"})),
        ("a; n*1=late", ("a", {})),
        ("a; n*0=a; n*2=gap", ("a", {"n": "a"})),
        ("a; n*0*=bad''x", ("a", {})),
        ("a; n*0=x; n=y", ("a", {"n": "y"})),
        ("a; n*1000=x; n*0=y", ("a", {"n": "y"})),
        ("a; *0=x; a*b=y; n*\u0661=z", ("a", {"*0": "x", "a*b": "y", "n*\u0661": "z"})),
    ],
)
def test_parse_options_header(header: str | None, expected: tuple[str, dict[str, str]]) -> None:
    assert parse_options_header(header) == expected


@pytest.mark.parametrize(
    ("value", "params", "expected"),
    [
        ("text/html", {}, "text/html"),
        ("text/html", {"charset": "utf-8"}, "text/html; charset=utf-8"),
        ("attachment", {"filename": "a b.txt"}, 'attachment; filename="a b.txt"'),
        ("a", {"b": 'x"y\\z'}, 'a; b="x\\"y\\\\z"'),
        ("a", {"b": ""}, 'a; b=""'),
        (
            "attachment",
            {"filename*": "\u20ac rates"},
            "attachment; filename*=UTF-8''%E2%82%AC%20rates",
        ),
        ("a", {"b*": "!#$&+^`|~-._"}, "a; b*=UTF-8''!#$&+^`|~-._"),
    ],
)
def test_dump_options_header(value: str, params: dict[str, str], expected: str) -> None:
    assert dump_options_header(value, params) == expected


@pytest.mark.parametrize("name", ["", "a b", "a=b", "é"])
def test_dump_options_header_refuses_bad_names(name: str) -> None:
    with pytest.raises(ValueError, match="not a token"):
        dump_options_header("a", {name: "x"})


def test_dump_options_header_refuses_lone_surrogate() -> None:
    with pytest.raises(ValueError, match="surrogate"):
        dump_options_header("a", {"b*": "\ud800"})


@given(
    value=TOKEN,
    params=st.dictionaries(
        st.tuples(st.from_regex(r"[a-z][a-z0-9_.-]{0,8}", fullmatch=True), st.booleans()).map(
            lambda pair: pair[0] + ("*" if pair[1] else "")
        ),
        TEXT,
        max_size=6,
    ),
)
def test_options_header_round_trip(value: str, params: dict[str, str]) -> None:
    assert parse_options_header(dump_options_header(value, params)) == (value, params)


@given(st.text())
def test_parse_options_header_never_raises(text: str) -> None:
    value, params = parse_options_header(text)
    assert isinstance(value, str)
    assert all(isinstance(item, str) for pair in params.items() for item in pair)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, []),
        ("", []),
        (
            "203.0.113.195, 70.41.3.18 , 150.172.238.178",
            ["203.0.113.195", "70.41.3.18", "150.172.238.178"],
        ),
        ('a, "b, c", , d', ["a", "b, c", "d"]),
        (r'"x\"y"', ['x"y']),
        (" , ,", []),
    ],
)
def test_parse_list_header(header: str | None, expected: list[str]) -> None:
    assert parse_list_header(header) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, {}),
        ("", {}),
        ('realm="x, y", Nonce=abc, stale', {"realm": "x, y", "Nonce": "abc", "stale": None}),
        ("a=1, a=2, =3, , b =  2 ", {"a": "1", "b": "2"}),
    ],
)
def test_parse_dict_header(header: str | None, expected: dict[str, str | None]) -> None:
    assert parse_dict_header(header) == expected


@given(st.lists(TEXT, max_size=6))
def test_list_header_round_trip(items: list[str]) -> None:
    kept = [item for item in items if item.strip() == item and item]
    header = ", ".join('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"' for item in kept)
    assert parse_list_header(header) == kept


@given(st.text())
def test_list_and_dict_headers_never_raise(text: str) -> None:
    assert all(isinstance(item, str) for item in parse_list_header(text))
    assert all(isinstance(key, str) for key in parse_dict_header(text))


@pytest.mark.parametrize(
    "header", ['"' * 50_000, '"\\' * 50_000, "a;" * 50_000, 'a="' + "\\" * 50_000]
)
def test_long_values_parse(header: str) -> None:
    parse_options_header(header)
    parse_list_header(header)
    parse_dict_header(header)


@given(
    pairs=st.lists(
        st.tuples(st.sampled_from(["a", "B", "b", "charset", "boundary"]), TOKEN), max_size=8
    )
)
def test_repeated_names_are_listed_and_the_first_wins(pairs: list[tuple[str, str]]) -> None:
    header = "; ".join(["multipart/form-data", *(f"{name}={value}" for name, value in pairs)])
    _, params = parse_options_header(header)
    names = [name.lower() for name, _ in pairs]
    assert params.repeated == {name for name in names if names.count(name) > 1}
    first: dict[str, str] = {}
    for name, value in pairs:
        first.setdefault(name.lower(), value)
    assert params == first
