"""Streamed bodies written once, sent alike by ``to_wsgi`` and ``to_asgi``.

Every test mounts the same view source under both adapters through the test
client: text chunks, idle chunks while the producer waits, the producer
closed exactly once on every path (finished, HEAD, error, disconnect), with
and without gzip, and the work of ``Response.call_on_close``.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Literal

import pytest

from sansio_http import App, GZipMiddleware, GZipTransform, Response, transform_body
from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.testing import Client
from sansio_http.wsgi import WSGIRequest, wsgi_app

Interface = Literal["wsgi", "asgi"]

IDLE = b": idle\n\n"


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    value: Interface = request.param
    return value


# -- producers that record what happens to them --------------------------------------


class Record:
    """What a producer went through: items made, closes, its ``finally``."""

    def __init__(self) -> None:
        self.closes = 0
        self.finally_ran = 0
        self.release = threading.Event()
        self.done = threading.Event()


class SyncBody:
    """A sync iterable that is no generator: ``__iter__`` returns another object."""

    def __init__(self, record: Record, items: list[Any], fail: bool = False) -> None:
        self.record = record
        self.items = items
        self.fail = fail

    def __iter__(self) -> Iterator[Any]:
        yield from self.items
        if self.fail:
            raise RuntimeError("the producer failed")

    def close(self) -> None:
        self.record.closes += 1


class AsyncBody:
    """An async iterable that is no generator, with ``aclose()``."""

    def __init__(self, record: Record, items: list[Any], fail: bool = False) -> None:
        self.record = record
        self.items = items
        self.fail = fail

    async def _items(self) -> AsyncIterator[Any]:
        for item in self.items:
            yield item
        if self.fail:
            raise RuntimeError("the producer failed")

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._items()

    async def aclose(self) -> None:
        self.record.closes += 1


def sync_generator(record: Record, items: list[Any], fail: bool = False) -> Iterator[Any]:
    try:
        yield from items
        if fail:
            raise RuntimeError("the producer failed")
    finally:
        record.finally_ran += 1


async def async_generator(
    record: Record, items: list[Any], fail: bool = False
) -> AsyncIterator[Any]:
    try:
        for item in items:
            yield item
        if fail:
            raise RuntimeError("the producer failed")
    finally:
        record.finally_ran += 1


KINDS: dict[str, Callable[..., Any]] = {
    "list": lambda record, items, fail: list(items),
    "sync-object": SyncBody,
    "generator": sync_generator,
    "async-generator": async_generator,
    "async-object": AsyncBody,
}


def closed_count(kind: str, record: Record) -> int:
    return record.closes if kind.endswith("object") else record.finally_ran


def streaming_app(kind: str, record: Record, *, gzipped: bool, fail: bool = False) -> App:
    app = App()
    if gzipped:
        app.add_middleware(GZipMiddleware(minimum_size=0))
    items = [b"first " * 100, "second " * 100, b"third"]

    @app.get("/")
    def view(request: Any) -> Response:
        return Response(KINDS[kind](record, items, fail), content_type="text/plain")

    return app


def body_of(response: Any) -> bytes:
    content: bytes = response.raw_content
    if response.headers.get("content-encoding") == "gzip":
        return gzip.decompress(content)
    return content


# -- text chunks ---------------------------------------------------------------------


@pytest.mark.parametrize("gzipped", [False, True])
@pytest.mark.parametrize("kind", ["generator", "async-generator"])
def test_text_chunks_are_encoded_with_the_charset(
    interface: Interface, kind: str, gzipped: bool
) -> None:
    app = App()
    if gzipped:
        app.add_middleware(GZipMiddleware(minimum_size=0))
    charset = "utf-8" if gzipped else "latin-1"

    @app.get("/")
    def view(request: Any) -> Response:
        return Response(KINDS[kind](Record(), ["caf\u00e9 ", b"and ", "cr\u00e8me"]),
                        content_type=f"text/plain; charset={charset}")  # fmt: skip

    client = Client(app, interface=interface)
    response = client.get("/", headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert body_of(response) == "caf\u00e9 and cr\u00e8me".encode(charset)


def test_transform_body_encodes_text_with_its_charset() -> None:
    chunks: list[Any] = ["\u00e9", b"!"]
    wrapped = transform_body(iter(chunks), GZipTransform(), charset="latin-1")
    assert gzip.decompress(b"".join(wrapped)) == b"\xe9!"  # type: ignore[arg-type]


def test_a_chunk_of_another_type_is_a_type_error_naming_it(interface: Interface) -> None:
    app = App()

    @app.get("/")
    def view(request: Any) -> Response:
        chunks: list[Any] = [b"first", {"a": 1}]
        return Response(iter(chunks))

    with pytest.raises(TypeError, match="yields bytes or str, not dict"):
        Client(app, interface=interface).get("/")


# -- closed exactly once on every path -----------------------------------------------


@pytest.mark.parametrize("gzipped", [False, True])
@pytest.mark.parametrize("path", ["finished", "head", "error", "disconnect"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_body_is_closed_exactly_once(
    interface: Interface, kind: str, path: str, gzipped: bool
) -> None:
    record = Record()
    app = streaming_app(kind, record, gzipped=gzipped, fail=path == "error")
    client = Client(app, interface=interface, raise_app_exceptions=False)
    headers = {"accept-encoding": "gzip"}
    if path == "head":
        assert client.head("/", headers=headers).content == b""
    elif path == "disconnect":
        with client.stream("GET", "/", headers=headers) as response:
            assert next(response.iter_bytes())
    else:
        response = client.get("/", headers=headers)
        assert response.status_code == 200
        if path == "finished":
            assert body_of(response).endswith(b"third")
    if kind == "list":
        return  # nothing to close; it is sent all the same
    if path == "head" and kind.endswith("generator"):
        # Closed unstarted: a generator that never ran has no finally to run.
        assert closed_count(kind, record) == 0
        return
    assert closed_count(kind, record) == 1


# -- idle chunks ---------------------------------------------------------------------


class IdleBody:
    """A body that asks for idle chunks, around a sync or async producer."""

    def __init__(self, producer: Any, interval: float = 0.05) -> None:
        self.producer = producer
        self.idle_interval = interval
        self.idle_chunk = IDLE

    def __iter__(self) -> Iterator[Any]:
        return iter(self.producer)

    def close(self) -> None:
        self.producer.close()


class AsyncIdleBody(IdleBody):
    def __aiter__(self) -> AsyncIterator[Any]:
        return aiter(self.producer)

    async def aclose(self) -> None:
        await self.producer.aclose()


def waiting_sync(record: Record) -> Iterator[Any]:
    try:
        yield "first"
        record.release.wait()
        yield b"last"
    finally:
        record.finally_ran += 1
        record.done.set()


async def waiting_async(record: Record) -> AsyncIterator[Any]:
    try:
        yield "first"
        while not record.release.is_set():
            await asyncio.sleep(0.01)
        yield b"last"
    finally:
        record.finally_ran += 1
        record.done.set()


def idle_app(record: Record, producer: str, *, gzipped: bool = False) -> App:
    app = App()
    if gzipped:
        app.add_middleware(GZipMiddleware(minimum_size=0))

    @app.get("/")
    def view(request: Any) -> Response:
        if producer == "sync":
            return Response(IdleBody(waiting_sync(record)), content_type="text/event-stream")
        return Response(AsyncIdleBody(waiting_async(record)), content_type="text/event-stream")

    return app


@pytest.mark.parametrize("producer", ["sync", "async"])
def test_idle_chunks_are_sent_while_the_producer_waits(interface: Interface, producer: str) -> None:
    record = Record()
    client = Client(idle_app(record, producer), interface=interface)
    with client.stream("GET", "/") as response:
        chunks = response.iter_bytes()
        assert next(chunks) == b"first"  # before the producer ended
        assert next(chunks) == IDLE
        assert next(chunks) == IDLE
        record.release.set()
        rest = b"".join(chunks)
    assert rest.replace(IDLE, b"") == b"last"
    assert record.finally_ran == 1


@pytest.mark.parametrize("producer", ["sync", "async"])
def test_idle_chunks_go_through_gzip_in_their_place(interface: Interface, producer: str) -> None:
    record = Record()
    client = Client(idle_app(record, producer, gzipped=True), interface=interface)
    with client.stream("GET", "/", headers={"accept-encoding": "gzip"}) as response:
        assert response.headers["content-encoding"] == "gzip"
        chunks = response.iter_raw()
        received = [next(chunks), next(chunks)]
        record.release.set()
        received.extend(chunks)
    text = gzip.decompress(b"".join(received))
    assert text.startswith(b"first" + IDLE)
    assert text.endswith(b"last")
    assert record.finally_ran == 1


@pytest.mark.parametrize("producer", ["sync", "async"])
def test_a_disconnect_closes_an_idle_producer(interface: Interface, producer: str) -> None:
    record = Record()
    client = Client(idle_app(record, producer), interface=interface)
    with client.stream("GET", "/") as response:
        chunks = response.iter_bytes()
        assert next(chunks) == b"first"
        assert next(chunks) == IDLE
        # Released, so that a sync producer inside next() can return: it is
        # closed then, from the thread that ran it (a thread cannot be stopped).
        record.release.set()
    assert record.done.wait(10)
    assert record.finally_ran == 1


def test_an_idle_interval_must_be_a_positive_number(interface: Interface) -> None:
    app = App()

    @app.get("/")
    def view(request: Any) -> Response:
        return Response(IdleBody(iter([b"x"]), interval=0))

    with pytest.raises(ValueError, match="idle_interval is a number of seconds above 0"):
        Client(app, interface=interface).get("/")


# -- work after the response ---------------------------------------------------------


def work_app(events: list[str], *, failing: bool = False) -> App:
    app = App()

    def produce() -> Iterator[bytes]:
        try:
            yield b"body"
        finally:
            events.append("body closed")

    @app.route("/work", methods=["GET", "HEAD"])
    def view(request: Any) -> Response:
        response = Response(produce())

        @response.call_on_close
        def first() -> None:
            events.append(f"first in {threading.current_thread().name}")
            if failing:
                raise RuntimeError("the work failed")

        @response.call_on_close
        async def second() -> None:
            events.append("second")

        return response

    @app.get("/bytes")
    def in_memory(request: Any) -> Response:
        response = Response(b"in memory")
        response.call_on_close(lambda: events.append("after bytes"))
        return response

    return app


def test_work_runs_in_order_after_the_body_is_closed(interface: Interface) -> None:
    events: list[str] = []
    client = Client(work_app(events), interface=interface)
    assert client.get("/work").content == b"body"
    assert events[0] == "body closed"
    assert events[1].startswith("first in ")
    assert events[2:] == ["second"]
    if interface == "asgi":
        # A def function runs off the event loop, in the App's request pool
        # (as its def views do), not in the loop's default executor.
        assert events[1].startswith("first in sansio-http-request-")


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_work_runs_after_a_body_in_memory_and_after_head(interface: Interface, method: str) -> None:
    events: list[str] = []
    client = Client(work_app(events), interface=interface)
    response = client.request(method, "/bytes")
    assert response.status_code == 200
    assert events == ["after bytes"]
    events.clear()
    client.request(method, "/work")
    assert events[-1] == "second"


def test_work_runs_after_a_disconnect(interface: Interface) -> None:
    events: list[str] = []
    client = Client(work_app(events), interface=interface)
    with client.stream("GET", "/work") as response:
        assert next(response.iter_bytes()) == b"body"
    assert events[-1] == "second"


def test_a_failing_work_is_logged_with_the_request_line_and_the_rest_runs(
    interface: Interface, caplog: pytest.LogCaptureFixture
) -> None:
    events: list[str] = []
    client = Client(work_app(events, failing=True), interface=interface)
    with caplog.at_level(logging.ERROR):
        response = client.get("/work")
    assert (response.status_code, response.content) == (200, b"body")
    assert events[-1] == "second"
    assert "Error in work after the response to GET /work" in caplog.text
    assert "the work failed" in caplog.text


def test_work_runs_under_the_bare_handlers(interface: Interface) -> None:
    events: list[str] = []

    def make() -> Response:
        response = Response(b"bare")
        response.call_on_close(lambda: events.append("plain"))

        async def awaited() -> None:
            events.append("async")

        response.call_on_close(awaited)
        return response

    def sync_handler(request: WSGIRequest) -> Response:
        return make()

    async def async_handler(request: ASGIRequest) -> Response:
        return make()

    application = wsgi_app(sync_handler) if interface == "wsgi" else asgi_app(async_handler)
    assert Client(application, interface=interface).get("/").content == b"bare"
    assert events == ["plain", "async"]


def test_call_on_close_refuses_what_cannot_be_called() -> None:
    with pytest.raises(TypeError, match="takes a function of no arguments, not str"):
        Response().call_on_close("later")  # type: ignore[type-var]
