"""``WebSocket``: one ASGI websocket session, and ``WebSocketDisconnect``.

A session is connecting until :meth:`WebSocket.accept` (or refused by
:meth:`~WebSocket.close` or :meth:`~WebSocket.deny`), then connected until
either side closes. Messages are text or bytes; a peer that sends the other
kind than the one asked for gets close code 1003 (RFC 6455 §7.4.1).
"""

from __future__ import annotations

import enum
import json
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any, NoReturn

from sansio_http.bodies._json import decode_json
from sansio_http.http._headers import Headers, MutableHeaders
from sansio_http.messages._errors import BadRequest
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

from ._response import ResponseSender
from ._scope import client_address, server_address, split_path
from ._types import Message, Receive, Scope, Send

__all__ = ["WebSocket", "WebSocketDisconnect"]


class WebSocketDisconnect(Exception):
    """The websocket closed: the peer went away or a close was exchanged.

    Args:
        code: The close code (RFC 6455 §7.4): 1000 normal, 1001 going away,
            1006 gone without a close frame...
        reason: The close reason, possibly empty.
    """

    def __init__(self, code: int = 1000, reason: str = "") -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason

    def __str__(self) -> str:
        return f"websocket closed with code {self.code}" + (
            f": {self.reason}" if self.reason else ""
        )


