"""The ASGI adapter refuses heads the core's checks refuse, before the handler runs.

Framing errors also carry ``Connection: close``, which uvicorn honours, so
that bytes a proxy read as a body are never parsed as a next request.
"""

from __future__ import annotations

from typing import Any

import pytest

from sansio_http import App, HeadLimits, RequestEntityTooLarge
from sansio_http.asgi import ASGIRequest, asgi_app, to_asgi
from sansio_http.asgi._types import Message, Scope
from sansio_http.messages._response import Response
from sansio_http.testing import Client

from .checker import Checker, HTTPResult, http_scope, request, run

seen: list[ASGIRequest] = []


async def handler(request: ASGIRequest) -> Response:
    seen.append(request)
    return Response(f"{request.method} {request.path} {len(await request.body())}")


@pytest.fixture(autouse=True)
def _forget() -> None:
    seen.clear()


def answer(
    method: str = "GET", path: str = "/", *, limits: HeadLimits | None = None, **scope: Any
) -> HTTPResult:
    return run(request(asgi_app(handler, head_limits=limits), method, path, **scope))


def refused(status: int, method: str = "GET", path: str = "/", **scope: Any) -> HTTPResult:
    result = answer(method, path, **scope)
    assert result.status == status, result.body
    assert not seen, "the handler ran"
    return result


def test_an_ordinary_request_reaches_the_handler() -> None:
    assert answer("POST", "/a", body=b"abc").body == b"POST /a 3"


# -- framing ----------------------------------------------------------------------------


def test_content_length_with_transfer_encoding_is_400_and_closes() -> None:
    # uvicorn's h11 mode runs such a request and keeps the connection.
    headers = [(b"content-length", b"5"), (b"transfer-encoding", b"chunked")]
    result = refused(400, "POST", headers=headers)
    assert result.header("connection") == "close"


@pytest.mark.parametrize("value", [b"12a", b"-1", b"1, 2"])
def test_an_invalid_content_length_is_400_and_closes(value: bytes) -> None:
    result = refused(400, "POST", headers=[(b"content-length", value)])
    assert result.header("connection") == "close"


@pytest.mark.parametrize("value", [b"9223372036854775808", b"9" * 20])
def test_a_content_length_no_body_can_have_is_413_at_once(value: bytes) -> None:
    # It used to read as "no length": the request waited for a body that
    # never came, then got a 400. The body here is empty and never read.
    refused(413, "POST", headers=[(b"content-length", value)])


@pytest.mark.parametrize("value", [b"11", b"9223372036854775807", b"9223372036854775808"])
def test_any_content_length_over_the_limit_is_413_before_reading(value: bytes) -> None:
    received: list[Message] = []

    async def receive() -> Message:
        received.append({})
        return {"type": "http.disconnect"}

    async def body() -> bytes:
        scope = http_scope("POST", headers=[(b"content-length", value)])
        return await ASGIRequest(scope, receive, max_content_length=10).body()

    with pytest.raises(RequestEntityTooLarge):
        run(body())
    assert not received


# -- Host ---------------------------------------------------------------------------------


def scope_without_host(**extra: Any) -> Scope:
    scope = http_scope(**extra)
    scope["headers"] = [field for field in scope["headers"] if field[0] != b"host"]
    return scope


async def drive(app: Any, scope: Scope) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await Checker(app)(scope, receive, send)
    return sent


def test_http_11_without_host_is_400() -> None:
    sent = run(drive(asgi_app(handler), scope_without_host()))
    assert sent[0]["status"] == 400
    assert not seen


def test_http_10_without_host_is_served() -> None:
    sent = run(drive(asgi_app(handler), scope_without_host(http_version="1.0")))
    assert sent[0]["status"] == 200


def test_two_host_fields_are_400() -> None:
    refused(400, headers=[(b"host", b"a.example"), (b"host", b"b.example")])


# -- request targets ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "raw_path"),
    [
        ("url", b"url"),  # uvicorn's h11 mode passes "GET url" on as it is
        ("ftp://testserver/p", b"ftp://testserver/p"),  # and any absolute-form
        ("/etc", b"%2Fetc"),
    ],
)
def test_a_target_that_is_not_a_path_is_400(path: str, raw_path: bytes) -> None:
    refused(400, path=path, raw_path=raw_path)


@pytest.mark.parametrize(
    ("path", "expected"),
    [("http://testserver/p", "/p"), ("HTTP://TestServer/p", "/p"), ("http://testserver", "/")],
)
def test_absolute_form_left_as_the_path_is_served_at_its_path(path: str, expected: str) -> None:
    # uvicorn's h11 mode passes an absolute-form target on as the path.
    result = answer("GET", path, raw_path=path.encode())
    assert result.status == 200, result.body
    assert [each.path for each in seen] == [expected]


def test_absolute_form_naming_another_host_is_400() -> None:
    result = refused(400, path="http://evil.example/p", raw_path=b"http://evil.example/p")
    assert b"does not match the Host" in result.body


def test_options_asterisk_gets_204_without_the_handler() -> None:
    result = answer("OPTIONS", "*")
    assert (result.status, result.body) == (204, b"")
    assert not seen


def test_a_long_target_is_414() -> None:
    refused(414, query_string=b"q=" + b"a" * 9000)


def test_a_target_without_raw_path_is_measured_by_its_path() -> None:
    scope = http_scope("GET", "/" + "\u00e9" * 5000)
    del scope["raw_path"]
    assert run(drive(asgi_app(handler), scope))[0]["status"] == 414


# -- header count and size ---------------------------------------------------------


def test_more_header_fields_than_the_limit_is_431() -> None:
    refused(431, headers=[(b"x-%d" % index, b"1") for index in range(100)])


def test_a_head_past_the_size_limit_is_431() -> None:
    refused(431, headers=[(b"cookie", b"a=" + b"b" * 16 * 1024)])


def test_the_limits_are_configurable() -> None:
    limits = HeadLimits(max_header_size=200)
    result = answer(headers=[(b"x", b"a" * 200)], limits=limits)
    assert result.status == 431
    app = App()
    app.get("/")(lambda request: "hi")
    sent = run(drive(to_asgi(app, head_limits=limits), http_scope(headers=[(b"x", b"a" * 200)])))
    assert sent[0]["status"] == 431


# -- through the test client ---------------------------------------------------------


def test_the_test_client_sees_the_refusals() -> None:
    client = Client(asgi_app(handler, head_limits=HeadLimits(max_header_count=5)))
    assert client.get("/a").status_code == 200
    response = client.get("/a", headers={"content-length": "x"})
    assert (response.status_code, response.headers.get("connection")) == (400, "close")
    assert client.get("/a", headers={"content-length": "9" * 20}).status_code == 413
    many = {f"x-{index}": "1" for index in range(5)}
    assert client.get("/a", headers=many).status_code == 431
