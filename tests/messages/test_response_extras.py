"""Response: no content on 1xx/204/304, JSON numbers, add_etag() and cache_control."""

from __future__ import annotations

import base64
import copy
import dataclasses
import hashlib
import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import FileBody, JSONResponse, Request, Response
from sansio_http.app import App
from sansio_http.http import ResponseCacheControl, parse_response_cache_control
from sansio_http.http._headers import HeaderValueError
from sansio_http.messages._response import content_allowed

NO_CONTENT = [100, 101, 103, 199, 204, 304]


def chunks() -> Iterator[bytes]:
    yield b"test"


# -- item 1: 1xx, 204 and 304 have no content --------------------------------------------


@pytest.mark.parametrize("status", NO_CONTENT)
@pytest.mark.parametrize(
    ("body", "kwargs"),
    [
        (b"test", {}),
        ("test", {}),
        (b"test", {"content_type": "text/plain"}),
        ("test", {"headers": {"X-A": "1"}}),
        (b"test", {"headers": {"Content-Length": "4"}}),
    ],
)
def test_content_is_refused_for_statuses_without_it(
    status: int, body: bytes | str, kwargs: dict[str, Any]
) -> None:
    # RFC 9110 §15.2, §15.3.5, §15.4.5: sending it breaks the next response on the
    # connection.
    with pytest.raises(ValueError, match=rf"a {status} response has no content \(RFC 9110 §"):
        Response(body, status, **kwargs)


@pytest.mark.parametrize("status", [204, 304])
@pytest.mark.parametrize("body", [chunks(), FileBody("/srv/a.txt", length=4)])
def test_streams_and_files_are_refused_too(status: int, body: Any) -> None:
    with pytest.raises(ValueError, match="has no content"):
        Response(body, status)
    with pytest.raises(ValueError, match="has no content"):
        Response(body, status, headers={})


@pytest.mark.parametrize("status", NO_CONTENT)
def test_the_error_names_the_fix(status: int) -> None:
    with pytest.raises(ValueError, match="build it without a body, or with b''"):
        Response(b"x", status)


@pytest.mark.parametrize("status", [204, 304])
def test_json_is_refused_for_statuses_without_content(status: int) -> None:
    with pytest.raises(ValueError, match="has no content"):
        JSONResponse({"ok": True}, status)
    with pytest.raises(ValueError, match="has no content"):
        JSONResponse({"ok": True}, status, headers={"X-A": "1"})


@pytest.mark.parametrize("status", NO_CONTENT)
def test_an_empty_body_is_fine(status: int) -> None:
    for response in (Response(status=status), Response("", status), Response(b"", status, {})):
        assert response.body == b""
        assert all(name != b"content-length" for name, _ in response.raw_headers())


@pytest.mark.parametrize("status", [100, 204])
def test_no_content_length_in_a_1xx_or_204_whoever_set_it(status: int) -> None:
    # RFC 9110 §8.6 and RFC 9112 §6.1: never in a 1xx or 204.
    response = Response(b"", status, {"Content-Length": "4", "X-A": "1"})
    assert response.raw_headers() == [(b"x-a", b"1")]
    response.headers["Content-Length"] = "4"
    response.headers["Transfer-Encoding"] = "chunked"
    assert response.raw_headers() == [(b"x-a", b"1")]


def test_a_304_keeps_the_length_of_the_200_it_was_given() -> None:
    # RFC 9110 §8.6: a 304 may state the length the 200 would have had.
    response = Response(b"", 304, {"Content-Length": "1234", "ETag": '"v1"'})
    assert response.headers["content-length"] == "1234"
    assert (b"content-length", b"1234") in response.raw_headers()


@pytest.mark.parametrize("status", NO_CONTENT)
def test_setting_such_a_status_on_content_is_refused(status: int) -> None:
    response = Response("hello")
    with pytest.raises(ValueError, match=r"set response\.body = b'' before the status"):
        response.status = status
    assert response.status == 200
    assert response.body == b"hello"
    streamed = Response(chunks())
    with pytest.raises(ValueError, match="has no content"):
        streamed.status = status


