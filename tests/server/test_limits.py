"""Slow bodies, the listen backlog, websocket refusals and the Date cache."""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.utils import formatdate
from typing import Any

import pytest

from sansio_http.server import Config
from sansio_http.server._date import DateHeader
from tests.server.apps import echo_asgi, echo_wsgi
from tests.server.conftest import Running, read_responses, recv_all

Serve = Callable[..., Any]


def trickle(socks: list[socket.socket], limit: float) -> dict[socket.socket, bytes]:
    """Send one body byte on each socket every 0.1 s until each is answered."""
    answers: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + limit
    while len(answers) < len(socks) and time.monotonic() < deadline:
        readable, _, _ = select.select([s for s in socks if s not in answers], [], [], 0.1)
        for sock in readable:
            answers[sock] = recv_all(sock)
        for sock in socks:
            if sock not in answers:
                try:
                    sock.sendall(b"x")
                except OSError:
                    answers[sock] = b""
    return answers


@pytest.mark.parametrize("app", [echo_wsgi, echo_asgi], ids=["wsgi", "asgi"])
def test_a_body_slower_than_the_minimum_rate_is_408(serve: Serve, app: Any) -> None:
    # A byte every 0.1 s never trips the 1 s per-read timeout; the rate does.
    with serve(app, body_timeout=1.0, min_body_rate=50) as running, running.connect() as sock:
        sock.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        answers = trickle([sock], limit=10)
    assert answers[sock].startswith(b"HTTP/1.1 408 ")
    assert b"connection: close" in answers[sock].lower()


