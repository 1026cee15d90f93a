"""A strict ASGI 3 checker and in-process drivers for the adapter's tests.

`Checker` wraps an ASGI application and records every breach of the ASGI
specification it sees: message types and their order, header pairs that are
not lower-case bytes, anything sent after the response or the socket was
finished, concurrent ``receive()`` calls, a response left unfinished, a send
after the application itself saw the client disconnect. The drivers
(`request`, `WebSocketClient`, `lifespan`) play a well-behaved server and
fail the test on any recorded violation.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sansio_http.asgi._types import ASGIApp, Message, Receive, Scope, Send

T = TypeVar("T")

TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9a-z]+")
FORBIDDEN_VALUE = re.compile(rb"[\r\n\x00]")
# Every driver bounds its waits: a hung application fails the test instead.
TIMEOUT = 10.0


class Violation(AssertionError):
    """The application broke the ASGI specification."""


def run(awaitable: Awaitable[T]) -> T:
    """Run one coroutine on a fresh event loop, bounded in time."""

    async def bounded() -> T:
        return await asyncio.wait_for(awaitable, TIMEOUT)

    return asyncio.run(bounded())


def _check_headers(headers: Any, where: str) -> list[str]:
    problems = []
    try:
        pairs = list(headers)
    except TypeError:
        return [f"{where}: headers are not iterable"]
    for pair in pairs:
        if len(pair) != 2 or not all(isinstance(item, bytes) for item in pair):
            problems.append(f"{where}: header {pair!r} is not a pair of bytes")
            continue
        name, value = pair
        if not TOKEN.fullmatch(name):
            problems.append(f"{where}: header name {name!r} is not a lower-case token")
        if FORBIDDEN_VALUE.search(value):
            problems.append(f"{where}: header value {value!r} holds CR, LF or NUL")
    return problems


@dataclass
class Checker:
    """Wrap an ASGI application and record the specification breaches."""

    app: ASGIApp
    violations: list[str] = field(default_factory=list)

    def fail(self, problem: str) -> None:
        self.violations.append(problem)
        raise Violation(problem)

    def check(self, condition: bool, problem: str) -> None:
        if not condition:
            self.fail(problem)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self._lifespan(scope, receive, send)

    def _guard_receive(self, receive: Receive, seen: list[Message]) -> Receive:
        busy = False

        async def checked_receive() -> Message:
            nonlocal busy
            self.check(not busy, "receive() called while another call is awaited")
            busy = True
            try:
                message = await receive()
            finally:
                busy = False
            seen.append(message)
            return message

        return checked_receive

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        seen: list[Message] = []
        state: dict[str, Any] = {
            "started": False,
            "complete": False,
            "length": 0,
            "declared": None,
            "status": 200,
        }
        extensions = scope.get("extensions") or {}

        def saw_disconnect() -> bool:
            return any(message["type"] == "http.disconnect" for message in seen)

        async def checked_send(message: Message) -> None:
            self.check(isinstance(message, dict) and "type" in message, f"bad message {message!r}")
            kind = message["type"]
            self.check(not state["complete"], f"{kind} sent after the response was complete")
            self.check(not saw_disconnect(), f"{kind} sent after http.disconnect was received")
            if not state["started"]:
                self.check(kind == "http.response.start", f"{kind} sent before the start")
                status = message.get("status")
                self.check(type(status) is int and 100 <= status <= 599, f"bad status {status!r}")
                state["status"] = status
                for problem in _check_headers(message.get("headers", []), "start"):
                    self.fail(problem)
                for name, value in message.get("headers", []):
                    if name == b"content-length":
                        state["declared"] = int(value)
                    if name in (b"content-length", b"transfer-encoding"):
                        # RFC 9110 §8.6, RFC 9112 §6.1.
                        self.check(
                            status is None or (status >= 200 and status != 204),
                            f"{name.decode()} in a {status} response",
                        )
                state["started"] = True
            elif kind == "http.response.body":
                body = message.get("body", b"")
                more = message.get("more_body", False)
                self.check(isinstance(body, bytes), f"body {body!r} is not bytes")
                self.check(isinstance(more, bool), f"more_body {more!r} is not a bool")
                state["length"] += len(body)
                if not more:
                    state["complete"] = True
                    self._check_length(scope, state)
            elif kind == "http.response.pathsend":
                self.check("http.response.pathsend" in extensions, "pathsend not offered")
                self.check(isinstance(message.get("path"), str), "pathsend without a path")
                state["complete"] = True
            else:
                self.fail(f"unexpected {kind} after the start")
            await send(message)

        try:
            await self.app(scope, self._guard_receive(receive, seen), checked_send)
        except Violation:
            raise
        except BaseException:
            # An exception after the start closes the connection (ASGI spec);
            # before the start the adapter must have answered instead.
            self.check(state["started"], "an exception escaped before the response started")
            raise
        self.check(state["complete"] or saw_disconnect(), "the application returned mid-response")

    def _check_length(self, scope: Scope, state: dict[str, Any]) -> None:
        status = state["status"]
        if scope["method"] == "HEAD":
            self.check(state["length"] == 0, "a HEAD response carried a body")
        elif status < 200 or status == 204 or status == 304:
            # RFC 9110 §15.3.5, §15.4.5: the head is the whole response; a
            # 304's Content-Length is that of the 200 it stands for.
            self.check(state["length"] == 0, f"a {status} response carried a body")
        elif state["declared"] is not None:
            self.check(
                state["declared"] == state["length"],
                f"content-length {state['declared']} but {state['length']} bytes sent",
            )

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        seen: list[Message] = []
        state: dict[str, bool] = {"accepted": False, "closed": False, "denying": False}
        extensions = scope.get("extensions") or {}
        offered = scope.get("subprotocols", [])

        async def checked_send(message: Message) -> None:
            kind = message["type"]
            self.check(not state["closed"], f"{kind} sent after the socket was closed")
            self.check(
                not any(m["type"] == "websocket.disconnect" for m in seen),
                f"{kind} sent after websocket.disconnect was received",
            )
            self.check(
                bool(seen) and seen[0]["type"] == "websocket.connect",
                f"{kind} sent before websocket.connect was received",
            )
            if state["denying"]:
                self.check(kind == "websocket.http.response.body", f"{kind} in a denial")
                if not message.get("more_body", False):
                    state["closed"] = True
            elif kind == "websocket.accept":
                self.check(not state["accepted"], "websocket.accept sent twice")
                subprotocol = message.get("subprotocol")
                self.check(subprotocol is None or subprotocol in offered, "subprotocol not offered")
                for problem in _check_headers(message.get("headers", []), "accept"):
                    self.fail(problem)
                state["accepted"] = True
            elif kind == "websocket.send":
                self.check(state["accepted"], "websocket.send before websocket.accept")
                data = (message.get("bytes"), message.get("text"))
                self.check(
                    (data[0] is None) != (data[1] is None), "send needs exactly one of bytes/text"
                )
            elif kind == "websocket.close":
                self.check(isinstance(message.get("code", 1000), int), "close code not an int")
                self.check(isinstance(message.get("reason", ""), str), "reason not a str")
                state["closed"] = True
            elif kind == "websocket.http.response.start":
                self.check("websocket.http.response" in extensions, "denial not offered")
                self.check(not state["accepted"], "denial after websocket.accept")
                for problem in _check_headers(message.get("headers", []), "denial"):
                    self.fail(problem)
                state["denying"] = True
            else:
                self.fail(f"unexpected {kind}")
            await send(message)

        await self.app(scope, self._guard_receive(receive, seen), checked_send)
        self.check(
            state["closed"] or any(m["type"] == "websocket.disconnect" for m in seen),
            "the application returned with the socket open",
        )

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        seen: list[Message] = []
        answered: list[str] = []

        async def checked_send(message: Message) -> None:
            kind = message["type"]
            phase = seen[-1]["type"] if seen else None
            allowed = {
                "lifespan.startup": ("lifespan.startup.complete", "lifespan.startup.failed"),
                "lifespan.shutdown": ("lifespan.shutdown.complete", "lifespan.shutdown.failed"),
            }.get(phase or "", ())
            self.check(kind in allowed and phase not in answered, f"{kind} after {phase}")
            if kind.endswith(".failed"):
                self.check(isinstance(message.get("message", ""), str), "message not a str")
            answered.append(phase or "")
            await send(message)

        await self.app(scope, self._guard_receive(receive, seen), checked_send)


class QueueReceive:
    """A ``receive`` callable fed by the test, counting its calls."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Message] = asyncio.Queue()
        self.calls = 0

    async def __call__(self) -> Message:
        self.calls += 1
        return await self.queue.get()

    def body(self, data: bytes, more: bool = False) -> None:
        self.queue.put_nowait({"type": "http.request", "body": data, "more_body": more})

    def disconnect(self) -> None:
        self.queue.put_nowait({"type": "http.disconnect"})


