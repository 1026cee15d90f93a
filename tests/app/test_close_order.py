"""One close order under ``to_wsgi`` and ``to_asgi``: the body, then the work after it.

When a response ends, whichever way (finished, HEAD, error, client gone),
its body is closed first, so that a ``def`` producer's ``finally`` has run,
and the work of ``Response.call_on_close`` runs after that. The App below is
the one source, run under both adapters through the test client, with and
without a middleware in front: the built-in gzip, which wraps the body, and
a hook of the user's, which adds work of its own.

The hard case is a ``def`` producer of an event stream that is blocked
inside ``next()`` when the client leaves: no thread can be interrupted, so
the producer is closed when that ``next()`` returns, and the work waits for
it. Under WSGI the server's thread must not wait for the producer meanwhile.
Every wait below is on an event, bounded by :data:`BOUND` seconds.
"""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import pytest

from sansio_http import App, EventStream, GZipMiddleware, Middleware, Request, Response
from sansio_http.testing import Client

Interface = Literal["wsgi", "asgi"]

#: The longest any wait of these tests lasts; none lasts it unless a test fails.
BOUND = 10.0
#: The keep-alive interval of the streams: short, so that a test sees one soon.
IDLE = 0.05
KEEPALIVE = b": keep-alive\n\n"
IDLE_CHUNK = b": idle\n\n"


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    value: Interface = request.param
    return value


class Notes:
    """What happened to one response, in order, noted from any thread."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self._condition = threading.Condition()
        #: Set by a producer just before it blocks.
        self.waiting = threading.Event()
        #: Set by the test to let a blocked producer return.
        self.release = threading.Event()

    def add(self, what: str) -> None:
        with self._condition:
            self.seen.append(what)
            self._condition.notify_all()

    def wait_for(self, *whats: str) -> list[str]:
        """Wait until every one of ``whats`` is noted; return all the notes."""
        with self._condition:
            done = self._condition.wait_for(lambda: all(what in self.seen for what in whats), BOUND)
            assert done, f"still waiting for {whats} after {BOUND} s: {self.seen}"
            return list(self.seen)


class AddsWork(Middleware):
    """A user's hook that registers work of its own after the view's."""

    blocking = False

    def __init__(self, notes: Notes) -> None:
        self.notes = notes

    def process_response(self, request: Request, response: Response) -> Response:
        response.headers["x-hook"] = "seen"
        response.call_on_close(lambda: self.notes.add("hook work"))
        return response


def with_middleware(app: App, middleware: str, notes: Notes) -> App:
    if middleware == "gzip":
        app.add_middleware(GZipMiddleware(minimum_size=0))
    elif middleware == "hook":
        app.add_middleware(AddsWork(notes))
    return app


MIDDLEWARE = ["none", "gzip", "hook"]


# -- a def producer blocked when the client leaves ------------------------------------


def blocked(notes: Notes) -> Iterator[Any]:
    """Send one event, then block until released (for :data:`BOUND` s at most)."""
    try:
        yield "first"
        notes.waiting.set()
        notes.release.wait(BOUND)
        yield "second"
    finally:
        notes.add("finally")


def blocked_app(notes: Notes, middleware: str) -> App:
    app = with_middleware(App(), middleware, notes)

    @app.get("/events")
    def events(request: Request) -> Response:
        response = EventStream(blocked(notes), keepalive_interval=IDLE)
        # Without no-transform, so that gzip compresses the stream.
        response.headers["cache-control"] = "no-cache"
        response.call_on_close(lambda: notes.add("work"))
        return response

    return app


@pytest.mark.parametrize("middleware", MIDDLEWARE)
def test_a_blocked_def_producer_is_closed_before_the_work_runs(
    interface: Interface, middleware: str
) -> None:
    notes = Notes()
    client = Client(blocked_app(notes, middleware), interface=interface)
    try:
        leave_while_blocked(client, interface, notes, gzipped=middleware == "gzip")
    finally:
        notes.release.set()  # a failed test leaves no producer blocked
    expected = ["finally", "work", "hook work"] if middleware == "hook" else ["finally", "work"]
    assert notes.wait_for(*expected) == expected


def leave_while_blocked(
    client: Client, interface: Interface, notes: Notes, *, gzipped: bool
) -> None:
    """Read the first event, leave while the producer blocks, then release it."""
    inflate = zlib.decompressobj(wbits=31)
    with client.stream("GET", "/events", headers={"accept-encoding": "gzip"}) as response:
        assert (response.headers.get("content-encoding") == "gzip") == gzipped

        def text(chunk: bytes) -> bytes:
            return inflate.decompress(chunk) if gzipped else chunk

        chunks = response.iter_raw()
        assert text(next(chunks)) == b"data: first\n\n"
        # A keep-alive: the producer is busy, inside next().
        assert text(next(chunks)) == KEEPALIVE
        assert notes.waiting.wait(BOUND)
        # The client leaves from a thread of its own: under ASGI, the test
        # client's close() runs the application to its end, which waits
        # for the producer.
        leaving = threading.Thread(target=response.close)
        leaving.start()
        if interface == "wsgi":
            # The server's thread returns from close() without waiting for
            # the producer, and leaves the work to the thread that runs it.
            leaving.join(BOUND)
            assert not leaving.is_alive()
            assert notes.seen == []
        notes.release.set()
        leaving.join(BOUND)
        assert not leaving.is_alive()


# -- every path, every kind of producer ----------------------------------------------


class NotedBody:
    """A sync body around a generator; notes its ``close()`` after the generator's."""

    def __init__(self, producer: Any, notes: Notes, *, idle: bool) -> None:
        self.producer = producer
        self.notes = notes
        if idle:
            self.idle_interval = IDLE
            self.idle_chunk = IDLE_CHUNK

    def __iter__(self) -> Iterator[Any]:
        return iter(self.producer)

    def close(self) -> None:
        try:
            self.producer.close()
        finally:
            self.notes.add("closed")