def test_slow_small_uploads_hold_no_wsgi_thread(serve: Serve) -> None:
    options = {"threads": 1, "body_timeout": 10.0, "min_body_rate": 0}
    with serve(echo_wsgi, **options) as running:
        slow = [running.connect() for _ in range(3)]
        stop = threading.Event()

        def drip() -> None:
            while not stop.is_set():
                for sock in slow:
                    sock.sendall(b"x")
                stop.wait(0.1)

        for sock in slow:
            sock.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 300\r\n\r\n")
        dripping = threading.Thread(target=drip)
        dripping.start()
        try:
            # One thread, three slow bodies of 30 s each: without the prefetch
            # the request below would wait for all three.
            with running.connect(timeout=10) as sock:
                sock.sendall(b"GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
                [(response, body)] = read_responses(sock, 1)
            unanswered = not select.select(slow, [], [], 0)[0]
        finally:
            stop.set()
            dripping.join(5)
            for sock in slow:
                sock.close()
    assert response.status_code == 200
    assert body.startswith(b"GET /next ")
    assert unanswered


def test_slow_uploads_cannot_hold_every_wsgi_thread(serve: Serve) -> None:
    # Bodies larger than the prefetch take a thread; the rate bounds how long.
    options = {"threads": 2, "body_timeout": 1.0, "min_body_rate": 50, "max_prefetch_size": 0}
    with serve(echo_wsgi, **options) as running:
        slow = [running.connect() for _ in range(2)]
        try:
            for sock in slow:
                sock.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
            # Both threads now wait on a slow body. A normal request queues
            # behind them and is answered once the slow ones are cut off.
            with running.connect(timeout=10) as sock:
                sock.sendall(b"GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
                answers = trickle(slow, limit=10)
                [(response, body)] = read_responses(sock, 1)
        finally:
            for sock in slow:
                sock.close()
    assert [a[:13] for a in answers.values()] == [b"HTTP/1.1 408 "] * 2
    assert response.status_code == 200
    assert body.startswith(b"GET /next ")


def test_a_body_at_the_minimum_rate_is_read(serve: Serve) -> None:
    # 20 bytes every 0.1 s is 200 bytes a second, above the minimum of 100.
    with serve(echo_wsgi, body_timeout=1.0, min_body_rate=100) as running:
        with running.connect() as sock:
            sock.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 400\r\n\r\n")
            for _ in range(20):
                sock.sendall(b"y" * 20)
                time.sleep(0.1)
            [(response, body)] = read_responses(sock, 1)
    assert response.status_code == 200
    assert body.endswith(b"y" * 400)


def test_time_the_application_spends_between_reads_is_not_the_clients(serve: Serve) -> None:
    first_read = threading.Event()
    sent = threading.Event()

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        stream = environ["wsgi.input"]
        head = stream.read(5)
        first_read.set()
        # The rest is on its way, then the application takes longer than
        # the whole allowance below before it reads it.
        assert sent.wait(30)
        time.sleep(1.0)
        rest = stream.read(5)
        start_response("200 OK", [("Content-Length", "10")])
        return [head + rest]

    # An allowance of 0.5 s that no amount of data extends noticeably; the
    # body is read as the application asks (no prefetch).
    options = {"body_timeout": 0.5, "min_body_rate": 10**9, "max_prefetch_size": 0}
    with serve(app, **options) as running:
        with running.connect() as sock:
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nfirst")
            assert first_read.wait(30)
            sock.sendall(b"later")
            sent.set()
            [(response, body)] = read_responses(sock, 1)
    assert response.status_code == 200
    assert body == b"firstlater"


@contextmanager
def busy_loop(running: Running) -> Iterator[None]:
    """Keep the server's event loop from accepting while the block runs."""
    release = threading.Event()
    blocked = threading.Event()

    def block() -> None:
        blocked.set()
        release.wait(20)

    running.loop.call_soon_threadsafe(block)
    assert blocked.wait(30)
    try:
        yield
    finally:
        release.set()


def settle(running: Running) -> None:
    """Wait until the server has handled the connections it had queued."""
    # The loop takes queued connections in order; one answered after them
    # means they have been accepted and, having closed, been let go.
    with running.connect() as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        [(response, _)] = read_responses(sock, 1)
    assert response.status_code == 200


def connections_queued(port: int, attempts: int) -> int:
    """Start ``attempts`` connections; return how many the kernel completed."""
    socks = []
    try:
        for _ in range(attempts):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            socks.append(sock)
        done: set[socket.socket] = set()
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline and len(done) < attempts:
            _, writable, _ = select.select([], [s for s in socks if s not in done], [], 0.1)
            done.update(
                s for s in writable if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
            )
        return len(done)
    finally:
        for sock in socks:
            sock.close()


def test_the_default_backlog_queues_a_burst_of_connections(serve: Serve) -> None:
    # asyncio's default backlog of 100 would leave most of these waiting
    # for SYN retries while the server is busy.
    assert Config().backlog == 2048
    with serve(echo_wsgi) as running:
        with busy_loop(running):
            queued = connections_queued(running.port, 300)
        settle(running)
    assert queued == 300


def test_the_backlog_is_configurable(serve: Serve) -> None:
    with serve(echo_wsgi, backlog=4) as running:
        with busy_loop(running):
            queued = connections_queued(running.port, 30)
        settle(running)
    # Linux queues backlog + 1 completed connections.
    assert queued <= 5


def websocket_handshake(running: Running) -> bytes:
    with running.connect() as sock:
        sock.sendall(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        return recv_all(sock)


@pytest.mark.parametrize("reads_connect", [False, True])
def test_a_websocket_app_that_returns_without_accepting_is_403(
    serve: Serve, reads_connect: bool
) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and reads_connect:
            await receive()

    with serve(app) as running:
        answer = websocket_handshake(running)
    assert answer.startswith(b"HTTP/1.1 403 ")


def test_a_websocket_app_that_closes_before_accepting_is_403(serve: Serve) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.close"})

    with serve(app) as running:
        answer = websocket_handshake(running)
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert answer.count(b"HTTP/1.1 ") == 1


def test_the_date_is_formatted_once_per_second() -> None:
    now = [784111777.25]
    date = DateHeader(lambda: now[0])
    first = date()
    now[0] += 0.5
    assert date() is first
    now[0] += 0.5
    second = date()
    assert first == b"Sun, 06 Nov 1994 08:49:37 GMT"
    assert second == formatdate(784111778, usegmt=True).encode()


def test_no_body_is_prefetched_from_a_client_that_waits_for_100(serve: Serve) -> None:
    def refuse(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response("413 Content Too Large", [("Content-Length", "0")])
        return []

    with serve(refuse) as running, running.connect() as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\nExpect: 100-continue\r\n\r\n"
        )
        answer = sock.recv(1024)
    # The application refused before the body; no "100 Continue" asked for it.
    assert answer.startswith(b"HTTP/1.1 413 ")
