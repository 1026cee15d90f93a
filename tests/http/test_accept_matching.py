"""Accept matching: values with parameters, and the RFC 4647 §3.4 language fallback."""

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

# -- a value with parameters rates its own text --------------------------------------------


@pytest.mark.parametrize(
    ("header", "offer", "quality"),
    [
        ("a; b=1", "a; b=1", 1.0),
        ("a;b=1", "a; b=1", 1.0),
        ("a; b=1", "a;b=1", 1.0),
        ("A ; B = 1", "a; b=1", 1.0),
        ('a; b="1"', "a; b=1", 1.0),
        ("a; b=1; c=2", "a; c=2; b=1", 1.0),
        ("a; b=1;q=0.5", "a; b=1", 0.5),
        ("a; b=1, *;q=0.1", "a; b=2", 0.1),
        ("a; b=1", "a", 0.0),
        ("a", "a; b=1", 0.0),
    ],
)
def test_a_value_with_parameters_matches_the_same_text(
    header: str, offer: str, quality: float
) -> None:
    accept = parse_accept_header(header)
    assert accept.quality(offer) == quality
    assert (offer in accept) is (quality > 0)


@pytest.mark.parametrize("cls", [Accept, CharsetAccept, EncodingAccept, LanguageAccept])
def test_every_class_rates_a_value_with_parameters_as_written(cls: type[Accept]) -> None:
    accept = parse_accept_header("x-thing; level=1;q=0.7", cls)
    assert accept.quality("x-thing; level=1") == 0.7
    assert accept.best_match(["other", "x-thing;level=1"]) == "x-thing;level=1"


def test_media_ranges_with_parameters_still_match_by_parameter() -> None:
    accept = parse_accept_header("text/plain; format=flowed", MIMEAccept)
    assert accept.quality("text/plain; format=flowed") == 1.0
    assert accept.quality("text/plain;format=flowed;charset=utf-8") == 1.0
    assert accept.quality("text/plain") == 0.0


_TOKEN = st.from_regex(r"[a-z0-9!#$%&'*+.^_`|~-]{1,8}", fullmatch=True).filter(
    lambda token: token != "*"
)
_PARAM = st.tuples(
    _TOKEN.filter(lambda name: name != "q"), st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True)
)
_BLANK = st.sampled_from(["", " ", "  "])
_QUALITY = st.integers(0, 1000).map(lambda n: n / 1000)


@st.composite
def _spelled(draw: st.DrawFn, value: str, params: list[tuple[str, str]]) -> str:
    """Write a value and its parameters with random blanks, quotes and case."""
    pieces = [value]
    for name, text in params:
        quoted = f'"{text}"' if draw(st.booleans()) else text
        pieces.append(f"{draw(_BLANK)}{name}{draw(_BLANK)}={draw(_BLANK)}{quoted}")
    spelled = ";".join(pieces)
    return spelled.upper() if draw(st.booleans()) else spelled


@given(
    data=st.data(),
    value=_TOKEN,
    params=st.lists(_PARAM, max_size=3, unique_by=lambda param: param[0]),
    quality=_QUALITY,
)
def test_any_spelling_of_a_value_with_parameters_gets_its_quality(
    data: st.DataObject, value: str, params: list[tuple[str, str]], quality: float
) -> None:
    header = f"{data.draw(_spelled(value, params))};q={quality}"
    offer = data.draw(_spelled(value, data.draw(st.permutations(params))))
    accept = parse_accept_header(header)
    assert accept.quality(offer) == quality


@given(
    items=st.lists(
        st.tuples(_TOKEN, st.lists(_PARAM, max_size=2, unique_by=lambda p: p[0]), _QUALITY),
        max_size=6,
        unique_by=lambda item: item[0],
    )
)
def test_each_value_parsed_reports_its_own_quality_and_round_trips(
    items: list[tuple[str, list[tuple[str, str]], float]],
) -> None:
    header = ", ".join(
        ";".join([value, *(f"{name}={text}" for name, text in params)]) + f";q={quality}"
        for value, params, quality in items
    )
    accept = parse_accept_header(header)
    assert len(accept) == len(items)
    for value, quality in accept:
        assert accept.quality(value) == quality
    assert parse_accept_header(accept.to_header()) == accept


@given(text=st.text(max_size=60), offer=st.text(max_size=30))
def test_parameters_in_arbitrary_text_never_raise(text: str, offer: str) -> None:
    for cls in (Accept, LanguageAccept, CharsetAccept, EncodingAccept):
        accept = parse_accept_header(text, cls)
        assert 0 <= accept.quality(offer) <= 1
        assert 0 <= accept.quality(text) <= 1


# -- Accept-Language: the RFC 4647 §3.4 lookup fallback -------------------------------------


