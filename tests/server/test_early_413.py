"""A body the application refuses from its head is answered at once, then the close.

A client announces a Content-Length over the limit (or one no body can have)
and sends nothing. The 413 used to wait for the 20 s body deadline in WSGI
mode, where the server prefetched the body before the application ran, and
in both modes the connection was then held until that deadline while the
server tried to skip the announced body. Now the answer comes at once, with
``Connection: close``, and the connection closes right after it.

No clock is read: every socket waits at most ``TIMEOUT`` seconds, far below
the 20 s body deadline, and a late answer or a held connection is a timeout.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable
from typing import Any

import h11
import pytest

from sansio_http import App
from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.messages._response import Response
from sansio_http.wsgi import WSGIRequest, wsgi_app
from tests.integration.keepalive import ask_in_turn, read_answer
from tests.server.conftest import Running, serving

TIMEOUT = 5.0
LIMIT = 1000
NO_BODY_CAN_HAVE = str(2**63)
MiB = 1024 * 1024


def make_app(limit: int | None = LIMIT) -> App:
    app = App()
    app.config.max_content_length = limit

    @app.post("/up")
    async def upload(request: Any) -> str:
        return str(len(await request.body()))

    return app


def send_head(running: Running, length: str, path: str = "/up") -> socket.socket:
    sock = running.connect(timeout=TIMEOUT)
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode())
    return sock


def answer_then_close(sock: socket.socket) -> bytes:
    """Read until the server closes; a timeout fails (the answer was late or held)."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
@pytest.mark.parametrize(("limit", "length"), [(LIMIT, "5000"), (None, NO_BODY_CAN_HAVE)])
def test_an_app_that_refuses_the_head_answers_at_once_and_closes(
    interface: str, limit: int | None, length: str
) -> None:
    # 5000 bytes are below the 64 KiB the server prefetches in WSGI mode: it
    # knows an App's limit and reads nothing the App will refuse.
    with serving(make_app(limit), interface=interface) as running:
        with send_head(running, length) as sock:
            answer = answer_then_close(sock)
    assert status_of(answer) == 413
    assert b"\r\nconnection: close\r\n" in answer.lower()


def read_body_wsgi(request: WSGIRequest) -> Response:
    return Response(str(len(request.get_data())))


async def read_body_asgi(request: ASGIRequest) -> Response:
    return Response(str(len(await request.body())))


HANDLERS = {
    "wsgi": wsgi_app(read_body_wsgi, max_content_length=MiB),
    "asgi": asgi_app(read_body_asgi, max_content_length=MiB),
}


@pytest.mark.parametrize("interface", list(HANDLERS))
@pytest.mark.parametrize("length", [str(2 * MiB), NO_BODY_CAN_HAVE, "9" * 20])
def test_a_handler_that_refuses_the_head_answers_at_once_and_closes(
    interface: str, length: str
) -> None:
    # The server does not know this application's limit; a body larger than
    # its prefetch is not prefetched, so the head check runs at once.
    with serving(HANDLERS[interface]) as running:
        with send_head(running, length) as sock:
            answer = answer_then_close(sock)
    assert status_of(answer) == 413


def ignore_body_wsgi(
    environ: dict[str, Any], start_response: Callable[..., Any]
) -> Iterable[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


async def ignore_body_asgi(
    scope: Any, receive: Callable[..., Any], send: Callable[..., Any]
) -> None:
    if scope["type"] != "http":
        raise ValueError("only http")
    headers = [(b"content-type", b"text/plain"), (b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.mark.parametrize("app", [ignore_body_wsgi, ignore_body_asgi], ids=["wsgi", "asgi"])
def test_an_announced_body_too_large_to_skip_closes_at_once(app: Any) -> None:
    # The application answers without reading; more than max_drain_size is
    # left, which the server would never skip: it closes instead of waiting.
    with serving(app) as running:
        with send_head(running, str(2 * MiB)) as sock:
            answer = answer_then_close(sock)
    assert status_of(answer) == 200
    assert answer.endswith(b"\r\n\r\nok")


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_a_client_still_sending_reads_its_413(interface: str) -> None:
    # Closing with unread bytes makes the kernel send a reset, which can
    # destroy the 413 before the client reads it; the server half-closes
    # and drops the rest instead (RFC 9112 §9.6).
    body = b"x" * (256 * 1024)
    with serving(make_app(), interface=interface) as running:
        with send_head(running, str(len(body))) as sock:
            sock.sendall(body)
            answer = answer_then_close(sock)
    assert status_of(answer) == 413


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_a_body_within_the_limit_keeps_the_connection(interface: str) -> None:
    with serving(make_app(), interface=interface) as running:
        with running.connect(timeout=TIMEOUT) as sock:
            client = h11.Connection(h11.CLIENT)
            head = h11.Request(
                method="POST", target="/up", headers=[("Host", "x"), ("Content-Length", "10")]
            )
            sock.sendall(client.send(head) + client.send(h11.Data(data=b"0123456789")))
            sock.sendall(client.send(h11.EndOfMessage()))
            first = read_answer(client, sock)
            client.start_next_cycle()
            again = h11.Request(method="GET", target="/missing", headers=[("Host", "x")])
            sock.sendall(client.send(again) + client.send(h11.EndOfMessage()))
            second = read_answer(client, sock)
    assert (first.status, first.body) == (200, b"10")
    assert b"connection" not in first.headers
    assert second.status == 404


def always_413_wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("413 Content Too Large", [("Content-Type", "text/plain")])
    return [b"no"]


async def always_413_asgi(
    scope: Any, receive: Callable[..., Any], send: Callable[..., Any]
) -> None:
    if scope["type"] != "http":
        raise ValueError("only http")
    headers = [(b"content-type", b"text/plain")]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": b"no"})


@pytest.mark.parametrize("app", [always_413_wsgi, always_413_asgi], ids=["wsgi", "asgi"])
def test_a_413_to_a_request_without_a_body_keeps_the_connection(app: Any) -> None:
    # Nothing is left unread, so there is nothing to close the connection for.
    with serving(app) as running:
        first, second = ask_in_turn(running.port, ("GET", "/"), ("GET", "/"))
    assert (first.status, second.status) == (413, 413)
    assert b"connection" not in first.headers
