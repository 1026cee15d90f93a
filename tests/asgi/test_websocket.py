from __future__ import annotations

from typing import Any

import pytest

from sansio_http.asgi import ASGIRequest, WebSocket, WebSocketDisconnect, asgi_app
from sansio_http.asgi._types import ASGIApp, Message
from sansio_http.messages._errors import Forbidden
from sansio_http.messages._response import Response
from tests.asgi.checker import run, websocket

DENIAL: dict[str, Any] = {"websocket.http.response": {}}


async def no_http(req: ASGIRequest) -> Response:
    return Response(b"", 404)


def ws_app(handler: Any) -> ASGIApp:
    return asgi_app(no_http, websocket=handler)


async def echo(ws: WebSocket) -> None:
    await ws.accept()
    async for message in ws:
        if isinstance(message, str):
            await ws.send_text(message)
        else:
            await ws.send_bytes(message)


def test_echo_until_the_client_leaves() -> None:
    async def main() -> list[Any]:
        async with websocket(ws_app(echo)) as client:
            accept = await client.next()
            await client.send_text("héllo")
            text = await client.next()
            await client.send_bytes(b"\x00")
            data = await client.next()
            await client.disconnect(1001)
        return [accept["type"], text["text"], data["bytes"]]

    assert run(main()) == ["websocket.accept", "héllo", b"\x00"]


def test_the_handshake_request_and_subprotocols() -> None:
    seen: dict[str, Any] = {}

    async def handler(ws: WebSocket) -> None:
        seen["path"] = ws.path
        seen["token"] = ws.request.args.get("token")
        seen["origin"] = ws.headers.get("origin")
        seen["offered"] = ws.subprotocols
        await ws.accept("chat.v2", headers={"x-server": "sansio"})
        await ws.close(4000, "bye")

    async def main() -> list[Any]:
        async with websocket(
            ws_app(handler),
            "/ws",
            subprotocols=["chat.v1", "chat.v2"],
            headers=[(b"origin", b"https://example.com")],
        ) as client:
            return [await client.next(), await client.next()]

    accept, close = run(main())
    assert accept["subprotocol"] == "chat.v2"
    assert accept["headers"] == [(b"x-server", b"sansio")]
    assert close == {"type": "websocket.close", "code": 4000, "reason": "bye"}
    assert seen == {
        "path": "/ws",
        "token": None,
        "origin": "https://example.com",
        "offered": ["chat.v1", "chat.v2"],
    }


def test_json_both_ways() -> None:
    async def handler(ws: WebSocket) -> None:
        await ws.accept()
        data = await ws.receive_json()
        await ws.send_json({"got": data})

    async def main() -> str:
        async with websocket(ws_app(handler)) as client:
            await client.next()
            await client.send_text('{"n": 1}')
            sent = await client.next()
            await client.next()  # the close after the handler returned
        return str(sent["text"])

    assert run(main()) == '{"got":{"n":1}}'


@pytest.mark.parametrize(
    ("method", "payload", "code"),
    [
        ("receive_text", {"bytes": b"x"}, 1003),
        ("receive_bytes", {"text": "x"}, 1003),
        ("receive_json", {"text": "{nope"}, 1007),
    ],
)
def test_the_wrong_kind_of_message_closes_the_socket(
    method: str, payload: dict[str, Any], code: int
) -> None:
    raised: list[int] = []

    async def handler(ws: WebSocket) -> None:
        await ws.accept()
        try:
            await getattr(ws, method)()
        except WebSocketDisconnect as exc:
            raised.append(exc.code)
            raise

    async def main() -> Any:
        async with websocket(ws_app(handler)) as client:
            await client.next()
            await client.inbox.put({"type": "websocket.receive", **payload})
            return await client.next()

    close = run(main())
    assert (close["type"], close["code"]) == ("websocket.close", code)
    assert raised == [code]


