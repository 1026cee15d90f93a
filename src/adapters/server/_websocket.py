"""Websockets for ASGI applications, framed by ``wsproto`` when installed.

The handshake answer is built here (RFC 6455 §4.2.2); frames after it go
through wsproto's sans-IO connection. Without the ``server`` extra an
upgrade request gets a plain 501.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes

import h11

from sansio_http.messages._target import Target
from sansio_http.server._asgi import ASGI_VERSION, ASGIApp, Message
from sansio_http.server._date import with_date
from sansio_http.server._exchange import effective_headers

try:
    from wsproto.connection import Connection, ConnectionType
    from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
except ImportError:  # pragma: no cover - the optional "server" extra is missing
    #: Whether websocket framing is available (the ``server`` extra).
    AVAILABLE = False
else:
    AVAILABLE = True

if TYPE_CHECKING:
    from sansio_http.server._connection import HTTPConnection

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def accept_key(key: bytes) -> bytes:
    """Return the Sec-WebSocket-Accept value for a Sec-WebSocket-Key."""
    return base64.b64encode(hashlib.sha1(key.strip() + _GUID).digest())


class WebSocketSession:
    """Bridge one websocket connection to an ASGI application."""

    def __init__(
        self,
        app: ASGIApp,
        connection: HTTPConnection,
        request: h11.Request,
        target: Target,
        state: dict[str, Any],
    ) -> None:
        self.app = app
        self.connection = connection
        self.request = request
        self.target = target
        self.headers = effective_headers(request.headers, target.authority)
        self.state = state
        self.queue: asyncio.Queue[Message] = asyncio.Queue()
        self.accepted = False
        self.closed = False
        self.ws: Any = None
        self.key = b""
        self.reader: asyncio.Task[None] | None = None
        self._denial: Message = {"status": 403, "headers": []}
        self._denial_started = False

    def scope(self) -> dict[str, Any]:
        """Return the ASGI ``websocket`` scope."""
        raw_path = self.target.path
        protocols = [
            p.strip().decode("latin-1")
            for name, value in self.headers
            if name == b"sec-websocket-protocol"
            for p in value.split(b",")
        ]
        return {
            "type": "websocket",
            "asgi": ASGI_VERSION,
            "http_version": self.request.http_version.decode("ascii"),
            "scheme": "ws",
            "path": unquote_to_bytes(raw_path).decode("utf-8", "replace"),
            "raw_path": raw_path,
            "query_string": self.target.query,
            "root_path": "",
            "headers": list(self.headers),
            "client": self.connection.client,
            "server": self.connection.server,
            "subprotocols": protocols,
            "state": dict(self.state),
            "extensions": {"websocket.http.response": {}},
        }

    async def run(self) -> None:
        """Run the application until the websocket closes."""
        key = b""
        for name, value in self.request.headers:
            if name == b"sec-websocket-key":
                key = value
        if not key:
            await self.connection.refuse(400, "missing Sec-WebSocket-Key")
            return
        self.key = key
        await self.queue.put({"type": "websocket.connect"})
        try:
            await self.app(self.scope(), self.receive, self.send)
        except Exception:
            if not self.accepted:
                await self.connection.refuse(500, "Internal Server Error")
                return
        finally:
            if self.reader is not None:
                self.reader.cancel()
        if not self.accepted and not self.closed:
            # ASGI websocket spec: an application that returns before
            # accepting has refused the handshake, which is a 403. A denial
            # response left unfinished cannot be completed: refuse() then
            # sends nothing and the connection closes.
            await self.connection.refuse(403, "Forbidden")
            return
        if self.accepted and not self.closed:
            await self._send_close(1000, "")

    async def receive(self) -> Message:
        """Return the next ASGI websocket message."""
        return await self.queue.get()

    async def send(self, message: Message) -> None:
        """Act on an ASGI websocket message from the application."""
        kind = message["type"]
        if kind == "websocket.accept":
            headers = [
                (b"upgrade", b"websocket"),
                (b"connection", b"Upgrade"),
                (b"sec-websocket-accept", accept_key(self.key)),
            ]
            if message.get("subprotocol"):
                headers.append((b"sec-websocket-protocol", message["subprotocol"].encode()))
            headers.extend((bytes(n), bytes(v)) for n, v in message.get("headers", []))
            conn = self.connection.h11
            data = conn.send(h11.InformationalResponse(status_code=101, headers=with_date(headers)))
            self.connection.writer.write(data or b"")
            await self.connection.writer.drain()
            trailing, _ = conn.trailing_data
            self.ws = Connection(ConnectionType.SERVER, trailing_data=trailing)
            self.accepted = True
            self.reader = asyncio.create_task(self._read_frames())
        elif kind == "websocket.send":
            if not self.accepted or self.closed:
                raise RuntimeError("websocket.send on a socket that is not open")
            if message.get("text") is not None:
                event: Any = TextMessage(data=message["text"])
            else:
                event = BytesMessage(data=bytes(message.get("bytes") or b""))
            self.connection.writer.write(self.ws.send(event))
            await self.connection.writer.drain()
        elif kind == "websocket.close":
            if not self.accepted:
                await self.connection.refuse(403, "Forbidden")
                self.closed = True
                return
            await self._send_close(int(message.get("code", 1000)), message.get("reason") or "")
        elif kind == "websocket.http.response.start":
            self._denial = message
        elif kind == "websocket.http.response.body":
            head = self._denial
            conn = self.connection.h11
            headers = [(bytes(n), bytes(v)) for n, v in head.get("headers", [])]
            if not self._denial_started:
                self._denial_started = True
                response = h11.Response(status_code=head["status"], headers=with_date(headers))
                data = conn.send(response)
                self.connection.writer.write(data or b"")
            self.connection.writer.write(conn.send(h11.Data(data=message.get("body", b""))) or b"")
            if not message.get("more_body", False):
                self.connection.writer.write(conn.send(h11.EndOfMessage()) or b"")
                self.closed = True
            await self.connection.writer.drain()
        else:
            raise RuntimeError(f"unexpected ASGI message {kind!r}")

    async def _send_close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self.connection.writer.write(self.ws.send(CloseConnection(code=code, reason=reason)))
            await self.connection.writer.drain()
        except Exception:  # the peer may already be gone
            pass

    async def _read_frames(self) -> None:
        text: list[str] = []
        data: list[bytes] = []
        while True:
            try:
                chunk = await self.connection.reader.read(65536)
            except ConnectionError:
                chunk = b""
            self.ws.receive_data(chunk or None)
            for event in self.ws.events():
                if isinstance(event, TextMessage):
                    text.append(event.data)
                    if event.message_finished:
                        await self.queue.put({"type": "websocket.receive", "text": "".join(text)})
                        text.clear()
                elif isinstance(event, BytesMessage):
                    data.append(bytes(event.data))
                    if event.message_finished:
                        await self.queue.put({"type": "websocket.receive", "bytes": b"".join(data)})
                        data.clear()
                elif isinstance(event, Ping):
                    self.connection.writer.write(self.ws.send(event.response()))
                elif isinstance(event, CloseConnection):
                    if not self.closed:
                        self.closed = True
                        try:
                            self.connection.writer.write(self.ws.send(event.response()))
                        except Exception:  # already closing
                            pass
                    await self.queue.put({"type": "websocket.disconnect", "code": event.code})
                    return
            if not chunk:
                await self.queue.put({"type": "websocket.disconnect", "code": 1006})
                return