@pytest.mark.parametrize("status", NO_CONTENT)
def test_setting_such_a_status_on_an_empty_body_drops_the_length(status: int) -> None:
    response = Response(b"")
    response.status = status
    assert response.raw_headers() == []
    response.status = 200
    assert response.raw_headers() == [(b"content-length", b"0")]


def test_moving_between_statuses_without_content() -> None:
    response = Response(b"", 304, {"Content-Length": "1234"})
    response.status = 304
    assert response.headers["content-length"] == "1234"
    response.status = 204
    assert response.raw_headers() == []


def test_emptying_then_setting_204_works() -> None:
    response = Response("hello", headers={"X-A": "1"})
    response.body = b""
    response.status = 204
    assert (response.status, response.body) == (204, b"")
    assert response.raw_headers() == [
        (b"x-a", b"1"),
        (b"content-type", b"text/plain; charset=utf-8"),
    ]


@pytest.mark.parametrize("status", NO_CONTENT)
def test_setting_content_on_such_a_response_is_refused(status: int) -> None:
    response = Response(status=status)
    for body in (b"x", "x", chunks(), FileBody("/srv/a.txt")):
        with pytest.raises(ValueError, match="has no content"):
            response.body = body
    assert response.body == b""
    response.body = ""
    assert stored_body(response) == b""


def test_the_app_answers_a_204_with_content_as_a_misuse() -> None:
    # A view that returns (content, 204) gets a ValueError naming the fix, which the
    # App answers with a 500: never a 204 that carries bytes.
    app = App()
    with pytest.raises(ValueError, match="has no content"):
        app.make_response(("test", 204))
    with pytest.raises(ValueError, match="before the status"):
        app.make_response((Response("test"), 204))
    assert app.make_response(("", 204)).body == b""


def test_make_conditional_still_builds_304s_from_200s() -> None:
    response = Response("hello")
    response.set_etag("v1")
    request = Request("GET", "/", b"", [("if-none-match", '"v1"')], "http", None, "")
    answer = response.make_conditional(request)
    assert (answer.status, answer.body) == (304, b"")
    assert all(name != b"content-length" for name, _ in answer.raw_headers())


@pytest.mark.parametrize(
    ("status", "method", "allowed"),
    [
        (200, "GET", True),
        (200, "POST", True),
        (404, "GET", True),
        (200, "HEAD", False),
        (404, "HEAD", False),
        (204, "GET", False),
        (304, "GET", False),
        (100, "GET", False),
        (101, "GET", False),
        (200, "CONNECT", False),
        (407, "CONNECT", True),
        (200, "head", True),  # methods are case-sensitive (RFC 9110 §9.1)
    ],
)
def test_content_allowed(status: int, method: str, allowed: bool) -> None:
    # RFC 9110 §6.4.1: what an adapter may send as the body.
    assert content_allowed(status, method) is allowed
    response = Response(b"", status) if status in (100, 101, 204, 304) else Response(status=status)
    assert response.content_allowed(method) is allowed


# -- item 10: JSON has no NaN or infinity -------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {"value": math.inf},
        {"value": -math.inf},
        {"value": math.nan},
        [1.0, [math.inf]],
        float("1e999999"),
    ],
)
def test_json_refuses_nan_and_infinity(data: Any) -> None:
    # RFC 8259 §6: Infinity and NaN are not JSON; no parser would read the body.
    with pytest.raises(ValueError, match=r"JSON has no NaN or infinity \(RFC 8259 §6\)"):
        JSONResponse(data)
    with pytest.raises(ValueError, match="JSON has no NaN or infinity"):
        JSONResponse(data, headers={"X-A": "1"})


def test_the_app_refuses_to_answer_infinity_as_json() -> None:
    with pytest.raises(ValueError, match="JSON has no NaN or infinity"):
        App().make_response({"value": math.inf})
    with pytest.raises(ValueError, match="JSON has no NaN or infinity"):
        App().make_response(([math.nan], 201))


def test_other_json_value_errors_keep_their_message() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        JSONResponse(loop)


def test_large_finite_floats_are_json() -> None:
    assert JSONResponse({"v": 1e308}).body == b'{"v":1e+308}'


