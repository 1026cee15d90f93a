"""Streamed bodies under real servers: gunicorn gthread, uvicorn, hypercorn, the dev server.

One view source (the App below, mounted with ``to_wsgi`` and ``to_asgi``)
runs under each server on 127.0.0.1. A producer writes what happens to it
into a directory the test reads, and waits for a file the test creates, so
that each step is observed, not timed: the first chunk arrives before the
producer ends, idle chunks arrive while it waits, a client that leaves gets
the producer's ``finally`` run, the work of ``call_on_close`` runs after the
response, and a producer that fails mid-stream ends the response promptly.
The bounds are generous (seconds), for a loaded CI machine.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sansio_http import App, Response
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi
from tests.app import servers

pytestmark = pytest.mark.integration

MODULE = "tests.integration.test_streaming_servers"
IDLE = b": idle\n\n"
BOUND = 30.0  # seconds: what each observed step may take at most

# -- the application (imported by the servers) ----------------------------------------

_DIRECTORY = Path(os.environ.get("STREAMING_TEST_DIR", "."))


def _mark(name: str) -> None:
    (_DIRECTORY / name).write_text("x")


def _released(token: str) -> bool:
    return (_DIRECTORY / f"release-{token}").exists()


class _Idle:
    """A body that asks for idle chunks every 0.2 s, around a producer."""

    idle_interval = 0.2
    idle_chunk = IDLE

    def __init__(self, producer: Any) -> None:
        self.producer = producer

    def __iter__(self) -> Iterator[Any]:
        return iter(self.producer)

    def close(self) -> None:
        self.producer.close()


class _AsyncIdle(_Idle):
    """The same around an async producer."""

    def __aiter__(self) -> AsyncIterator[Any]:
        return aiter(self.producer)

    async def aclose(self) -> None:
        await self.producer.aclose()


def _sync_producer(token: str) -> Iterator[str]:
    try:
        yield "first\n"
        deadline = time.monotonic() + 2 * BOUND
        while not _released(token) and time.monotonic() < deadline:
            time.sleep(0.02)
        yield "last\n"
    finally:
        _mark(f"closed-{token}")


async def _async_producer(token: str) -> AsyncIterator[str]:
    try:
        yield "first\n"
        deadline = time.monotonic() + 2 * BOUND
        while not _released(token) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        yield "last\n"
    finally:
        _mark(f"closed-{token}")


def _failing() -> Iterator[bytes]:
    yield b"first\n"
    raise RuntimeError("the producer failed mid-stream")


app = App()


@app.get("/stream/<kind>/<token>")
def stream(request: Any, kind: str, token: str) -> Response:
    body = _Idle(_sync_producer(token)) if kind == "sync" else _AsyncIdle(_async_producer(token))
    response = Response(body, content_type="text/event-stream")
    response.call_on_close(lambda: _mark(f"work-{token}"))
    return response


@app.get("/fail")
def fail(request: Any) -> Response:
    return Response(_failing(), content_type="text/plain")


wsgi_application = to_wsgi(app)
asgi_application = to_asgi(app)

# -- the servers -----------------------------------------------------------------------

SERVERS = ["gunicorn", "uvicorn", "hypercorn", "devserver-wsgi", "devserver-asgi"]


@pytest.fixture(scope="module", params=SERVERS)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    name: str = request.param
    directory = tmp_path_factory.mktemp(name)
    env = {"STREAMING_TEST_DIR": str(directory)}
    log = directory / "server.log"
    if name == "hypercorn":
        port = servers.free_port()
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "hypercorn", f"{MODULE}:asgi_application",
                 "--bind", f"127.0.0.1:{port}"],
                cwd=servers.ROOT, stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, **env},
            )  # fmt: skip
        running = servers.Server(process, log, f"http://127.0.0.1:{port}")
        _wait_listening(running, port)
    else:
        running = servers.start(name, MODULE, log, env=env)
    try:
        yield running.url, directory
    finally:
        running.stop()


def _wait_listening(running: servers.Server, port: int) -> None:
    import socket

    deadline = time.monotonic() + servers.STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if running.process.poll() is not None:
            pytest.fail(running.log.read_text(errors="replace"))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    running.stop()
    pytest.fail("the server did not listen")


def _appears(path: Path) -> bool:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.02)
    return False


# -- the tests -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_chunks_arrive_one_by_one_with_idle_chunks_between(
    server: tuple[str, Path], kind: str
) -> None:
    url, directory = server
    token = f"whole-{kind}"
    with httpx.stream("GET", f"{url}/stream/{kind}/{token}", timeout=BOUND) as response:
        assert response.status_code == 200
        chunks = response.iter_raw()
        received = next(chunks)
        assert received.startswith(b"first\n")  # the producer has not ended
        while received.count(IDLE) < 2:
            received += next(chunks)
        (directory / f"release-{token}").write_text("x")
        received += b"".join(chunks)
    assert received.replace(IDLE, b"") == b"first\nlast\n"
    assert _appears(directory / f"closed-{token}")
    assert _appears(directory / f"work-{token}")


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_client_that_leaves_gets_the_producer_closed(server: tuple[str, Path], kind: str) -> None:
    url, directory = server
    token = f"gone-{kind}"
    with httpx.stream("GET", f"{url}/stream/{kind}/{token}", timeout=BOUND) as response:
        assert next(response.iter_raw()).startswith(b"first\n")
    if kind == "sync":
        # A sync producer inside next() cannot be interrupted; it is closed
        # when that next() returns, so let it return.
        (directory / f"release-{token}").write_text("x")
    assert _appears(directory / f"closed-{token}")
    assert _appears(directory / f"work-{token}")


def test_a_producer_failing_mid_stream_ends_the_response(server: tuple[str, Path]) -> None:
    url, _ = server
    received: list[bytes] = []

    def read() -> None:
        with httpx.stream("GET", f"{url}/fail", timeout=BOUND) as response:
            received.extend(response.iter_raw())

    # The end of a cut response, not a timeout: the connection was closed.
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        read()
    assert b"".join(received) == b"first\n"
