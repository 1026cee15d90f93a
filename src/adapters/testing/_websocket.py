"""``WebSocketSession``: the client end of an in-process ASGI websocket.

Opening the session delivers ``websocket.connect`` and waits for the
application's answer: ``websocket.accept`` opens the session, while
``websocket.close`` or a denial response (the ``websocket.http.response``
extension) raises :class:`WebSocketDenied` with the HTTP response a server
would have sent. Receiving after the application closed raises
:class:`WebSocketClosed` with its close code (RFC 6455 §7.4).
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any, Literal

from sansio_http.http._headers import Headers

from ._asgi import ASGIApp, EventLoop, Message, Scope, wait_until
from ._request import ClientRequest
from ._response import ClientResponse

__all__ = ["WebSocketClosed", "WebSocketDenied", "WebSocketSession", "websocket_scope"]


class WebSocketClosed(Exception):
    """The application closed the websocket.

    Args:
        code: The close code: 1000 normal, 1006 gone without a close...
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


class WebSocketDenied(Exception):
    """The application refused the websocket handshake.

    Args:
        response: The HTTP response sent instead: 403 with no body after a
            ``websocket.close``, or the application's own denial response.
    """

    def __init__(self, response: ClientResponse) -> None:
        super().__init__(response.status_code)
        self.response = response

    def __str__(self) -> str:
        return f"websocket handshake denied with status {self.response.status_code}"


def websocket_scope(
    request: ClientRequest, subprotocols: list[str], state: dict[str, Any] | None
) -> Scope:
    """Build the ``websocket`` scope of a handshake request, as uvicorn would."""
    scope: Scope = {
        "type": "websocket",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.encode("ascii"),
        "query_string": request.query_string,
        "root_path": request.root_path,
        "headers": request.headers.raw(),
        "client": (request.remote_addr, 50000) if request.remote_addr is not None else None,
        "server": (request.host, request.port),
        "subprotocols": subprotocols,
        "extensions": {"websocket.http.response": {}},
    }
    if state is not None:
        scope["state"] = dict(state)
    return scope


