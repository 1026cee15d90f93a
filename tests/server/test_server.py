"""The development server over real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import select
import socket
import threading
import time
import wsgiref.validate
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from sansio_http.server import Config, Server, detect_interface
from tests.server.apps import echo_asgi, echo_wsgi
from tests.server.conftest import read_responses, recv_all

Serve = Callable[..., Any]
GET = b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture(params=["wsgi", "asgi"])
def app(request: pytest.FixtureRequest) -> Any:
    if request.param == "wsgi":
        return wsgiref.validate.validator(echo_wsgi)
    return echo_asgi


def test_detects_the_interface() -> None:
    assert detect_interface(echo_wsgi) == "wsgi"
    assert detect_interface(echo_asgi) == "asgi"
    assert detect_interface(wsgiref.validate.validator(echo_wsgi)) == "wsgi"


def test_keep_alive_reuses_one_connection(serve: Serve, app: Any) -> None:
    with serve(app) as running, running.connect() as sock:
        for _ in range(3):
            sock.sendall(GET)
            [(response, body)] = read_responses(sock, 1)
            assert response.status_code == 200
            assert b"/a" in body


def test_pipelined_requests_are_answered_in_order(serve: Serve, app: Any) -> None:
    with serve(app) as running, running.connect() as sock:
        sock.sendall(
            b"GET /one HTTP/1.1\r\nHost: x\r\n\r\n"
            b"GET /two HTTP/1.1\r\nHost: x\r\n\r\n"
            b"GET /three HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        bodies = [body for _, body in read_responses(sock, 3)]
    assert [b.split(b" ")[1 if b.startswith(b"GET") else 0] for b in bodies] == [
        b"/one",
        b"/two",
        b"/three",
    ]


def test_chunked_request_body_reaches_the_app(serve: Serve, app: Any) -> None:
    with serve(app) as running, running.connect() as sock:
        sock.sendall(
            b"POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n"
        )
        [(response, body)] = read_responses(sock, 1)
    assert response.status_code == 200
    assert body.endswith(b"hello world")


def test_streamed_response_is_chunked(serve: Serve) -> None:
    with serve(wsgiref.validate.validator(echo_wsgi)) as running:
        response = httpx.get(f"http://127.0.0.1:{running.port}/stream")
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.content == b"01234"


def test_expect_100_continue(serve: Serve, app: Any) -> None:
    with serve(app) as running, running.connect() as sock:
        sock.sendall(
            b"POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"
        )
        interim = sock.recv(1024)
        assert interim.startswith(b"HTTP/1.1 100 ")
        sock.sendall(b"data")
        [(response, body)] = read_responses(sock, 1)
    assert response.status_code == 200
    assert body.endswith(b"data")


def test_head_sends_no_body(serve: Serve, app: Any) -> None:
    with serve(app) as running, running.connect() as sock:
        sock.sendall(b"HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n")
        [(head, head_body)] = read_responses(sock, 1, method=b"HEAD")
        sock.sendall(GET)
        [(after, after_body)] = read_responses(sock, 1)
    assert head.status_code == 200
    assert head_body == b""
    assert after.status_code == 200
    assert b"/a" in after_body


def test_both_lengths_are_answered_then_closed(serve: Serve, app: Any) -> None:
    smuggled = b"GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
    with serve(app) as running, running.connect() as sock:
        sock.sendall(
            b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled
        )
        data = recv_all(sock)
    assert data.count(b"HTTP/1.1 ") == 1
    assert b"connection: close" in data.lower()
    assert b"/smuggled" not in data


@pytest.mark.parametrize(
    "head",
    [
        b"GET / HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    ],
    ids=["no-host", "two-hosts"],
)
def test_host_must_appear_once(serve: Serve, app: Any, head: bytes) -> None:
    with serve(app) as running, running.connect() as sock:
        sock.sendall(head)
        data = recv_all(sock)
    assert data.startswith(b"HTTP/1.1 400 ")


def test_control_bytes_in_a_chunk_extension_are_refused(serve: Serve, app: Any) -> None:
    with serve(app) as running, running.connect() as sock:
        sock.sendall(
            b"POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"5;a=\x01\r\nhello\r\n0\r\n\r\n"
        )
        data = recv_all(sock)
    assert data.startswith(b"HTTP/1.1 400 ")


def test_a_short_body_is_never_handed_over_as_complete(serve: Serve) -> None:
    seen: list[bytes] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        seen.append(environ["wsgi.input"].read(10))
        start_response("200 OK", [])
        return [b""]

    with serve(app) as running, running.connect() as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        sock.shutdown(socket.SHUT_WR)
        data = recv_all(sock)
    assert seen == []
    assert not data.startswith(b"HTTP/1.1 200")


def test_unread_body_is_skipped_before_the_next_request(serve: Serve) -> None:
    with serve(echo_wsgi) as running, running.connect() as sock:
        sock.sendall(
            b"POST /ignore-body HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nGET /evil\r\n"
            + GET
        )
        (first, _), (second, body) = read_responses(sock, 2)
    assert first.status_code == 200
    assert second.status_code == 200
    assert body.startswith(b"GET /a ")


def test_oversized_head_in_one_read_is_refused(serve: Serve, app: Any) -> None:
    with serve(app, max_header_size=2048) as running, running.connect() as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 4000 + b"\r\n\r\n")
        data = recv_all(sock)
    assert data.startswith(b"HTTP/1.1 431 ")


def test_too_many_headers_are_refused(serve: Serve, app: Any) -> None:
    fields = b"".join(b"X-%d: 1\r\n" % i for i in range(20))
    with serve(app, max_header_count=10) as running, running.connect() as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n")
        data = recv_all(sock)
    assert data.startswith(b"HTTP/1.1 431 ")


def test_slowloris_is_closed_within_the_header_timeout(serve: Serve, app: Any) -> None:
    with serve(app, header_timeout=0.5) as running, running.connect(timeout=30) as sock:
        started = time.monotonic()
        sock.sendall(b"GET / HTTP/1.1\r\n")
        answer = b""
        # Trickle a header byte every 50 ms, as a slowloris client does: a
        # timeout per read would let it go on for the whole 30 s.
        while time.monotonic() - started < 30:
            readable, _, _ = select.select([sock], [], [], 0.05)
            if readable:
                answer = recv_all(sock)
                break
            try:
                sock.sendall(b"X")
            except OSError:
                break
        elapsed = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert elapsed < 10


def test_idle_connections_do_not_block_new_requests(serve: Serve, app: Any) -> None:
    with serve(app, keepalive_timeout=30) as running:
        idle = [running.connect() for _ in range(200)]
        try:
            response = httpx.get(f"http://127.0.0.1:{running.port}/ok", timeout=5)
            assert response.status_code == 200
        finally:
            for sock in idle:
                sock.close()


def test_a_crash_is_a_500_and_the_server_keeps_serving(serve: Serve, app: Any) -> None:
    with serve(app) as running:
        base = f"http://127.0.0.1:{running.port}"
        crashed = httpx.get(base + "/crash")
        assert crashed.status_code == 500
        assert b"boom" not in crashed.content
        assert b"Traceback" not in crashed.content
        assert httpx.get(base + "/fine").status_code == 200


def test_debug_mode_shows_the_traceback(serve: Serve, app: Any) -> None:
    with serve(app, debug=True) as running:
        crashed = httpx.get(f"http://127.0.0.1:{running.port}/crash")
    assert crashed.status_code == 500
    assert b"RuntimeError" in crashed.content
    assert b"boom" in crashed.content


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:80", "app.localhost"])
def test_debug_mode_shows_the_traceback_to_loopback_hosts(
    serve: Serve, app: Any, host: str
) -> None:
    with serve(app, debug=True) as running:
        crashed = httpx.get(f"http://127.0.0.1:{running.port}/crash", headers={"host": host})
    assert crashed.status_code == 500
    assert b"boom" in crashed.content


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "10.0.0.1"])
def test_debug_mode_hides_the_traceback_from_other_hosts(serve: Serve, app: Any, host: str) -> None:
    # DNS rebinding: a page of another site reaches 127.0.0.1 with its own Host.
    with serve(app, debug=True) as running:
        crashed = httpx.get(f"http://127.0.0.1:{running.port}/crash", headers={"host": host})
    assert crashed.status_code == 500
    assert b"boom" not in crashed.content
    assert b"Traceback" not in crashed.content


def test_debug_mode_is_refused_off_loopback() -> None:
    with pytest.raises(ValueError, match="loopback"):
        Server(echo_wsgi, Config(host="0.0.0.0", debug=True))


def test_graceful_shutdown_finishes_in_flight_requests(serve: Serve) -> None:
    entered = threading.Event()
    stopping: list[asyncio.Event] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        entered.set()
        # Answer only once the shutdown has begun, so that it finds the request in flight.
        deadline = time.monotonic() + 30
        while not stopping[0].is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    results: list[int] = []
    with serve(app) as running:
        stopping.append(running.server.stopping)
        url = f"http://127.0.0.1:{running.port}/"
        thread = threading.Thread(
            target=lambda: results.append(httpx.get(url, timeout=30).status_code)
        )
        thread.start()
        assert entered.wait(30), "the request never reached the application"
    thread.join(30)
    assert results == [200]


def test_lifespan_state_reaches_requests(serve: Serve) -> None:
    with serve(echo_asgi) as running:
        response = httpx.get(f"http://127.0.0.1:{running.port}/state")
    assert response.text.startswith("/state hello")


def test_lifespan_startup_failure_stops_the_server(serve: Serve) -> None:
    async def failing(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "no database"})

    with pytest.raises(RuntimeError, match="no database"), serve(failing):
        pass


def test_websocket_echo(serve: Serve) -> None:
    import websockets.sync.client

    with (
        serve(echo_asgi) as running,
        websockets.sync.client.connect(f"ws://127.0.0.1:{running.port}/ws") as ws,
    ):
        ws.send("hi")
        assert ws.recv(timeout=5) == "echo:hi"


def test_websocket_upgrade_on_a_wsgi_app_is_501(serve: Serve) -> None:
    with serve(echo_wsgi) as running, running.connect() as sock:
        sock.sendall(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        data = recv_all(sock)
    assert data.startswith(b"HTTP/1.1 501 ")


def test_log_line_quotes_the_path(serve: Serve, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="sansio_http.server.access")
    with serve(echo_wsgi, access_log=True) as running, running.connect() as sock:
        # h11 admits only visible ASCII in a target, and the server refuses
        # quotes; what browsers send unencoded is still quoted in the log.
        sock.sendall(b"GET /a{b}|c?d=\\ HTTP/1.1\r\nHost: x\r\n\r\n")
        read_responses(sock, 1)
    lines = [r.getMessage() for r in caplog.records if r.name.endswith("access")]
    assert len(lines) == 1
    assert '"GET /a%7Bb%7D%7Cc?d=%5C HTTP/1.1" 200' in lines[0]


def test_run_in_the_event_loop_of_its_own() -> None:
    # Server objects can also be driven by an application's own loop.
    async def main() -> int:
        server = Server(echo_asgi, Config(port=0, access_log=False))
        await server.start()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"GET /own HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = await reader.read()
            writer.close()
        finally:
            await server.stop()
        return int(data.split(b" ")[1])

    assert asyncio.run(main()) == 200


def test_an_app_that_returns_at_once_from_lifespan_is_served(serve: Serve) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return  # neither lifespan messages nor an error
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    with serve(app) as running:
        response = httpx.get(f"http://127.0.0.1:{running.port}/")
    assert response.status_code == 204