class AsyncNotedBody(NotedBody):
    """The same around an async generator, closed with ``aclose()``."""

    def __aiter__(self) -> AsyncIterator[Any]:
        return aiter(self.producer)

    async def aclose(self) -> None:
        try:
            await self.producer.aclose()
        finally:
            self.notes.add("closed")


def sync_producer(notes: Notes, fail: bool) -> Iterator[Any]:
    try:
        for number in range(100_000):
            yield f"item {number}\n"
            if fail:
                raise RuntimeError("the producer failed")
            if number == 2:
                return
            # Slow enough that a client that leaves finds it busy at times.
            notes.release.wait(0.001)
    finally:
        notes.add("finally")


async def async_producer(notes: Notes, fail: bool) -> AsyncIterator[Any]:
    try:
        for number in range(100_000):
            yield f"item {number}\n"
            if fail:
                raise RuntimeError("the producer failed")
            if number == 2:
                return
            await asyncio.sleep(0.001)
    finally:
        notes.add("finally")


def path_app(notes: Notes, producer: str, *, idle: bool, middleware: str, fail: bool) -> App:
    app = with_middleware(App(), middleware, notes)

    @app.route("/", methods=["GET", "HEAD"])
    def view(request: Request) -> Response:
        body: NotedBody
        if producer == "sync":
            body = NotedBody(sync_producer(notes, fail), notes, idle=idle)
        else:
            body = AsyncNotedBody(async_producer(notes, fail), notes, idle=idle)
        response = Response(body, content_type="text/plain")
        response.call_on_close(lambda: notes.add("work"))
        return response

    return app


@pytest.mark.parametrize("middleware", MIDDLEWARE)
@pytest.mark.parametrize("idle", [False, True], ids=["plain", "idle"])
@pytest.mark.parametrize("producer", ["sync", "async"])
@pytest.mark.parametrize("path", ["finished", "head", "error", "disconnect"])
def test_the_body_is_closed_before_the_work_on_every_path(
    interface: Interface, path: str, producer: str, idle: bool, middleware: str
) -> None:
    notes = Notes()
    app = path_app(notes, producer, idle=idle, middleware=middleware, fail=path == "error")
    client = Client(app, interface=interface, raise_app_exceptions=False)
    if path == "head":
        assert client.head("/").content == b""
    elif path == "disconnect":
        with client.stream("GET", "/") as response:
            assert next(response.iter_bytes())
    else:
        assert client.get("/").status_code == 200
    expected = ["closed", "work", "hook work"] if middleware == "hook" else ["closed", "work"]
    seen = notes.wait_for(*expected)
    if path == "head":
        # Closed unread: a generator that never ran has no finally to run.
        assert seen == expected
    else:
        assert seen == ["finally", *expected]
