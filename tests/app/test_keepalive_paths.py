"""How the adapters pull a body that asks for idle chunks, under both adapters.

A body with ``idle_interval`` and ``idle_chunk`` (``KeepAliveStream``) is
pulled by a helper: a thread for a sync producer under WSGI, which may run a
few items ahead, and then sends every item waiting as one chunk; one timer
task under ASGI, which sends the idle chunk while the producer's item is
awaited by the stream itself. These tests hold what either must keep: items
whole and in order, idle chunks only between items, batches bounded, the
producer's context kept from item to item, and the producer closed once.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Iterator, MutableMapping
from typing import Any, Literal

import pytest

from sansio_http import App, Response
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client

Interface = Literal["wsgi", "asgi"]

IDLE = b": idle\n\n"
#: Long enough that no idle chunk comes while the items flow.
NEVER = 60.0
#: A safety bound on waits for another thread, never a measure of speed.
WAIT = 10.0


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    value: Interface = request.param
    return value


class IdleBody:
    """A body that asks for idle chunks, around a sync producer."""

    def __init__(self, producer: Any, interval: float) -> None:
        self.producer = producer
        self.idle_interval = interval
        self.idle_chunk = IDLE

    def __iter__(self) -> Iterator[Any]:
        return iter(self.producer)

    def close(self) -> None:
        self.producer.close()


class AsyncIdleBody(IdleBody):
    """A body that asks for idle chunks, around an async producer."""

    def __aiter__(self) -> AsyncIterator[Any]:
        return aiter(self.producer)

    async def aclose(self) -> None:
        await self.producer.aclose()


def app_for(body: Any) -> App:
    app = App()

    @app.get("/")
    def view(request: Any) -> Response:
        return Response(body, content_type="text/event-stream")

    return app


def split_items(chunk: bytes) -> list[bytes]:
    """Return the ``item <n>;`` pieces of a chunk; a cut item fails the test."""
    assert chunk.endswith(b";"), chunk
    return [piece + b";" for piece in chunk[:-1].split(b";")]


# -- items made while the first is sent ----------------------------------------------


def test_items_made_meanwhile_go_out_whole_in_order_and_joined_under_wsgi(
    interface: Interface,
) -> None:
    first_sent = threading.Event()
    made = threading.Event()
    release = threading.Event()
    closed = []

    def produce() -> Iterator[str]:
        try:
            yield "item 0;"
            first_sent.wait(WAIT)
            for number in range(1, 10):
                yield f"item {number};"
            made.set()
            release.wait(WAIT)
            yield "item 10;"
        finally:
            closed.append(True)

    client = Client(app_for(IdleBody(produce(), NEVER)), interface=interface)
    with client.stream("GET", "/") as response:
        chunks = response.iter_bytes()
        assert next(chunks) == b"item 0;"  # alone: the producer waits for this
        first_sent.set()
        if interface == "wsgi":
            # The helper thread runs ahead of the server's thread.
            assert made.wait(WAIT)
        second = next(chunks)
        release.set()
        received = [second, *chunks]
    items = [item for chunk in received for item in split_items(chunk)]
    assert items == [f"item {n};".encode() for n in range(1, 11)]
    if interface == "wsgi":
        # The nine items were made while the first was with the client: they
        # are sent as one chunk, since none of them is held back by it.
        assert second == b"".join(f"item {n};".encode() for n in range(1, 10))
    else:
        # An ASGI server takes each message as it comes.
        assert second == b"item 1;"
    assert closed == [True]


@pytest.mark.parametrize(
    ("count", "size", "most"),
    [(300, 8, 64), (20, 16 * 1024, 4)],
    ids=["many-small-items", "large-items"],
)
def test_a_fast_producer_is_sent_in_bounded_chunks(
    interface: Interface, count: int, size: int, most: int
) -> None:
    # 64 items or 64 KiB: the most a producer may run ahead, and so the most
    # one chunk may hold.
    items = [f"{n:0{size - 1}d};".encode() for n in range(count)]

    def produce() -> Iterator[bytes]:
        yield from items

    client = Client(app_for(IdleBody(produce(), NEVER)), interface=interface)
    with client.stream("GET", "/") as response:
        chunks = list(response.iter_bytes())
    assert b"".join(chunks) == b"".join(items)
    for chunk in chunks:
        assert len(chunk) % size == 0  # whole items only
        assert len(chunk) // size <= most


# -- idle chunks, never within an item or a batch --------------------------------------


def test_idle_chunks_come_only_between_items(interface: Interface) -> None:
    gate = threading.Event()
    idle_seen = threading.Event()

    def produce() -> Iterator[str]:
        yield "item 0;"
        for number in range(1, 40):
            yield f"item {number};"
        gate.wait(WAIT)  # idle here, until the test has seen an idle chunk
        for number in range(40, 80):
            yield f"item {number};"

    client = Client(app_for(IdleBody(produce(), 0.01)), interface=interface)
    received = []
    with client.stream("GET", "/") as response:
        for chunk in response.iter_bytes():
            received.append(chunk)
            if chunk == IDLE and not idle_seen.is_set():
                idle_seen.set()
                gate.set()
    assert idle_seen.is_set()
    items = []
    for chunk in received:
        if chunk != IDLE:
            items.extend(split_items(chunk))
    assert items == [f"item {n};".encode() for n in range(80)]


# -- the producer's context ------------------------------------------------------------

TOKEN: contextvars.ContextVar[str] = contextvars.ContextVar("TOKEN", default="unset")


def test_an_async_producer_keeps_its_context_from_item_to_item(interface: Interface) -> None:
    async def produce() -> AsyncIterator[str]:
        TOKEN.set("set by the producer")
        yield "item 0;"
        await asyncio.sleep(0)
        yield f"{TOKEN.get()};"

    client = Client(app_for(AsyncIdleBody(produce(), NEVER)), interface=interface)
    assert client.get("/").content == b"item 0;set by the producer;"


# -- an idle chunk that cannot be sent -------------------------------------------------


def test_a_failed_idle_send_closes_the_waiting_producer_under_asgi() -> None:
    closed = []

    async def produce() -> AsyncIterator[str]:
        try:
            yield "item 0;"
            await asyncio.Event().wait()  # never set: idle from now on
            yield "never"
        finally:
            closed.append(True)

    app = to_asgi(app_for(AsyncIdleBody(produce(), 0.01)))
    sent: list[MutableMapping[str, Any]] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        if message.get("body") == IDLE:
            raise OSError("the client is gone")  # ASGI 2.4
        sent.append(message)

    async def receive() -> dict[str, Any]:
        if not received:
            received.append(True)
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the server never reports the disconnect
        raise AssertionError("unreachable")

    received: list[bool] = []
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"test")],
        "client": ("127.0.0.1", 1),
        "server": ("test", 80),
    }

    async def run() -> None:
        await asyncio.wait_for(app(scope, receive, send), WAIT)

    asyncio.run(run())
    assert closed == [True]
    assert [message.get("body") for message in sent] == [None, b"item 0;"]


def test_a_slow_send_is_never_overlapped_by_an_idle_chunk_under_asgi() -> None:
    async def produce() -> AsyncIterator[str]:
        for number in range(3):
            yield f"item {number};"

    app = to_asgi(app_for(AsyncIdleBody(produce(), 0.01)))
    sending = []
    bodies: list[bytes] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sending.append(message)
        assert len(sending) == 1, "two sends at once"
        if message.get("body") == b"item 1;":
            # A slow client: several idle intervals pass inside this send.
            await asyncio.sleep(0.05)
        if message["type"] == "http.response.body":
            bodies.append(message["body"])
        sending.pop()

    received: list[bool] = []

    async def receive() -> dict[str, Any]:
        if not received:
            received.append(True)
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"test")],
        "client": ("127.0.0.1", 1),
        "server": ("test", 80),
    }
    asyncio.run(asyncio.wait_for(app(scope, receive, send), WAIT))
    assert [body for body in bodies if body != IDLE] == [b"item 0;", b"item 1;", b"item 2;", b""]
