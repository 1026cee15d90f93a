from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sansio_http.asgi._types import Receive, Scope, Send
from sansio_http.testing import Client, WebSocketClosed, WebSocketDenied
from tests.asgi.checker import Checker


async def echo_socket(scope: Scope, receive: Receive, send: Send) -> None:
    """Echo messages; "close" closes with 4000 and "scope" describes the scope."""
    if scope["type"] != "websocket":
        raise ValueError("websockets only")  # no lifespan: the client goes on
    assert (await receive())["type"] == "websocket.connect"
    offered = scope["subprotocols"]
    await send(
        {
            "type": "websocket.accept",
            "subprotocol": offered[-1] if offered else None,
            "headers": [(b"x-session", b"1")],
        }
    )
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text == "close":
            await send({"type": "websocket.close", "code": 4000, "reason": "asked to"})
            return
        if text == "scope":
            headers = dict(scope["headers"])
            cookie = headers.get(b"cookie", b"").decode()
            line = f"{scope['scheme']} {scope['path']} {scope['query_string'].decode()} {cookie}"
            await send({"type": "websocket.send", "text": line})
        elif text is not None:
            await send({"type": "websocket.send", "text": text})
        else:
            await send({"type": "websocket.send", "bytes": message["bytes"]})


@pytest.fixture
def checker() -> Iterator[Checker]:
    checker = Checker(echo_socket)
    yield checker
    assert checker.violations == []


def test_text_bytes_and_json(checker: Checker) -> None:
    with Client(checker).websocket_connect("/ws") as ws:
        ws.send_text("hello")
        assert ws.receive_text() == "hello"
        ws.send_bytes(b"\x00\x01")
        assert ws.receive_bytes() == b"\x00\x01"
        ws.send_json({"a": [1, "é"]})
        assert ws.receive_json() == {"a": [1, "é"]}
        ws.send_json([True], mode="binary")
        assert ws.receive_json(mode="binary") == [True]
        assert ws.headers["x-session"] == "1"
        assert ws.subprotocol is None
    assert ws.close_code == 1000


def test_scope_carries_url_and_cookies(checker: Checker) -> None:
    client = Client(checker, base_url="https://testserver", cookies={"sid": "abc"})
    with client.websocket_connect("/ws?room=1", subprotocols=["v1", "v2"]) as ws:
        assert ws.subprotocol == "v2"
        ws.send_text("scope")
        assert ws.receive_text() == "wss /ws room=1 sid=abc"
        assert ws.request.headers["sec-websocket-protocol"] == "v1, v2"
        assert ws.request.headers["upgrade"] == "websocket"


def test_the_application_closes(checker: Checker) -> None:
    with Client(checker).websocket_connect("/ws") as ws:
        ws.send_text("close")
        with pytest.raises(WebSocketClosed) as info:
            ws.receive()
        assert (info.value.code, info.value.reason) == (4000, "asked to")
        assert str(info.value) == "websocket closed with code 4000: asked to"
        with pytest.raises(WebSocketClosed):
            ws.send_text("too late")
    assert ws.close_code == 4000


def test_the_client_closes_with_a_code(checker: Checker) -> None:
    with Client(checker).websocket_connect("/ws") as ws:
        ws.close(4001, "bye")
        ws.close()  # closing twice is harmless
    assert ws.close_code == 4001


def test_wrong_message_kind_is_a_type_error(checker: Checker) -> None:
    with Client(checker).websocket_connect("/ws") as ws:
        ws.send_bytes(b"x")
        with pytest.raises(TypeError, match="expected a text message"):
            ws.receive_text()
        ws.send_text("x")
        with pytest.raises(TypeError, match="expected a binary message"):
            ws.receive_bytes()


async def refuse(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "websocket.close", "code": 1008})


async def deny(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    headers = [(b"content-type", b"text/plain")]
    await send({"type": "websocket.http.response.start", "status": 401, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": b"log in", "more_body": True})
    await send({"type": "websocket.http.response.body", "body": b" first"})


async def no_answer(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()


@pytest.mark.parametrize(
    ("app", "status", "body"), [(refuse, 403, b""), (deny, 401, b"log in first")]
)
def test_denied_handshakes(app: Any, status: int, body: bytes) -> None:
    checker = Checker(app)
    with pytest.raises(WebSocketDenied) as info, Client(checker).websocket_connect("/ws"):
        pass  # pragma: no cover (the handshake fails)
    assert (info.value.response.status_code, info.value.response.content) == (status, body)
    assert str(info.value) == f"websocket handshake denied with status {status}"
    assert checker.violations == []


def test_returning_without_an_answer_is_a_denial() -> None:
    with pytest.raises(WebSocketDenied), Client(no_answer).websocket_connect("/ws"):
        pass  # pragma: no cover (the handshake fails)


async def crash(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    message = await receive()
    raise RuntimeError(f"crashed on {message.get('text')}")


def test_application_errors_are_raised() -> None:
    with Client(crash).websocket_connect("/ws") as ws:
        ws.send_text("boom")
        with pytest.raises(RuntimeError, match="crashed on boom"):
            ws.receive()


async def returns_open(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "websocket.accept"})


def test_returning_with_the_socket_open_reads_as_1006() -> None:
    with Client(returns_open).websocket_connect("/ws") as ws:
        with pytest.raises(WebSocketClosed) as info:
            ws.receive()
        assert info.value.code == 1006


def test_sessions_share_the_lifespan_loop(checker: Checker) -> None:
    with Client(checker) as client:
        with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:
            first.send_text("1")
            second.send_text("2")
            assert (second.receive_text(), first.receive_text()) == ("2", "1")


def test_websockets_need_asgi() -> None:
    def wsgi(environ: Any, start_response: Any) -> list[bytes]:
        raise NotImplementedError

    with pytest.raises(TypeError, match="need an ASGI application"):
        Client(wsgi).websocket_connect("/ws")


def test_a_session_must_be_opened_first(checker: Checker) -> None:
    ws = Client(checker).websocket_connect("/ws")
    with pytest.raises(RuntimeError, match="open the session first"):
        ws.send_text("x")
    with ws:
        pass
