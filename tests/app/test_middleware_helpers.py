"""The helpers middleware share: Vary merging and setting pre-checked fields."""

from __future__ import annotations

import pytest

from sansio_http import JSONResponse, MutableHeaders, Response, add_vary
from sansio_http.app._middleware import (
    add_checked_fields,
    add_vary_field,
    is_untouched,
    set_bytes_body,
)


def untouched() -> Response:
    response = Response(b"hello")
    assert is_untouched(response)
    return response


def touched() -> Response:
    response = Response(b"hello", headers={"X-Kept": "1", "Vary": "Accept"})
    assert not is_untouched(response)
    return response


@pytest.mark.parametrize("make", [untouched, touched])
def test_checked_fields_replace_fields_of_the_same_name(make: type[Response]) -> None:
    response = make()
    add_checked_fields(response, [(b"x-new", b"1"), (b"content-length", b"9")])
    add_checked_fields(response, [(b"x-new", b"2")])
    assert response.headers.getlist("x-new") == ["2"]
    assert response.headers.getlist("content-length") == ["9"]


def test_checked_fields_keep_the_other_fields_and_the_index_fresh() -> None:
    response = touched()
    assert response.headers.get("x-new") is None  # builds the lookup index
    add_checked_fields(response, [(b"x-new", b"1")])
    assert response.headers.get("x-new") == "1"
    assert response.headers["x-kept"] == "1"


@pytest.mark.parametrize("make", [untouched, touched, lambda: JSONResponse({"a": 1})])
def test_a_new_bytes_body_gets_its_length(make: type[Response]) -> None:
    response = make()
    set_bytes_body(response, b"longer body")
    assert response.body == b"longer body"
    assert response.headers.getlist("content-length") == ["11"]


def test_vary_is_added_or_merged() -> None:
    response = untouched()
    add_vary_field(response, b"Origin")
    add_vary_field(response, b"Cookie")
    assert response.headers["vary"] == "Origin, Cookie"
    other = touched()
    add_vary_field(other, b"Origin")
    assert other.headers["vary"] == "Accept, Origin"
    plain = Response(b"", headers={"X-A": "1"})
    add_vary_field(plain, b"Origin")
    assert plain.headers["vary"] == "Origin"


def test_add_vary_keeps_a_star_and_does_not_repeat() -> None:
    headers = MutableHeaders([("Vary", "accept-encoding"), ("Vary", "Cookie")])
    add_vary(headers, "Accept-Encoding")
    assert headers.getlist("vary") == ["accept-encoding", "Cookie"]
    add_vary(headers, "Origin")
    assert headers.getlist("vary") == ["accept-encoding, Cookie, Origin"]
    starred = MutableHeaders({"Vary": "*"})
    add_vary(starred, "Origin")
    assert starred["vary"] == "*"