@dataclass
class HTTPResult:
    """What the application sent for one request."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    messages: list[Message]

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key == name.encode():
                return value.decode("latin-1")
        return None


def http_scope(
    method: str = "GET",
    path: str = "/",
    *,
    query_string: bytes = b"",
    headers: Sequence[tuple[bytes, bytes]] = (),
    root_path: str = "",
    extensions: dict[str, Any] | None = None,
    state: dict[str, Any] | None = None,
    **extra: Any,
) -> Scope:
    """Build an HTTP scope as uvicorn does."""
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query_string,
        "root_path": root_path,
        "headers": [
            *([] if any(name == b"host" for name, _ in headers) else [(b"host", b"testserver")]),
            *headers,
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "extensions": extensions or {},
    }
    if state is not None:
        scope["state"] = state
    scope.update(extra)
    return scope


async def request(
    app: ASGIApp,
    method: str = "GET",
    path: str = "/",
    *,
    body: bytes | Iterable[bytes] = b"",
    disconnect_after: int | None = None,
    on_send: Callable[[Message], Awaitable[None]] | None = None,
    checker: Checker | None = None,
    **scope_args: Any,
) -> HTTPResult:
    """Drive one HTTP request through ``app`` wrapped in a `Checker`.

    Args:
        app: The application.
        method: The request method.
        path: The request path.
        body: The body, whole or as the chunks of successive messages.
        disconnect_after: Make the client disconnect after this many body
            messages were sent by the application (0: before the response).
        on_send: Called with each message the application sends.
        checker: The checker to use, to inspect its violations afterwards.
        scope_args: Passed to `http_scope`.
    """
    chunks = [body] if isinstance(body, bytes) else list(body)
    scope = http_scope(method, path, **scope_args)
    messages: list[Message] = []
    done = asyncio.Event()
    gone = asyncio.Event()
    if disconnect_after == 0:
        gone.set()

    async def receive() -> Message:
        # Yield to the loop as a real server would between messages.
        await asyncio.sleep(0)
        if gone.is_set():
            return {"type": "http.disconnect"}
        if chunks:
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}
        # Like uvicorn: once the body is read, wait for the end or a disconnect.
        done_wait = asyncio.ensure_future(done.wait())
        gone_wait = asyncio.ensure_future(gone.wait())
        try:
            await asyncio.wait((done_wait, gone_wait), return_when=asyncio.FIRST_COMPLETED)
        finally:
            done_wait.cancel()
            gone_wait.cancel()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        await asyncio.sleep(0)
        if gone.is_set():
            return  # ASGI 2.3 servers ignore what is sent to a closed connection.
        messages.append(message)
        if on_send is not None:
            await on_send(message)
        if message["type"] == "http.response.body":
            sent = sum(1 for m in messages if m["type"] == "http.response.body")
            if not message.get("more_body", False):
                done.set()
            elif disconnect_after is not None and sent >= disconnect_after:
                gone.set()
        elif message["type"] == "http.response.pathsend":
            done.set()

    checker = checker if checker is not None else Checker(app)
    await checker(scope, receive, send)
    if checker.violations:
        raise Violation(checker.violations)
    start = next((m for m in messages if m["type"] == "http.response.start"), None)
    return HTTPResult(
        status=start["status"] if start else 0,
        headers=[(bytes(k), bytes(v)) for k, v in start.get("headers", [])] if start else [],
        body=b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body"),
        messages=messages,
    )


class WebSocketClient:
    """The client side of one in-process websocket session."""

    def __init__(self, inbox: asyncio.Queue[Message], outbox: asyncio.Queue[Message]) -> None:
        self.inbox = inbox
        self.outbox = outbox

    async def next(self) -> Message:
        """Return the next message the application sent."""
        return await asyncio.wait_for(self.outbox.get(), TIMEOUT)

    async def send_text(self, text: str) -> None:
        await self.inbox.put({"type": "websocket.receive", "text": text})

    async def send_bytes(self, data: bytes) -> None:
        await self.inbox.put({"type": "websocket.receive", "bytes": data})

    async def disconnect(self, code: int = 1000, reason: str = "") -> None:
        await self.inbox.put({"type": "websocket.disconnect", "code": code, "reason": reason})


@asynccontextmanager
async def websocket(
    app: ASGIApp,
    path: str = "/ws",
    *,
    subprotocols: Sequence[str] = (),
    extensions: dict[str, Any] | None = None,
    headers: Sequence[tuple[bytes, bytes]] = (),
    checker: Checker | None = None,
) -> AsyncIterator[WebSocketClient]:
    """Run ``app`` on a websocket session that the test drives."""
    scope: Scope = {
        "type": "websocket",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "scheme": "ws",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "subprotocols": list(subprotocols),
        "extensions": extensions or {},
    }
    inbox: asyncio.Queue[Message] = asyncio.Queue()
    outbox: asyncio.Queue[Message] = asyncio.Queue()
    closed = False

    async def receive() -> Message:
        if closed:
            return {"type": "websocket.disconnect", "code": 1006, "reason": ""}
        return await inbox.get()

    async def send(message: Message) -> None:
        nonlocal closed
        if closed:
            # ASGI 2.4: sending on a closed socket raises an OSError.
            raise OSError("the socket is closed")
        if message["type"] in ("websocket.close", "websocket.http.response.body"):
            closed = not message.get("more_body", False)
        await outbox.put(message)

    checker = checker if checker is not None else Checker(app)
    await inbox.put({"type": "websocket.connect"})
    task = asyncio.ensure_future(checker(scope, receive, send))
    try:
        yield WebSocketClient(inbox, outbox)
    finally:
        if not task.done():
            await inbox.put({"type": "websocket.disconnect", "code": 1001, "reason": ""})
        await asyncio.wait_for(task, TIMEOUT)
    if checker.violations:
        raise Violation(checker.violations)


async def lifespan(app: ASGIApp, *, state: dict[str, Any] | None = None) -> list[Message]:
    """Run a startup and a shutdown; return what the application answered."""
    scope: Scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}}
    if state is not None:
        scope["state"] = state
    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    answers: list[Message] = []
    startup_done = asyncio.Event()

    async def receive() -> Message:
        if incoming[0]["type"] == "lifespan.shutdown":
            await startup_done.wait()
        return incoming.pop(0)

    async def send(message: Message) -> None:
        answers.append(message)
        startup_done.set()

    checker = Checker(app)
    await checker(scope, receive, send)
    if checker.violations:
        raise Violation(checker.violations)
    return answers
