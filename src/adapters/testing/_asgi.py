"""Driving an ASGI 3 application in-process: event loop, HTTP and lifespan.

The client is synchronous, so each ASGI call runs as a task on an event
loop the client owns, and the client runs that loop only while it waits for
the application: until the response starts, until the next body chunk,
until the application returns. Between two waits the task simply stays
suspended, which is what lets a lifespan task or a websocket session live
across many synchronous calls without any thread.

The messages follow what uvicorn sends: the body arrives in one
``http.request`` message (or one per chunk of a streamed body), then
``receive()`` waits until the response is complete and reports
``http.disconnect``; ``send()`` raises ``OSError`` once the client went
away (ASGI HTTP spec 2.4).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, MutableMapping
from typing import Any, TypeVar

from sansio_http.http._headers import Headers
from sansio_http.messages._request import RAISE_EXCEPTIONS

from ._request import ClientRequest, declared_length
from ._response import ClientResponse, has_content

__all__ = ["RAISE_EXCEPTIONS", "ASGIApp", "EventLoop", "Lifespan", "LifespanError", "run_asgi"]


T = TypeVar("T")
Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
#: An ASGI 3 application.
ASGIApp = Callable[
    [Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]


class LifespanError(RuntimeError):
    """The application reported ``lifespan.startup.failed`` or ``.shutdown.failed``."""


def _refuse_running_loop() -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return  # no loop runs in this thread: ours may
    raise RuntimeError("the test client is synchronous; call it outside any event loop")


class EventLoop:
    """An event loop the client runs only while it waits for the application."""

    def __init__(self) -> None:
        _refuse_running_loop()
        self.loop = asyncio.new_event_loop()

    def run(self, awaitable: Awaitable[T]) -> T:
        """Run the loop until ``awaitable`` is done; return its result.

        Args:
            awaitable: What to wait for.

        Raises:
            RuntimeError: Called from a coroutine: the client is synchronous.
        """
        _refuse_running_loop()
        return self.loop.run_until_complete(awaitable)

    def start(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Schedule ``coroutine`` as a task; it runs whenever the loop does."""
        return self.loop.create_task(coroutine)

    def close(self) -> None:
        """Cancel what is left, stop the thread pool and close the loop."""
        loop = self.loop
        if loop.is_closed():
            return
        tasks = asyncio.all_tasks(loop)
        if tasks:
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.wait(tasks))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


