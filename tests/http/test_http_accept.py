"""Accept, Accept-Language, Accept-Charset and Accept-Encoding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.http import (
    Accept,
    CharsetAccept,
    EncodingAccept,
    LanguageAccept,
    MIMEAccept,
    parse_accept_header,
)

FIREFOX = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
CHROME = (
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
    "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
)
JAVA = "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2"
# RFC 9110 §12.5.1's example.
RFC_ACCEPT = (
    "text/*;q=0.3, text/plain;q=0.7, text/plain;format=flowed,"
    " text/plain;format=fixed;q=0.4, */*;q=0.5"
)


def test_parse_keeps_values_and_sorts_best_first() -> None:
    accept = parse_accept_header(FIREFOX, MIMEAccept)
    assert list(accept) == [
        ("text/html", 1.0),
        ("application/xhtml+xml", 1.0),
        ("image/avif", 1.0),
        ("image/webp", 1.0),
        ("application/xml", 0.9),
        ("*/*", 0.8),
    ]
    assert len(accept) == 6
    assert accept.best == "text/html"
    assert repr(accept).startswith("MIMEAccept([('text/html', 1.0)")


@pytest.mark.parametrize(
    ("offer", "quality"),
    [
        ("text/plain;format=flowed", 1.0),
        ("text/plain", 0.7),
        ("text/html", 0.3),
        ("image/jpeg", 0.5),
        ("text/plain;format=fixed", 0.4),
        ("text/html;level=3", 0.3),
        ("Text/Plain; Format=Flowed", 1.0),
        ("nonsense", 0.0),
        ("*/html", 0.0),
        ("/", 0.0),
    ],
)
def test_rfc_9110_media_range_precedence(offer: str, quality: float) -> None:
    assert parse_accept_header(RFC_ACCEPT, MIMEAccept).quality(offer) == quality


@pytest.mark.parametrize(
    ("header", "offers", "expected"),
    [
        (FIREFOX, ["application/json", "text/html"], "text/html"),
        (FIREFOX, ["application/json", "application/xml"], "application/xml"),
        (FIREFOX, ["application/json"], "application/json"),
        (CHROME, ["application/signed-exchange;v=b3", "image/png"], "image/png"),
        ("application/json", ["text/html"], None),
        ("text/*, text/html", ["text/plain", "text/html"], "text/html"),
        ("text/*, */*", ["image/png", "text/plain"], "text/plain"),
        ("text/html;q=0, */*", ["text/html", "text/plain"], "text/plain"),
        ("text/html;q=0", ["text/html"], None),
        ("*/*;q=0", ["text/html"], None),
        (JAVA, ["application/json"], "application/json"),
        (JAVA, ["application/json", "image/gif"], "image/gif"),
        ("text/html;level=1", ["text/html", "text/html;level=1"], "text/html;level=1"),
        ('text/html;charset="UTF-8"', ["text/html; charset=utf-8"], "text/html; charset=utf-8"),
        (None, ["application/json", "text/html"], "application/json"),
        ("", ["text/html"], "text/html"),
        ("garbage", ["text/html"], "text/html"),
        (None, ["not a type", "text/html"], "text/html"),
        ("*/*", [], None),
        ("text/html;flag", ["text/html"], "text/html"),
    ],
)
def test_mime_best_match(header: str | None, offers: list[str], expected: str | None) -> None:
    assert parse_accept_header(header, MIMEAccept).best_match(offers) == expected


def test_best_match_default() -> None:
    accept = parse_accept_header("application/json", MIMEAccept)
    assert accept.best_match(["text/html"], default="text/plain") == "text/plain"
    assert accept.best_match(["application/json"], default="text/plain") == "application/json"


@pytest.mark.parametrize(
    ("header", "items"),
    [
        ("a;q=0.5;ext=1, b;q=1.0, c;q=0.123456", [("b", 1.0), ("a", 0.5)]),
        ("a;q=1.5, b;q=x, c;q=, d;q=.", []),
        ("a;q=0.0001", [("a", 0.0)]),
        ("a ; Q=0.5", [("a", 0.5)]),
        (";q=1, , a", [("a", 1.0)]),
        ('"a, b";q=0.5', [('"a, b"', 0.5)]),
        ("a;x=1;q=0.5", [("a;x=1", 0.5)]),
    ],
)
def test_weights(header: str, items: list[tuple[str, float]]) -> None:
    assert list(parse_accept_header(header)) == items


def test_empty_accept_accepts_everything() -> None:
    accept = parse_accept_header(None)
    assert not accept
    assert accept.quality("anything") == 1.0
    assert "anything" in accept
    assert accept.best is None
    assert accept.to_header() == ""


def test_contains_and_best() -> None:
    accept = parse_accept_header("a, b;q=0")
    assert "a" in accept
    assert "A" in accept
    assert "b" not in accept
    assert "c" not in accept
    assert 1 not in accept
    assert parse_accept_header("b;q=0").best is None


def test_plain_accept_wildcard() -> None:
    accept = parse_accept_header("gzip;q=0.5, *;q=0.1")
    assert accept.quality("gzip") == 0.5
    assert accept.quality("zstd") == 0.1


@pytest.mark.parametrize(
    ("header", "offers", "expected"),
    [
        ("en-US,en;q=0.5", ["de", "en-GB"], "en-GB"),
        ("en-US,en;q=0.5", ["en-GB", "en-US"], "en-US"),
        ("en-US,en;q=0.5", ["en"], "en"),
        # RFC 4647 §3.4 lookup: "en-US" falls back to "en", never to a sibling.
        ("en-US", ["en"], "en"),
        ("en-US", ["en-GB"], None),
        ("EN", ["en-us"], "en-us"),
        ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", ["ja", "de"], "de"),
        ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", ["ja"], "ja"),
        ("de-de", ["de_DE"], "de_DE"),
        ("en", ["english"], None),
        ("zh-Hant;q=0.9, zh;q=0.5", ["zh-Hant-TW", "zh-CN"], "zh-Hant-TW"),
    ],
)
def test_language_basic_filtering(header: str, offers: list[str], expected: str | None) -> None:
    assert parse_accept_header(header, LanguageAccept).best_match(offers) == expected


def test_language_more_specific_range_wins() -> None:
    accept = parse_accept_header("en;q=0.5, en-gb;q=0.9", LanguageAccept)
    assert accept.quality("en-GB-oxendict") == 0.9
    assert accept.quality("en-US") == 0.5


@pytest.mark.parametrize(
    ("header", "offer", "quality"),
    [
        ("utf-8, iso-8859-1;q=0.5", "UTF8", 1.0),
        ("utf-8, iso-8859-1;q=0.5", "latin-1", 0.5),
        ("utf-8, *;q=0.1", "koi8-r", 0.1),
        ("x-unknown", "X-Unknown", 1.0),
        ("utf-8", "ascii", 0.0),
        ("Shift_JIS", "sjis", 1.0),
        ("\x00", "\x00", 1.0),
    ],
)
def test_charsets_compare_by_codec(header: str, offer: str, quality: float) -> None:
    assert parse_accept_header(header, CharsetAccept).quality(offer) == quality


@pytest.mark.parametrize(
    ("header", "offer", "quality"),
    [
        ("gzip, deflate, br, zstd", "br", 1.0),
        ("gzip, deflate, br, zstd", "identity", 0.001),
        ("gzip;q=0.5", "x-gzip", 0.5),
        ("x-gzip", "gzip", 1.0),
        ("identity;q=0", "identity", 0.0),
        ("*;q=0", "identity", 0.0),
        ("*;q=0, identity", "identity", 1.0),
        ("gzip", "compress", 0.0),
        ("", "identity", 1.0),
        ("", "gzip", 0.0),
        (" ", "gzip", 0.0),
        # Empty list elements (two empty field lines joined) or only invalid ones say no
        # more than an empty value: identity only, never "anything".
        (",", "gzip", 0.0),
        (",", "identity", 1.0),
        (" , ,\t", "br", 0.0),
        ("gzip;q=2", "gzip", 0.0),
        ("gzip;q=2", "identity", 1.0),
        (None, "gzip", 1.0),
    ],
)
def test_encoding_identity_rule(header: str | None, offer: str, quality: float) -> None:
    assert parse_accept_header(header, EncodingAccept).quality(offer) == quality


def test_encoding_prefers_listed_codings_over_identity() -> None:
    accept = parse_accept_header("gzip;q=0.2", EncodingAccept)
    assert accept.best_match(["identity", "gzip"]) == "gzip"
    assert accept.best_match(["identity", "br"]) == "identity"


def test_equality_and_to_header() -> None:
    accept = parse_accept_header("a;q=0.5, b", MIMEAccept)
    assert accept == MIMEAccept([("b", 1.0), ("a", 0.5)])
    assert accept != Accept([("b", 1.0), ("a", 0.5)])
    assert accept != "a"
    assert hash(accept) == hash(MIMEAccept([("b", 1.0), ("a", 0.5)]))
    assert parse_accept_header("text/html;q=0.5, */*").to_header() == "*/*, text/html;q=0.5"


CLASSES = [Accept, MIMEAccept, LanguageAccept, CharsetAccept, EncodingAccept]


@given(text=st.text(), offers=st.lists(st.text(max_size=20), max_size=4), index=st.integers(0, 4))
def test_arbitrary_headers_and_offers_never_raise(text: str, offers: list[str], index: int) -> None:
    accept = parse_accept_header(text, CLASSES[index])
    result = accept.best_match(offers)
    assert result is None or result in offers
    assert all(0 <= quality <= 1 for _, quality in accept)


@given(
    items=st.lists(
        st.tuples(
            st.from_regex(r"[a-z]{1,8}/[a-z]{1,8}", fullmatch=True),
            st.integers(0, 1000).map(lambda n: n / 1000),
        ),
        max_size=6,
    )
)
def test_to_header_round_trip(items: list[tuple[str, float]]) -> None:
    accept = MIMEAccept(items)
    assert parse_accept_header(accept.to_header(), MIMEAccept) == accept


def test_long_header_parses() -> None:
    header = ", ".join(f"type{i}/sub;q=0.{i % 10}" for i in range(5_000))
    assert len(parse_accept_header(header, MIMEAccept)) == 5_000


def test_long_media_ranges_match() -> None:
    subtype = "vnd." + "x" * 200
    accept = parse_accept_header(f"application/{subtype};q=0.5", MIMEAccept)
    assert accept.quality(f"application/{subtype}") == 0.5
    assert accept.quality("application/json") == 0.0


@given(
    value=st.lists(
        st.sampled_from(["", " ", "\t", "gzip;q=2", "br;q=x", "*;q=-1", "deflate;q=1.0001"]),
        min_size=1,
    ).map(",".join)
)
def test_an_accept_encoding_without_a_valid_item_means_identity_only(value: str) -> None:
    accept = parse_accept_header(value, EncodingAccept)
    assert accept.quality("identity") == 1.0
    assert accept.best_match(["br", "gzip", "deflate", "identity"]) == "identity"
