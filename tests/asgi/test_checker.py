"""The checker itself: each broken application is caught."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sansio_http.asgi._types import Receive, Scope, Send
from tests.asgi.checker import Checker, Violation, lifespan, request, run, websocket

START = {"type": "http.response.start", "status": 200, "headers": []}
END = {"type": "http.response.body", "body": b"", "more_body": False}


async def body_first(scope: Scope, receive: Receive, send: Send) -> None:
    await send(END)


async def str_headers(scope: Scope, receive: Receive, send: Send) -> None:
    await send({**START, "headers": [("content-type", "text/plain")]})


async def upper_case_name(scope: Scope, receive: Receive, send: Send) -> None:
    await send({**START, "headers": [(b"Content-Type", b"text/plain")]})


async def newline_in_value(scope: Scope, receive: Receive, send: Send) -> None:
    await send({**START, "headers": [(b"x-a", b"1\r\nx-b: 2")]})


async def after_complete(scope: Scope, receive: Receive, send: Send) -> None:
    await send(START)
    await send(END)
    await send(END)


async def unfinished(scope: Scope, receive: Receive, send: Send) -> None:
    await send(START)


async def wrong_length(scope: Scope, receive: Receive, send: Send) -> None:
    await send({**START, "headers": [(b"content-length", b"3")]})
    await send({**END, "body": b"four"})


async def head_with_body(scope: Scope, receive: Receive, send: Send) -> None:
    await send(START)
    await send({**END, "body": b"x"})


async def no_content_with_body(scope: Scope, receive: Receive, send: Send) -> None:
    await send({**START, "status": 204})
    await send({**END, "body": b"x"})


async def no_content_with_length(scope: Scope, receive: Receive, send: Send) -> None:
    await send({**START, "status": 204, "headers": [(b"content-length", b"0")]})
    await send(END)


async def concurrent_receive(scope: Scope, receive: Receive, send: Send) -> None:
    await asyncio.gather(receive(), receive())


async def raises_early(scope: Scope, receive: Receive, send: Send) -> None:
    raise RuntimeError("boom")


async def pathsend_not_offered(scope: Scope, receive: Receive, send: Send) -> None:
    await send(START)
    await send({"type": "http.response.pathsend", "path": "/etc/hostname"})


async def after_disconnect(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send(START)


@pytest.mark.parametrize(
    ("app", "method", "args", "problem"),
    [
        (body_first, "GET", {}, "before the start"),
        (str_headers, "GET", {}, "not a pair of bytes"),
        (upper_case_name, "GET", {}, "not a lower-case token"),
        (newline_in_value, "GET", {}, "CR, LF or NUL"),
        (after_complete, "GET", {}, "after the response was complete"),
        (unfinished, "GET", {}, "returned mid-response"),
        (wrong_length, "GET", {}, "content-length 3 but 4"),
        (head_with_body, "HEAD", {}, "HEAD response carried a body"),
        (no_content_with_body, "GET", {}, "a 204 response carried a body"),
        (no_content_with_length, "GET", {}, "content-length in a 204 response"),
        (concurrent_receive, "POST", {"body": [b"a", b"b"]}, "while another call"),
        (raises_early, "GET", {}, "escaped before the response started"),
        (pathsend_not_offered, "GET", {}, "pathsend not offered"),
        (after_disconnect, "GET", {"disconnect_after": 0}, "after http.disconnect"),
    ],
)
def test_http_violations_are_caught(app: Any, method: str, args: Any, problem: str) -> None:
    checker = Checker(app)
    with pytest.raises((Violation, RuntimeError)):
        run(request(app, method, checker=checker, **args))
    assert any(problem in violation for violation in checker.violations), checker.violations


async def ws_send_before_accept(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "websocket.send", "text": "hi"})


async def ws_both_kinds(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": "hi", "bytes": b"hi"})


async def ws_left_open(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "websocket.accept"})


async def ws_unoffered_subprotocol(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "websocket.accept", "subprotocol": "x"})


@pytest.mark.parametrize(
    ("app", "problem"),
    [
        (ws_send_before_accept, "before websocket.accept"),
        (ws_both_kinds, "exactly one of bytes/text"),
        (ws_left_open, "socket open"),
        (ws_unoffered_subprotocol, "subprotocol not offered"),
    ],
)
def test_websocket_violations_are_caught(app: Any, problem: str) -> None:
    checker = Checker(app)

    async def main() -> None:
        async with websocket(app, checker=checker) as client:
            await asyncio.sleep(0.01)
            assert client

    with pytest.raises(Violation):
        run(main())
    assert any(problem in violation for violation in checker.violations), checker.violations


async def lifespan_wrong_answer(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "lifespan.shutdown.complete"})


def test_lifespan_violations_are_caught() -> None:
    with pytest.raises(Violation, match=r"after lifespan\.startup"):
        run(lifespan(lifespan_wrong_answer))