class WebSocketSession:
    """One websocket session with the application; use it with ``with``.

    Args:
        app: The ASGI application.
        request: The handshake request (scheme ``ws`` or ``wss``).
        loop: The loop the application's task runs on.
        subprotocols: The subprotocols offered, in order of preference.
        state: The lifespan state, copied into the scope.
        on_close: Called once when the session is over.
        raise_errors: Re-raise what the application raises.
    """

    def __init__(
        self,
        app: ASGIApp,
        request: ClientRequest,
        loop: EventLoop,
        *,
        subprotocols: list[str],
        state: dict[str, Any] | None = None,
        on_close: Callable[[], None] | None = None,
        raise_errors: bool = True,
    ) -> None:
        self._app = app
        self._loop = loop
        self._scope = websocket_scope(request, subprotocols, state)
        self._on_close = on_close
        self._raise_errors = raise_errors
        #: The handshake request.
        self.request = request
        #: The subprotocol the application accepted, or None.
        self.subprotocol: str | None = None
        #: The header fields the application accepted the handshake with.
        self.headers = Headers()
        #: The close code once the session is over, else None.
        self.close_code: int | None = None
        #: The close reason once the application closed the session.
        self.close_reason = ""
        self._inbox: deque[Message] = deque([{"type": "websocket.connect"}])
        self._outbox: deque[Message] = deque()
        self._progress = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._done = False
        self._reported = False

    # -- the application's side -------------------------------------------------

    async def _call(self) -> None:
        await self._app(self._scope, self._receive, self._send)

    async def _receive(self) -> Message:
        while not self._inbox:
            self._progress.clear()
            await self._progress.wait()
        return self._inbox.popleft()

    async def _send(self, message: Message) -> None:
        if self.close_code is not None:
            # ASGI websocket spec 2.4: sending on a closed socket raises OSError.
            raise OSError("the websocket is closed")
        self._outbox.append(message)
        if message["type"] == "websocket.close":
            self.close_code = message.get("code") or 1000
            self.close_reason = message.get("reason") or ""
        self._progress.set()

    # -- the test's side ------------------------------------------------------------

    def _task_or_fail(self) -> asyncio.Task[None]:
        if self._task is None:
            raise RuntimeError("open the session first: with client.websocket_connect(...) as ws")
        return self._task

    def _next(self) -> Message | None:
        """Return the application's next message; None once it returned."""
        task = self._task_or_fail()
        self._loop.run(wait_until(lambda: bool(self._outbox), task, self._progress))
        if self._outbox:
            return self._outbox.popleft()
        self._raise_failure()
        return None

    def _raise_failure(self) -> None:
        task = self._task_or_fail()
        if self._reported or not task.done() or task.cancelled():
            return
        self._reported = True
        error = task.exception()
        if error is not None and self._raise_errors:
            if not (isinstance(error, OSError) and self.close_code is not None):
                raise error

    def __enter__(self) -> WebSocketSession:
        self._task = self._loop.start(self._call())
        try:
            self._handshake()
        except BaseException:
            self._finish()
            raise
        return self

    def _handshake(self) -> None:
        first = self._next()
        if first is not None and first["type"] == "websocket.accept":
            self.subprotocol = first.get("subprotocol")
            self.headers = Headers([(bytes(n), bytes(v)) for n, v in first.get("headers", [])])
            return
        if first is not None and first["type"] == "websocket.http.response.start":
            headers = Headers([(bytes(n), bytes(v)) for n, v in first.get("headers", [])])
            body = []
            while (message := self._next()) is not None:
                body.append(bytes(message.get("body", b"")))
                if not message.get("more_body", False):
                    break
            response = ClientResponse(
                first["status"], headers, request=self.request, chunks=iter(body)
            )
        else:
            # ASGI: a close before the accept (or no answer) is an HTTP 403.
            response = ClientResponse(403, Headers(), request=self.request)
        response._read_raw()
        raise WebSocketDenied(response)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.close_code is None:
            self.close()
        else:
            self._finish()

    def _finish(self) -> None:
        if self._done:
            return
        self._done = True
        try:
            task = self._task_or_fail()
            if self.close_code is None:
                self.close_code = 1006
            self._inbox.append({"type": "websocket.disconnect", "code": self.close_code})
            self._progress.set()
            self._loop.run(wait_until(lambda: False, task, self._progress))
            self._raise_failure()
        finally:
            if self._on_close is not None:
                self._on_close()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the session from the client side and let the application end.

        Args:
            code: The close code (RFC 6455 §7.4.1).
            reason: The close reason.
        """
        if self.close_code is None:
            self.close_code = code
            self._inbox.append({"type": "websocket.disconnect", "code": code, "reason": reason})
            self._progress.set()
        self._finish()

    def send(self, message: Message) -> None:
        """Deliver a raw ``websocket.receive`` message to the application.

        Args:
            message: The message, with ``bytes`` or ``text``.

        Raises:
            WebSocketClosed: The session is over.
        """
        self._task_or_fail()
        if self.close_code is not None:
            raise WebSocketClosed(self.close_code, self.close_reason)
        self._inbox.append({"type": "websocket.receive", **message})
        self._progress.set()

    def send_text(self, text: str) -> None:
        """Send a text message."""
        self.send({"text": text})

    def send_bytes(self, data: bytes) -> None:
        """Send a binary message."""
        self.send({"bytes": data})

    def send_json(self, value: Any, mode: Literal["text", "binary"] = "text") -> None:
        """Send a value as JSON, in a text message or a binary one."""
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        self.send({"text": text} if mode == "text" else {"bytes": text.encode("utf-8")})

    def receive(self) -> Message:
        """Return the application's next ``websocket.send`` message.

        Raises:
            WebSocketClosed: The application closed the session (or
                returned without closing it: code 1006).
        """
        message = self._next()
        if message is None:
            self.close_code = self.close_code or 1006
            raise WebSocketClosed(self.close_code, self.close_reason)
        if message["type"] == "websocket.close":
            self._finish()
            raise WebSocketClosed(self.close_code or 1000, self.close_reason)
        if message["type"] != "websocket.send":
            raise RuntimeError(f"unexpected ASGI message {message['type']!r} after the accept")
        return message

    def receive_text(self) -> str:
        """Return the next message, which must be text."""
        message = self.receive()
        if message.get("text") is None:
            raise TypeError("expected a text message, received a binary one")
        text: str = message["text"]
        return text

    def receive_bytes(self) -> bytes:
        """Return the next message, which must be binary."""
        message = self.receive()
        if message.get("bytes") is None:
            raise TypeError("expected a binary message, received a text one")
        return bytes(message["bytes"])

    def receive_json(self, mode: Literal["text", "binary"] = "text") -> Any:
        """Return the next message decoded as JSON, from text or bytes."""
        return json.loads(self.receive_text() if mode == "text" else self.receive_bytes())
