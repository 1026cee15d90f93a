"""Fixtures that run the development server in a thread, on a free port."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import h11
import pytest

from sansio_http.server import Config, Server


class Running:
    """A server running on a background event loop."""

    def __init__(self, server: Server, loop: asyncio.AbstractEventLoop) -> None:
        self.server = server
        self.loop = loop

    @property
    def port(self) -> int:
        return self.server.port

    def connect(self, timeout: float = 5.0) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)


@contextmanager
def serving(app: Any, **options: Any) -> Iterator[Running]:
    """Run ``app`` on the development server until the block ends."""
    options.setdefault("access_log", False)
    server = Server(app, Config(port=0, **options))
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop: list[asyncio.Event] = []
    failure: list[BaseException] = []

    async def main() -> None:
        stop.append(asyncio.Event())
        try:
            await server.start()
        except BaseException as exc:
            failure.append(exc)
            ready.set()
            return
        ready.set()
        await stop[0].wait()
        await server.stop()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(10), "the server did not start"
    if failure:
        thread.join(5)
        loop.close()
        raise failure[0]
    try:
        yield Running(server, loop)
    finally:
        loop.call_soon_threadsafe(stop[0].set)
        thread.join(20)
        loop.close()


@pytest.fixture
def serve() -> Callable[..., Any]:
    return serving


def read_responses(sock: socket.socket, count: int, method: bytes = b"GET") -> list[Any]:
    """Read ``count`` responses with an h11 client; return (response, body) pairs."""
    conn = h11.Connection(h11.CLIENT)
    # Let the client state machine know what it is parsing.
    results: list[Any] = []
    for _ in range(count):
        conn.send(h11.Request(method=method, target="/", headers=[("host", "x")]))
        conn.send(h11.EndOfMessage())
        response: Any = None
        body = b""
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = sock.recv(65536)
                conn.receive_data(data)
                continue
            if isinstance(event, h11.InformationalResponse):
                continue
            if isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                break
        results.append((response, body))
        if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
            break
        conn.start_next_cycle()
    return results


def recv_all(sock: socket.socket) -> bytes:
    """Read until the server closes the connection."""
    chunks = []
    while True:
        try:
            data = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)