# -- ETag from the body --------------------------------------------------------------------


def expected_tag(body: bytes) -> str:
    digest = hashlib.sha256(body).digest()[:16]
    return '"' + base64.urlsafe_b64encode(digest).decode().rstrip("=") + '"'


def test_add_etag_hashes_the_body() -> None:
    response = Response("hello")
    response.add_etag()
    assert response.headers["etag"] == expected_tag(b"hello")
    tag, weak = response.etag
    assert tag is not None
    assert len(tag) == 22
    assert not weak


@given(first=st.binary(), second=st.binary())
def test_add_etag_is_a_strong_validator(first: bytes, second: bytes) -> None:
    one, other = Response(first), Response(second)
    one.add_etag()
    other.add_etag()
    assert (one.headers["etag"] == other.headers["etag"]) == (first == second)


def test_add_etag_keeps_a_tag_unless_told() -> None:
    response = Response("hello")
    response.set_etag("mine")
    response.add_etag()
    assert response.headers["etag"] == '"mine"'
    response.add_etag(overwrite=True)
    assert response.headers["etag"] == expected_tag(b"hello")


def test_add_etag_then_make_conditional_answers_304() -> None:
    response = Response(b"data", content_type="application/octet-stream")
    response.add_etag()
    request = Request(
        "GET", "/", b"", [("if-none-match", response.headers["etag"])], "http", None, ""
    )
    assert response.make_conditional(request).status == 304


@pytest.mark.parametrize("body", [chunks(), FileBody("/srv/a.txt", length=3)])
def test_add_etag_refuses_bodies_not_in_memory(body: Any) -> None:
    with pytest.raises(TypeError, match="set_etag"):
        Response(body).add_etag()


@pytest.mark.parametrize("status", [204, 304])
def test_add_etag_refuses_statuses_without_content(status: int) -> None:
    with pytest.raises(ValueError, match="no body to hash"):
        Response(status=status).add_etag()


# -- typed Cache-Control -------------------------------------------------------------------


def test_cache_control_is_written_back() -> None:
    response = Response("hello")
    assert response.cache_control == ResponseCacheControl()
    control = response.cache_control
    control.max_age = 60
    control.public = True
    assert response.headers["cache-control"] == "max-age=60, public"
    control.public = False
    control.private = ["set-cookie"]
    assert response.headers["cache-control"] == 'max-age=60, private="set-cookie"'
    control.max_age = None
    control.private = False
    assert "cache-control" not in response.headers


def test_cache_control_reads_the_header() -> None:
    response = Response(
        "x", headers=[("Cache-Control", "no-cache"), ("cache-control", "max-age=5")]
    )
    control = response.cache_control
    assert control.no_cache is True
    assert control.max_age == 5
    assert control == parse_response_cache_control("no-cache, max-age=5")
    assert parse_response_cache_control("no-cache, max-age=5") == control
    control.immutable = True
    assert response.headers.getlist("cache-control") == ["max-age=5, no-cache, immutable"]


def test_in_place_changes_are_written_back() -> None:
    response = Response("x")
    control = response.cache_control
    control.no_cache = ["set-cookie"]
    assert isinstance(control.no_cache, list)
    control.no_cache.append("authorization")
    assert response.headers["cache-control"] == 'no-cache="set-cookie, authorization"'
    control.no_cache.remove("set-cookie")
    assert response.headers["cache-control"] == 'no-cache="authorization"'
    control.extensions["community"] = "UCI"
    assert response.headers["cache-control"] == 'no-cache="authorization", community=UCI'
    control.extensions.update({"x-flag": None})
    assert response.headers["cache-control"].endswith("community=UCI, x-flag")
    del control.extensions["community"]
    control.extensions.pop("x-flag")
    assert response.headers["cache-control"] == 'no-cache="authorization"'