def test_disconnect_is_an_exception_with_the_code() -> None:
    raised: list[WebSocketDisconnect] = []

    async def handler(ws: WebSocket) -> None:
        await ws.accept()
        try:
            await ws.receive_text()
        except WebSocketDisconnect as exc:
            raised.append(exc)
            raise

    async def main() -> None:
        async with websocket(ws_app(handler)) as client:
            await client.next()
            await client.disconnect(1001, "tab closed")

    run(main())
    assert [(e.code, e.reason) for e in raised] == [(1001, "tab closed")]
    assert str(raised[0]) == "websocket closed with code 1001: tab closed"


def test_without_a_handler_connections_are_refused() -> None:
    async def main() -> Any:
        async with websocket(asgi_app(no_http)) as client:
            return await client.next()

    assert run(main())["type"] == "websocket.close"


def test_a_handler_that_never_accepts_refuses_the_connection() -> None:
    async def handler(ws: WebSocket) -> None:
        return

    async def main() -> Any:
        async with websocket(ws_app(handler)) as client:
            return await client.next()

    assert run(main())["type"] == "websocket.close"


def test_deny_sends_a_response_when_the_server_offers_it() -> None:
    async def handler(ws: WebSocket) -> None:
        await ws.deny(Response(b"go away", 403))

    async def main() -> list[Any]:
        async with websocket(ws_app(handler), extensions=DENIAL) as client:
            return [await client.next(), await client.next()]

    start, body = run(main())
    assert (start["type"], start["status"]) == ("websocket.http.response.start", 403)
    assert (body["type"], body["body"]) == ("websocket.http.response.body", b"go away")


def test_deny_closes_without_the_extension() -> None:
    async def handler(ws: WebSocket) -> None:
        await ws.deny(Response(b"go away", 403))

    async def main() -> Any:
        async with websocket(ws_app(handler)) as client:
            return await client.next()

    assert run(main())["type"] == "websocket.close"


def test_an_http_error_before_accept_becomes_the_denial() -> None:
    async def handler(ws: WebSocket) -> None:
        raise Forbidden("members only")

    async def main() -> Any:
        async with websocket(ws_app(handler), extensions=DENIAL) as client:
            return await client.next()

    assert run(main())["status"] == 403