async def wait_until(
    ready: Callable[[], bool], task: asyncio.Task[None], progress: asyncio.Event
) -> None:
    """Wait until ``ready()`` holds or ``task`` ended, woken by ``progress``."""
    while not ready() and not task.done():
        progress.clear()
        waiter = asyncio.ensure_future(progress.wait())
        try:
            await asyncio.wait({waiter, task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()


def _body_messages(body: bytes | Iterable[bytes], declared: int | None) -> Iterator[Message]:
    if declared is not None:
        yield from _sized_messages([body] if isinstance(body, bytes) else body, declared)
        return
    if isinstance(body, bytes):
        yield {"type": "http.request", "body": body, "more_body": False}
        return
    # NOTE: a chunked body cannot carry an empty chunk (it is the terminator),
    # so empty pieces are skipped and the last message ends the body.
    chunks = (bytes(chunk) for chunk in body if chunk)
    current = next(chunks, None)
    while current is not None:
        following = next(chunks, None)
        yield {"type": "http.request", "body": current, "more_body": following is not None}
        current = following
    yield {"type": "http.request", "body": b"", "more_body": False}


def _sized_messages(chunks: Iterable[bytes], declared: int) -> Iterator[Message]:
    """Deliver a body of ``declared`` bytes as a server reads it by its Content-Length.

    Bytes past the length are not delivered (a server would read them as
    the next request); a body that ends short is a client that went away
    mid-body, which a server reports as ``http.disconnect`` (uvicorn does).
    """
    if not declared:
        yield {"type": "http.request", "body": b"", "more_body": False}
        return
    remaining = declared
    for chunk in chunks:
        piece = bytes(chunk[:remaining])
        if piece:
            remaining -= len(piece)
            yield {"type": "http.request", "body": piece, "more_body": remaining > 0}
            if not remaining:
                return
    yield {"type": "http.disconnect"}


def http_scope(request: ClientRequest, state: dict[str, Any] | None) -> Scope:
    """Build the ``http`` scope of a request, as uvicorn would."""
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.encode("ascii"),
        "query_string": request.query_string,
        "root_path": request.root_path,
        "headers": request.headers.raw(),
        "client": (request.remote_addr, 50000) if request.remote_addr is not None else None,
        "server": (request.host, request.port),
        "extensions": {"http.response.pathsend": {}},
    }
    if state is not None:
        # The lifespan state extension: each request gets a shallow copy.
        scope["state"] = dict(state)
    return scope


class _Exchange:
    """One HTTP request through an ASGI application."""

    def __init__(
        self,
        app: ASGIApp,
        request: ClientRequest,
        loop: EventLoop,
        *,
        state: dict[str, Any] | None,
        raise_errors: bool,
    ) -> None:
        self.request = request
        self.loop = loop
        self.raise_errors = raise_errors
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunks: deque[bytes] = deque()
        self.complete = False
        self.gone = False
        self.reported = False
        #: The server's failure that cut the response off after its head.
        self.cut: ServerError | None = None
        self.messages = _body_messages(request.body, declared_length(request.headers))
        self.body_read = False
        self.progress = asyncio.Event()
        self.finished = asyncio.Event()
        self.drained = asyncio.Event()
        scope = http_scope(request, state)
        if raise_errors:
            scope["extensions"][RAISE_EXCEPTIONS] = {}
        self.task = loop.start(self._call(app, scope))

    async def _call(self, app: ASGIApp, scope: Scope) -> None:
        await app(scope, self.receive, self.send)

    async def receive(self) -> Message:
        if not self.body_read and not self.gone:
            message = next(self.messages)
            if message["type"] == "http.disconnect":
                self.body_read = True  # the client sent less than its Content-Length
                return message
            self.body_read = not message["more_body"]
            return message
        # Like uvicorn: once the body is read, wait for the end of the response.
        await self.finished.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        if self.gone:
            raise OSError("the client closed the connection")
        kind = message["type"]
        if self.complete:
            raise RuntimeError(f"{kind} sent after the response was complete")
        if kind == "http.response.start":
            if self.status is not None:
                raise RuntimeError("http.response.start sent twice")
            self.status = message["status"]
            self.headers = [(bytes(n), bytes(v)) for n, v in message.get("headers", [])]
        elif self.status is None:
            raise RuntimeError(f"{kind} sent before http.response.start")
        elif kind == "http.response.body":
            body = message.get("body", b"")
            self.complete = not message.get("more_body", False)
            if body and self.request.method != "HEAD" and has_content(self.status):
                self.chunks.append(bytes(body))
                await self._until_drained()
        elif kind == "http.response.pathsend":
            await self._send_file(message["path"])
        else:
            raise RuntimeError(f"unexpected ASGI message {kind!r}")
        if self.complete:
            self.finished.set()
        self.progress.set()

    async def _until_drained(self) -> None:
        """Wait until the client took the chunks, as a socket's buffer would."""
        # NOTE: this back-pressure is what makes a streamed response stream:
        # the application produces the next chunk only once the test asked.
        self.progress.set()
        while self.chunks and not self.gone:
            self.drained.clear()
            await self.drained.wait()
        if self.gone:
            raise OSError("the client closed the connection")

    async def _send_file(self, path: str) -> None:
        # A server opens the file after the head (the ASGI specification
        # leaves the failure to it): one that cannot closes the connection,
        # and the application, whose send() returned, knows nothing.
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as exc:
            self.cut = ServerError(f"the server could not send the file {path!r}: {exc}")
            self.cut.__cause__ = exc
            data = b""
        status = self.status
        if data and self.request.method != "HEAD" and status is not None and has_content(status):
            self.chunks.append(data)
        self.complete = True

    def _wait(self, ready: Callable[[], bool]) -> None:
        self.loop.run(wait_until(ready, self.task, self.progress))

    def _failure(self) -> BaseException | None:
        """Return what the application raised, once, if it is to be raised."""
        if self.reported or not self.task.done() or self.task.cancelled():
            return None
        self.reported = True
        error = self.task.exception()
        if error is None or not self.raise_errors:
            return None
        if self.gone and isinstance(error, OSError):
            return None  # the error our own disconnect caused
        return error

    def start(self) -> ClientResponse:
        self._wait(lambda: self.status is not None)
        if self.status is None:
            error = self._failure()
            if error is not None:
                raise error
            if self.raise_errors:
                raise RuntimeError("the application returned without starting a response")
            self._wait(lambda: False)
            return _server_error(self.request)
        return ClientResponse(
            self.status,
            Headers(self.headers),
            request=self.request,
            chunks=self._body(),
            close=self.close,
        )

    def _body(self) -> Iterator[bytes]:
        while True:
            self._wait(lambda: bool(self.chunks) or self.complete)
            while self.chunks:
                chunk = self.chunks.popleft()
                if not self.chunks:
                    self.drained.set()
                yield chunk
            if self.cut is not None:
                raise self.cut
            if self.complete or self.task.done():
                break
        # Work the application does after the response (background tasks)
        # still belongs to this request.
        self._wait(lambda: False)
        error = self._failure()
        if error is not None:
            raise error

    def close(self) -> None:
        if not self.task.done():
            self.gone = True
            self.finished.set()
            self.drained.set()
            self._wait(lambda: False)
        error = self._failure()
        if error is not None:
            raise error


class ServerError(RuntimeError):
    """The emulated server failed after the head and closed the connection."""


def _server_error(request: ClientRequest) -> ClientResponse:
    body = b"Internal Server Error"
    headers = Headers([(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"21")])
    return ClientResponse(500, headers, request=request, chunks=iter([body]))


def run_asgi(
    app: ASGIApp,
    request: ClientRequest,
    loop: EventLoop,
    *,
    state: dict[str, Any] | None = None,
    raise_errors: bool = True,
) -> ClientResponse:
    """Start a request through an ASGI application; return once it responded.

    Args:
        app: The application.
        request: The request.
        loop: The loop the application's task runs on.
        state: The lifespan state, copied into the scope; None for none.
        raise_errors: Re-raise what the application raises; otherwise
            answer 500 before the response started, and end the body after.

    Returns:
        The response with its body unread; reading it runs the application
        further, and closing it early disconnects the client.
    """
    return _Exchange(app, request, loop, state=state, raise_errors=raise_errors).start()


class Lifespan:
    """The server side of the lifespan protocol, for one startup and shutdown.

    Args:
        app: The application.
        loop: The loop its lifespan task runs on for the client's lifetime.
    """

    def __init__(self, app: ASGIApp, loop: EventLoop) -> None:
        self.loop = loop
        #: The lifespan state; None when the application does not do lifespan.
        self.state: dict[str, Any] | None = {}
        self.asked = 0
        self.answers: list[Message] = []
        self.progress = asyncio.Event()
        self.shutting_down = asyncio.Event()
        scope: Scope = {
            "type": "lifespan",
            "asgi": {"version": "3.0", "spec_version": "2.0"},
            "state": self.state,
        }
        self.task = loop.start(self._call(app, scope))

    async def _call(self, app: ASGIApp, scope: Scope) -> None:
        await app(scope, self.receive, self.send)

    async def receive(self) -> Message:
        self.asked += 1
        if self.asked == 1:
            return {"type": "lifespan.startup"}
        await self.shutting_down.wait()
        return {"type": "lifespan.shutdown"}

    async def send(self, message: Message) -> None:
        self.answers.append(message)
        self.progress.set()

    def _exchange(self, count: int) -> None:
        self.loop.run(wait_until(lambda: len(self.answers) >= count, self.task, self.progress))
        if len(self.answers) >= count:
            answer = self.answers[count - 1]
            if answer["type"].endswith(".failed"):
                raise LifespanError(answer.get("message") or answer["type"])
            return
        error = None if self.task.cancelled() else self.task.exception()
        if self.asked < count:
            # ASGI lifespan spec: an application that raises (or returns)
            # before taking the message does not support lifespan; go on.
            self.state = None
            return
        if error is not None:
            raise error
        raise LifespanError("the application returned without answering the lifespan message")

    def startup(self) -> None:
        """Send ``lifespan.startup`` and wait for the answer.

        Raises:
            LifespanError: The application answered ``lifespan.startup.failed``.
            Exception: Whatever the application raised during the startup.
        """
        self._exchange(1)

    def shutdown(self) -> None:
        """Send ``lifespan.shutdown``, wait for the answer and the return.

        Raises:
            LifespanError: The application answered ``lifespan.shutdown.failed``.
            Exception: Whatever the application raised during the shutdown.
        """
        if self.task.done():
            return
        self.shutting_down.set()
        self._exchange(2)
        self.loop.run(wait_until(lambda: False, self.task, self.progress))