def test_assigning_replaces_every_directive() -> None:
    response = Response("x", headers={"Cache-Control": "public, max-age=5"})
    response.cache_control = ResponseCacheControl(no_store=True)
    assert response.headers["cache-control"] == "no-store"
    response.cache_control = ResponseCacheControl()
    assert "cache-control" not in response.headers
    response.headers["cache-control"] = "max-age=1"
    response.cache_control = None
    assert "cache-control" not in response.headers
    with pytest.raises(TypeError, match="ResponseCacheControl or None"):
        response.cache_control = "no-store"  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [
        ("max_age", -1, ValueError),
        ("max_age", True, TypeError),
        ("max_age", "60", TypeError),
        ("s_maxage", 1.5, TypeError),
        ("public", 1, TypeError),
        ("no_store", "yes", TypeError),
        ("private", "set-cookie", TypeError),
        ("private", ["set cookie"], ValueError),
        ("no_cache", [1], ValueError),
        ("extensions", [("a", "b")], TypeError),
        ("extensions", {"a b": None}, ValueError),
        ("extensions", {"a": 1}, TypeError),
        ("extensions", {"a": "b\r\nSet-Cookie: x=y"}, HeaderValueError),
        ("maxage", 60, AttributeError),
    ],
)
def test_a_bad_change_is_refused_and_undone(
    name: str, value: object, error: type[Exception]
) -> None:
    response = Response("x", headers={"Cache-Control": "max-age=5"})
    control = response.cache_control
    with pytest.raises(error):
        setattr(control, name, value)
    assert response.headers["cache-control"] == "max-age=5"
    assert control == parse_response_cache_control("max-age=5")


def test_a_bad_in_place_change_is_undone() -> None:
    response = Response("x")
    control = response.cache_control
    control.private = ["set-cookie"]
    assert isinstance(control.private, list)
    with pytest.raises(ValueError, match="token"):
        control.private.append("a b")
    assert control.private == ["set-cookie"]
    with pytest.raises(HeaderValueError):
        control.extensions["x"] = "a\nb"
    assert control.extensions == {}
    assert response.headers["cache-control"] == 'private="set-cookie"'


def test_reading_never_raises_on_what_the_header_holds() -> None:
    response = Response("x", headers={"Cache-Control": 'private="a b", odd name=1, max-age=x'})
    control = response.cache_control
    assert control.private == ["a b"]
    assert control.max_age == 0
    control.public = True  # the others are written back as they were read
    assert response.headers["cache-control"] == 'max-age=0, private="a b", public, odd name=1'


def test_durations_past_2_31_are_2_31() -> None:
    # RFC 9111 §1.2.2: what every cache reads them as.
    response = Response("x")
    response.cache_control.max_age = 2**40
    assert response.headers["cache-control"] == "max-age=2147483648"


def test_copies_are_plain_detached_values() -> None:
    response = Response("x")
    control = response.cache_control
    control.max_age = 1
    control.private = ["set-cookie"]
    for detached in (copy.copy(control), copy.deepcopy(control)):
        assert type(detached) is ResponseCacheControl
        detached.max_age = 2
        assert isinstance(detached.private, list)
        detached.private.append("authorization")
    plain = dataclasses.asdict(control)
    assert plain["max_age"] == 1
    plain["private"].append("authorization")
    assert response.headers["cache-control"] == 'max-age=1, private="set-cookie"'
    assert repr(control).startswith("ResponseCacheControl(max_age=1,")
    assert "private=['set-cookie']" in repr(control)
    other: object = "max-age=1"
    assert control != other


@given(
    max_age=st.none() | st.integers(min_value=0, max_value=2**40),
    flags=st.lists(st.sampled_from(["no_store", "public", "immutable", "must_revalidate"])),
    private=st.booleans() | st.lists(st.sampled_from(["set-cookie", "authorization"]), min_size=1),
)
def test_what_is_written_reads_back(
    max_age: int | None, flags: list[str], private: bool | list[str]
) -> None:
    response = Response("x")
    control = response.cache_control
    control.max_age = max_age
    for flag in flags:
        setattr(control, flag, True)
    control.private = private
    assert response.cache_control == control


def stored_body(response: Response) -> object:
    # Read through a call: after ``response.body = ""`` a type checker takes
    # the attribute for the str assigned, not the bytes stored.
    return response.body