def test_an_exception_after_accept_closes_with_1011(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    async def handler(ws: WebSocket) -> None:
        await ws.accept()
        raise RuntimeError("bug")

    async def main() -> Any:
        async with websocket(ws_app(handler)) as client:
            await client.next()
            return await client.next()

    assert run(main())["code"] == 1011
    assert "bug" in adapter_log.text


def test_an_exception_before_accept_is_a_500_denial(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    async def handler(ws: WebSocket) -> None:
        raise RuntimeError("bug")

    async def main() -> Any:
        async with websocket(ws_app(handler), extensions=DENIAL) as client:
            return await client.next()

    assert run(main())["status"] == 500


def test_misuse_is_a_runtime_error() -> None:
    errors: list[str] = []

    async def handler(ws: WebSocket) -> None:
        for action in (ws.send_text("early"), ws.receive()):
            try:
                await action
            except RuntimeError as exc:
                errors.append(str(exc))
        with pytest.raises(ValueError, match="did not offer"):
            await ws.accept("unknown")
        await ws.accept()
        try:
            await ws.accept()
        except RuntimeError as exc:
            errors.append(str(exc))
        await ws.close()
        await ws.close()
        with pytest.raises(WebSocketDisconnect):
            await ws.receive()

    async def main() -> None:
        async with websocket(ws_app(handler)) as client:
            await client.next()
            await client.next()

    run(main())
    assert errors == [
        "cannot send: the websocket is connecting",
        "cannot receive: the websocket is connecting",
        "cannot accept: the websocket is connected",
    ]


def test_a_send_to_a_gone_peer_is_a_disconnect() -> None:
    # ASGI 2.4 servers raise OSError from send() once the peer is gone.
    incoming: list[Message] = [{"type": "websocket.connect"}]

    async def receive() -> Message:
        return incoming.pop(0)

    async def send(message: Message) -> None:
        if message["type"] == "websocket.send":
            raise OSError("connection lost")

    async def main() -> tuple[int, bool]:
        ws = WebSocket({"type": "websocket", "path": "/", "headers": []}, receive, send)
        await ws.accept()
        with pytest.raises(WebSocketDisconnect) as caught:
            await ws.send_text("late")
        return caught.value.code, ws.closed

    assert run(main()) == (1006, True)


def test_the_client_leaving_before_accept() -> None:
    outcome: list[int] = []

    async def handler(ws: WebSocket) -> None:
        try:
            await ws.accept()
        except WebSocketDisconnect as exc:
            outcome.append(exc.code)
            raise

    async def main() -> None:
        async with websocket(ws_app(handler)) as client:
            client.inbox.get_nowait()  # take back websocket.connect
            await client.disconnect(1001)

    run(main())
    assert outcome == [1001]


def test_state_and_repr() -> None:
    async def receive() -> Message:
        return {"type": "websocket.connect"}

    async def send(message: Message) -> None:
        pass

    scope = {"type": "websocket", "path": "/chat", "headers": [], "state": {"n": 1}}
    ws = WebSocket(scope, receive, send)
    assert ws.state == {"n": 1}
    assert repr(ws) == "<WebSocket '/chat' connecting>"
    assert WebSocket({**scope, "state": None}, receive, send, state={"n": 2}).state == {"n": 2}
    del scope["state"]
    with pytest.raises(RuntimeError, match="no lifespan state"):
        _ = WebSocket(scope, receive, send).state


def test_close_before_accept_when_the_client_already_left() -> None:
    async def receive() -> Message:
        return {"type": "websocket.disconnect", "code": 1001}

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def main() -> bool:
        ws = WebSocket({"type": "websocket", "path": "/", "headers": []}, receive, send)
        await ws.close()
        return ws.closed

    assert run(main()) is True
    assert sent == []


def test_a_deny_with_a_streamed_body() -> None:
    async def handler(ws: WebSocket) -> None:
        await ws.deny(Response([b"go ", b"away"], 403))

    async def main() -> list[Any]:
        async with websocket(ws_app(handler), extensions=DENIAL) as client:
            return [(await client.next()).get("body") for _ in range(4)]

    assert run(main()) == [None, b"go ", b"away", b""]


def test_an_error_after_the_close_is_only_logged(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    async def handler(ws: WebSocket) -> None:
        await ws.accept()
        await ws.close()
        raise RuntimeError("after close")

    async def main() -> None:
        async with websocket(ws_app(handler)) as client:
            await client.next()
            await client.next()

    run(main())
    assert "after close" in adapter_log.text


def test_binary_messages_with_receive_bytes() -> None:
    async def handler(ws: WebSocket) -> None:
        await ws.accept()
        await ws.send_bytes((await ws.receive_bytes())[::-1])

    async def main() -> Any:
        async with websocket(ws_app(handler)) as client:
            await client.next()
            await client.send_bytes(b"abc")
            return (await client.next())["bytes"]

    assert run(main()) == b"cba"


def test_a_peer_gone_at_the_final_close_is_quiet() -> None:
    incoming: list[Message] = [{"type": "websocket.connect"}]

    async def receive() -> Message:
        return incoming.pop(0)

    async def send(message: Message) -> None:
        if message["type"] == "websocket.close":
            raise OSError("connection lost")

    async def accept_only(ws: WebSocket) -> None:
        await ws.accept()

    async def fail(ws: WebSocket) -> None:
        await ws.accept()
        raise RuntimeError("bug")

    scope = {"type": "websocket", "path": "/", "headers": []}
    run(ws_app(accept_only)(scope, receive, send))
    incoming.append({"type": "websocket.connect"})
    run(ws_app(fail)(scope, receive, send))