@pytest.mark.parametrize(
    ("header", "offer", "quality"),
    [
        ("en-US", "en", 1.0),
        ("en-US;q=0.8", "EN", 0.8),
        ("en_US", "en", 1.0),
        ("de, en-US;q=0.7", "en", 0.7),
        # Lookup compares the shortened range with the offer: no sibling, no longer tag.
        ("en-US", "en-GB", 0.0),
        ("en-US", "e", 0.0),
        ("en-US-x-a", "en-US-x", 0.0),
        ("en-US-x-a", "en-US", 1.0),
        # Each step drops a subtag, and a singleton left at the end goes with it.
        ("zh-Hant-CN-x-private1-private2", "zh-Hant-CN-x-private1", 1.0),
        ("zh-Hant-CN-x-private1-private2", "zh-Hant-CN", 1.0),
        ("zh-Hant-CN-x-private1-private2", "zh-Hant-CN-x", 0.0),
        ("zh-Hant-CN-x-private1-private2", "zh", 1.0),
        # A range that covers the offer decides, even with a lower quality.
        ("en-US, en;q=0.5", "en", 0.5),
        ("en-US, en;q=0", "en", 0.0),
        # Refusing en-US says nothing about en.
        ("en-US;q=0, *;q=0.3", "en", 0.3),
        ("en-US;q=0", "en", 0.0),
        # The fallback outranks the wildcard.
        ("en-US, *;q=0.2", "en", 1.0),
        ("en-US, *;q=0", "en", 1.0),
        # The best range that falls back lends its quality.
        ("en-GB;q=0.4, en-US;q=0.9", "en", 0.9),
    ],
)
def test_a_language_range_falls_back_to_its_prefix(header: str, offer: str, quality: float) -> None:
    assert parse_accept_header(header, LanguageAccept).quality(offer) == quality


@pytest.mark.parametrize(
    ("header", "offers", "expected"),
    [
        ("en-US", ["fr", "en"], "en"),
        ("en-US, fr;q=0.5", ["fr", "en"], "en"),
        # Below a range that covers an offer, at the same quality.
        ("en-US", ["en", "en-US"], "en-US"),
        ("en-US", ["en", "en-US-oxendict"], "en-US-oxendict"),
        ("de-AT, en-US", ["en", "de"], "en"),
        # Above the wildcard, at the same quality.
        ("en-US, *", ["de", "en"], "en"),
        ("en-US", ["en-GB", "de"], None),
    ],
)
def test_best_match_ranks_the_fallback_between_ranges_and_the_wildcard(
    header: str, offers: list[str], expected: str | None
) -> None:
    assert parse_accept_header(header, LanguageAccept).best_match(offers) == expected


_SUBTAG = st.from_regex(r"[a-z]{2,8}", fullmatch=True)


@given(
    tags=st.lists(_SUBTAG, min_size=2, max_size=5),
    cut=st.integers(1, 4),
    quality=_QUALITY.filter(lambda q: q > 0),
)
def test_every_prefix_of_a_range_gets_its_quality(
    tags: list[str], cut: int, quality: float
) -> None:
    header = f"{'-'.join(tags)};q={quality}"
    prefix = "-".join(tags[: min(cut, len(tags) - 1)])
    accept = parse_accept_header(header, LanguageAccept)
    assert accept.quality(prefix) == quality
    # ... and ranks below the full tag, which the range covers.
    assert accept.best_match([prefix, "-".join(tags)]) == "-".join(tags)


@given(text=st.text(max_size=80), offers=st.lists(st.text(max_size=20), max_size=4))
def test_language_matching_never_raises(text: str, offers: list[str]) -> None:
    accept = parse_accept_header(text, LanguageAccept)
    result = accept.best_match(offers)
    assert result is None or result in offers
    assert all(0 <= accept.quality(offer) <= 1 for offer in offers)


@given(
    header=st.lists(
        st.tuples(st.lists(_SUBTAG, min_size=1, max_size=3).map("-".join), _QUALITY),
        max_size=5,
    ),
    offer=st.lists(_SUBTAG, min_size=1, max_size=3).map("-".join),
)
def test_the_fallback_only_adds_acceptable_offers(
    header: list[tuple[str, float]], offer: str
) -> None:
    # Where a range covers the offer (basic filtering), the most specific one decides, as
    # without the fallback; the best quality wins among equally specific ones.
    accept = LanguageAccept(header)
    covering = [
        (value.count("-"), quality)
        for value, quality in accept
        if offer == value or offer.startswith(f"{value}-")
    ]
    if covering:
        depth = max(depth for depth, _ in covering)
        assert accept.quality(offer) == max(q for d, q in covering if d == depth)
