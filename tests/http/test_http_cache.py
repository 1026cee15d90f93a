"""Cache-Control in its request and response forms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.http import (
    MAX_DELTA_SECONDS,
    RequestCacheControl,
    ResponseCacheControl,
    parse_cache_control,
    parse_response_cache_control,
)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, RequestCacheControl()),
        ("", RequestCacheControl()),
        ("max-age=0", RequestCacheControl(max_age=0)),
        ("no-cache", RequestCacheControl(no_cache=True)),
        # What browsers send on a reload and a hard reload.
        ("max-age=0, no-cache, no-store", RequestCacheControl(0, no_cache=True, no_store=True)),
        ("Max-Age=60, MAX-STALE=5, min-fresh=10", RequestCacheControl(60, 5, 10)),
        ("max-stale", RequestCacheControl(max_stale=MAX_DELTA_SECONDS)),
        ('max-age="30"', RequestCacheControl(max_age=30)),
        ("max-age=30, max-age=10", RequestCacheControl(max_age=30)),
        ("max-age=abc", RequestCacheControl(max_age=0)),
        ("max-age", RequestCacheControl(max_age=0)),
        ("max-age=-1", RequestCacheControl(max_age=0)),
        ("max-age=\u0661", RequestCacheControl(max_age=0)),
        ("max-age=99999999999", RequestCacheControl(max_age=MAX_DELTA_SECONDS)),
        ("max-age=" + "9" * 5000, RequestCacheControl(max_age=MAX_DELTA_SECONDS)),
        ("max-age=2147483647", RequestCacheControl(max_age=2147483647)),
        (
            "no-transform, only-if-cached",
            RequestCacheControl(no_transform=True, only_if_cached=True),
        ),
        ("stale-if-error=60", RequestCacheControl(stale_if_error=60)),
        ("no-store=1", RequestCacheControl(no_store=True)),
        (
            'foo, bar="a, b", Extensions=1',
            RequestCacheControl(extensions={"foo": None, "bar": "a, b", "extensions": "1"}),
        ),
        (" , ,, =x", RequestCacheControl()),
    ],
)
def test_parse_request_cache_control(header: str | None, expected: RequestCacheControl) -> None:
    assert parse_cache_control(header) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, ResponseCacheControl()),
        (
            "public, max-age=31536000, immutable",
            ResponseCacheControl(31536000, public=True, immutable=True),
        ),
        ("private", ResponseCacheControl(private=True)),
        ('private="Set-Cookie, X-Token"', ResponseCacheControl(private=["set-cookie", "x-token"])),
        ("no-cache=set-cookie", ResponseCacheControl(no_cache=["set-cookie"])),
        ('no-cache=""', ResponseCacheControl(no_cache=True)),
        ('no-cache=", ,"', ResponseCacheControl(no_cache=True)),
        (
            "no-store, no-transform, must-revalidate, proxy-revalidate, must-understand",
            ResponseCacheControl(
                no_store=True,
                no_transform=True,
                must_revalidate=True,
                proxy_revalidate=True,
                must_understand=True,
            ),
        ),
        (
            "max-age=600, s-maxage=60, stale-while-revalidate=30, stale-if-error=86400",
            ResponseCacheControl(600, 60, stale_while_revalidate=30, stale_if_error=86400),
        ),
        ("community=UCI", ResponseCacheControl(extensions={"community": "UCI"})),
    ],
)
def test_parse_response_cache_control(header: str | None, expected: ResponseCacheControl) -> None:
    assert parse_response_cache_control(header) == expected


def test_response_cache_control_is_built_and_written() -> None:
    control = ResponseCacheControl()
    assert control.to_header() == ""
    control.public = True
    control.max_age = 3600
    control.extensions["community"] = "UCI people"
    assert control.to_header() == 'max-age=3600, public, community="UCI people"'
    control.public = False
    control.max_age = None
    control.private = ["set-cookie"]
    control.no_cache = True
    assert control.to_header() == 'no-cache, private="set-cookie", community="UCI people"'


def test_request_cache_control_writes_bare_max_stale() -> None:
    assert parse_cache_control("max-stale").to_header() == "max-stale"
    assert parse_cache_control("max-stale=5, no-cache").to_header() == "max-stale=5, no-cache"


DELTA = st.none() | st.integers(0, MAX_DELTA_SECONDS)
FIELDS = st.booleans() | st.lists(
    st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True), min_size=1, max_size=3
)
EXTENSIONS = st.dictionaries(
    st.from_regex(r"x-[a-z0-9-]{1,10}", fullmatch=True),
    st.none() | st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=10),
    max_size=3,
)


@given(
    st.builds(
        RequestCacheControl,
        max_age=DELTA,
        max_stale=DELTA,
        min_fresh=DELTA,
        no_cache=st.booleans(),
        no_store=st.booleans(),
        no_transform=st.booleans(),
        only_if_cached=st.booleans(),
        stale_if_error=DELTA,
        extensions=EXTENSIONS,
    )
)
def test_request_round_trip(control: RequestCacheControl) -> None:
    assert parse_cache_control(control.to_header()) == control


@given(
    st.builds(
        ResponseCacheControl,
        max_age=DELTA,
        s_maxage=DELTA,
        no_cache=FIELDS,
        no_store=st.booleans(),
        no_transform=st.booleans(),
        must_revalidate=st.booleans(),
        proxy_revalidate=st.booleans(),
        must_understand=st.booleans(),
        private=FIELDS,
        public=st.booleans(),
        immutable=st.booleans(),
        stale_while_revalidate=DELTA,
        stale_if_error=DELTA,
        extensions=EXTENSIONS,
    )
)
def test_response_round_trip(control: ResponseCacheControl) -> None:
    assert parse_response_cache_control(control.to_header()) == control


@given(st.text())
def test_arbitrary_text_never_raises(text: str) -> None:
    request = parse_cache_control(text)
    response = parse_response_cache_control(text)
    for delta in (request.max_age, request.max_stale, response.max_age, response.s_maxage):
        assert delta is None or 0 <= delta <= MAX_DELTA_SECONDS