class _State(enum.Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    CLOSED = "closed"


class WebSocket:
    """One websocket session over an ASGI scope, ``receive`` and ``send``.

    Args:
        scope: The ``websocket`` connection scope.
        receive: The server's ``receive`` callable.
        send: The server's ``send`` callable.
        state: The lifespan state, when the server does not put one in the
            scope itself.
    """

    def __init__(
        self, scope: Scope, receive: Receive, send: Send, *, state: dict[str, Any] | None = None
    ) -> None:
        #: The connection scope, as the server passed it.
        self.scope = scope
        self._receive = receive
        self._send = send
        self._state = state
        self._connect_received = False
        self._status = _State.CONNECTING
        self._request: Request | None = None

    @property
    def request(self) -> Request:
        """The opening handshake as a :class:`~sansio_http.Request`."""
        if self._request is None:
            scope = self.scope
            path, root_path = split_path(scope["path"], scope.get("root_path", ""))
            self._request = Request(
                "GET",
                path,
                scope.get("query_string", b""),
                scope["headers"],
                scope.get("scheme") or "ws",
                client_address(scope.get("client")),
                root_path,
                server_address(scope.get("server")),
            )
        return self._request

    @property
    def path(self) -> str:
        """The path below ``root_path``, as :attr:`Request.path`."""
        return self.request.path

    @property
    def headers(self) -> Headers:
        """The handshake's headers."""
        return self.request.headers

    @property
    def subprotocols(self) -> list[str]:
        """The subprotocols the client offered, in its order of preference."""
        return list(self.scope.get("subprotocols", ()))

    @property
    def state(self) -> dict[str, Any]:
        """The lifespan state, as ``ASGIRequest.state``.

        Raises:
            RuntimeError: Neither the server nor the application keeps one.
        """
        state = self.scope.get("state")
        if state is None:
            state = self._state
        if state is None:
            raise RuntimeError("the server and the application keep no lifespan state")
        return state

    @property
    def connected(self) -> bool:
        """Whether the session is accepted and not closed."""
        return self._status is _State.CONNECTED

    @property
    def closed(self) -> bool:
        """Whether the session is over: closed, denied or disconnected."""
        return self._status is _State.CLOSED

    async def _connect(self) -> None:
        if self._connect_received:
            return
        message = await self._receive()
        self._connect_received = True
        if message["type"] == "websocket.disconnect":
            self._status = _State.CLOSED
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason") or "")

    async def _emit(self, message: Message) -> None:
        try:
            await self._send(message)
        except OSError as exc:
            # ASGI 2.4: a server raises OSError on a connection that is gone.
            self._status = _State.CLOSED
            raise WebSocketDisconnect(1006) from exc

    def _require(self, status: _State, action: str) -> None:
        if self._status is not status:
            raise RuntimeError(f"cannot {action}: the websocket is {self._status.value}")

    async def accept(
        self,
        subprotocol: str | None = None,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
    ) -> None:
        """Accept the connection, choosing a subprotocol and extra headers.

        Args:
            subprotocol: One of :attr:`subprotocols`, or None for none.
            headers: Extra headers for the handshake response.

        Raises:
            RuntimeError: The session is not connecting.
            ValueError: ``subprotocol`` was not offered by the client.
            WebSocketDisconnect: The client left before the handshake ended.
        """
        self._require(_State.CONNECTING, "accept")
        if subprotocol is not None and subprotocol not in self.subprotocols:
            raise ValueError(f"the client did not offer the subprotocol {subprotocol!r}")
        await self._connect()
        message: Message = {"type": "websocket.accept", "subprotocol": subprotocol}
        if headers:
            message["headers"] = _raw(headers)
        await self._emit(message)
        self._status = _State.CONNECTED

    async def deny(self, response: Response) -> None:
        """Refuse the connection with an HTTP response instead of a 403.

        The response is sent when the server offers the
        ``websocket.http.response`` extension; otherwise the connection is
        closed, which servers answer with 403.

        Args:
            response: The refusal, such as ``Forbidden().to_response()``.

        Raises:
            RuntimeError: The session is not connecting.
        """
        self._require(_State.CONNECTING, "deny")
        await self._connect()
        extensions = self.scope.get("extensions") or {}
        self._status = _State.CLOSED
        if "websocket.http.response" not in extensions:
            await self._emit({"type": "websocket.close", "code": 1008, "reason": ""})
            return
        sender = ResponseSender(
            self._send,
            start_type="websocket.http.response.start",
            body_type="websocket.http.response.body",
        )
        await sender.send(response)

    async def receive(self) -> str | bytes:
        """Wait for the next message.

        Returns:
            The text (``str``) or binary (``bytes``) message.

        Raises:
            WebSocketDisconnect: The session closed.
            RuntimeError: The session was never accepted.
        """
        if self._status is _State.CLOSED:
            raise WebSocketDisconnect(1006)
        self._require(_State.CONNECTED, "receive")
        message = await self._receive()
        if message["type"] == "websocket.disconnect":
            self._status = _State.CLOSED
            raise WebSocketDisconnect(message.get("code", 1005), message.get("reason") or "")
        text = message.get("text")
        if text is not None:
            return text  # type: ignore[no-any-return]
        return message.get("bytes") or b""

    async def receive_text(self) -> str:
        """Wait for the next message, which must be text.

        Returns:
            The text.

        Raises:
            WebSocketDisconnect: The session closed, or the peer sent bytes
                (the session is then closed with 1003).
        """
        data = await self.receive()
        if isinstance(data, bytes):
            await self._refuse(1003, "expected a text message")
        return data

    async def receive_bytes(self) -> bytes:
        """Wait for the next message, which must be binary.

        Returns:
            The bytes.

        Raises:
            WebSocketDisconnect: The session closed, or the peer sent text
                (the session is then closed with 1003).
        """
        data = await self.receive()
        if isinstance(data, str):
            await self._refuse(1003, "expected a binary message")
        return data

    async def receive_json(self, loads: Callable[[str], Any] | None = None) -> Any:
        """Wait for the next message and decode it as JSON, text or binary.

        Args:
            loads: Parses the text; by default ``json.loads`` refusing
                ``NaN`` and ``Infinity``, as for request bodies.

        Returns:
            The decoded value.

        Raises:
            WebSocketDisconnect: The session closed, or the message was not
                JSON (the session is then closed with 1007, RFC 6455 §7.4.1).
        """
        data = await self.receive()
        try:
            return decode_json(data, loads)
        except BadRequest:
            await self._refuse(1007, "expected a JSON message")

    async def _refuse(self, code: int, reason: str) -> NoReturn:
        await self.close(code, reason)
        raise WebSocketDisconnect(code, reason)

    async def send_text(self, text: str) -> None:
        """Send a text message.

        Raises:
            WebSocketDisconnect: The peer is gone.
            RuntimeError: The session is not connected.
        """
        self._require(_State.CONNECTED, "send")
        await self._emit({"type": "websocket.send", "text": text})

    async def send_bytes(self, data: bytes) -> None:
        """Send a binary message.

        Raises:
            WebSocketDisconnect: The peer is gone.
            RuntimeError: The session is not connected.
        """
        self._require(_State.CONNECTED, "send")
        await self._emit({"type": "websocket.send", "bytes": data})

    async def send_json(self, data: Any, dumps: Callable[[Any], str] | None = None) -> None:
        """Send a value as a JSON text message.

        Args:
            data: The value to encode.
            dumps: The encoder; compact ``json.dumps`` by default.

        Raises:
            WebSocketDisconnect: The peer is gone.
            RuntimeError: The session is not connected.
        """
        text = (
            dumps(data)
            if dumps is not None
            else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        )
        await self.send_text(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the session; before :meth:`accept`, refuse it (a 403).

        Closing a closed session does nothing.

        Args:
            code: The close code (RFC 6455 §7.4.1).
            reason: A short reason for the peer.
        """
        if self._status is _State.CLOSED:
            return
        if self._status is _State.CONNECTING:
            try:
                await self._connect()
            except WebSocketDisconnect:
                return  # the client left first: nothing to refuse
        self._status = _State.CLOSED
        await self._emit({"type": "websocket.close", "code": code, "reason": reason})

    def __aiter__(self) -> AsyncIterator[str | bytes]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[str | bytes]:
        """Yield messages until the session closes, whatever its code."""
        while True:
            try:
                data = await self.receive()
            except WebSocketDisconnect:
                return
            yield data

    def __repr__(self) -> str:
        return f"<WebSocket {self.scope.get('path')!r} {self._status.value}>"


def _raw(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    """Return headers as ASGI pairs, refusing CR, LF and NUL as responses do."""
    return MutableHeaders(headers).raw()
