"""Server-sent events through real servers: ours next to Starlette's and Flask's.

The same stream, 2,000 small events (``data: token <n>``), is served by

- ``ours`` (ASGI): :class:`~sansio_http.EventStream` from an ``async def``
  generator, through ``to_asgi``, and ``starlette``: Starlette's
  ``StreamingResponse`` from an ``async def`` generator of the same lines,
  both in one uvicorn process (a path prefix picks the application);
- ``ours`` (WSGI): the same :class:`~sansio_http.EventStream` from a ``def``
  generator, through ``to_wsgi``, and ``flask``: a Flask response from a
  ``def`` generator of the same lines, both in one gunicorn process with a
  gthread worker; ``ours-async`` there is the ``async def`` generator, which
  a WSGI worker drives on an event loop of its own.

``ours`` sends keep-alive comments while the producer is idle (every 15 s, the
default, so none in so short a stream: what is measured is the cost of
watching for idleness); ``ours-no-keepalive`` turns them off.

Each stream is read with httpx as it arrives. Two figures per application:
the whole stream (events per second is 2,000 over its time) and the time to
the first event of a new stream. A plain test measures, for ours, the time
from a client closing the connection mid-stream to the producer's
``finally``, which the server process stamps with ``time.time()``.

``pytest benchmarks --benchmark-disable`` runs every case once, as a quick
test; ``--benchmark-only`` gives the figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import flask
import httpx
import pytest
import starlette.responses
from pytest_benchmark.fixture import BenchmarkFixture

from sansio_http import App, EventStream, Request
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi
from tests.app.servers import STARTUP_TIMEOUT, free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent
MODULE = "benchmarks.test_bench_events"
EVENTS = 2000
TIMEOUT = httpx.Timeout(30.0)
#: NOTE: generous, on a shared machine: a producer writing every 10 ms is
#: closed at its next write after the disconnect, or at once.
CLOSE_BOUND = 2.0
#: Rounds of the time to the first event, each after the server settled.
FIRST_EVENT_ROUNDS = 40


def _line(number: int) -> str:
    return f"data: token {number}\n\n"


EXPECTED = "".join(_line(n) for n in range(EVENTS)).encode()


# -- the applications --------------------------------------------------------------------

#: When the last producer of /forever was closed, by the server's clock.
CLOSED_AT: list[float] = []

app = App("events-bench")


@app.get("/events")
def events(request: Request) -> EventStream:
    async def generate() -> AsyncIterator[str]:
        for number in range(EVENTS):
            yield f"token {number}"

    def generate_sync() -> Iterator[str]:
        for number in range(EVENTS):
            yield f"token {number}"

    sync = request.args.get("kind") == "sync"
    interval = None if request.args.get("keepalive") == "off" else 15.0
    return EventStream(generate_sync() if sync else generate(), keepalive_interval=interval)


@app.get("/forever")
def forever(request: Request) -> EventStream:
    async def generate() -> AsyncIterator[str]:
        try:
            for number in range(1_000_000):
                yield f"tick {number}"
                await asyncio.sleep(0.01)
        finally:
            CLOSED_AT.append(time.time())

    def generate_sync() -> Iterator[str]:
        try:
            for number in range(1_000_000):
                yield f"tick {number}"
                time.sleep(0.01)
        finally:
            CLOSED_AT.append(time.time())

    sync = request.args.get("kind") == "sync"
    return EventStream(generate_sync() if sync else generate())


@app.get("/closed-at")
def closed_at(request: Request) -> dict[str, Any]:
    return {"closed_at": CLOSED_AT[-1] if CLOSED_AT else None}


ours_asgi = to_asgi(app)
ours_wsgi = to_wsgi(app)


async def _starlette_events(scope: Any, receive: Any, send: Any) -> None:
    async def generate() -> AsyncIterator[str]:
        for number in range(EVENTS):
            yield _line(number)

    response = starlette.responses.StreamingResponse(
        generate(),
        media_type="text/event-stream",
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
    )
    await response(scope, receive, send)


async def asgi_application(scope: Any, receive: Any, send: Any) -> None:
    """``/starlette/...`` to Starlette, the rest to ours."""
    if scope["type"] == "http" and scope["path"].startswith("/starlette/"):
        await _starlette_events(scope, receive, send)
    else:
        await ours_asgi(scope, receive, send)


flask_app = flask.Flask("events-bench")


@flask_app.get("/flask/events")
def _flask_events() -> flask.Response:
    def generate() -> Iterator[str]:
        for number in range(EVENTS):
            yield _line(number)

    return flask.Response(
        generate(),
        mimetype="text/event-stream",
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
    )


def wsgi_application(environ: dict[str, Any], start_response: Any) -> Any:
    """``/flask/...`` to Flask, the rest to ours."""
    if environ["PATH_INFO"].startswith("/flask/"):
        return flask_app(environ, start_response)
    return ours_wsgi(environ, start_response)


# -- the servers -------------------------------------------------------------------------


@contextlib.contextmanager
def _serve(command: list[str], port: int, log: Path) -> Iterator[str]:
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not start:\n{log.read_text(errors='replace')}")
            with contextlib.suppress(httpx.TransportError):
                httpx.get(url + "/closed-at", timeout=0.5)
                break
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture(scope="module")
def uvicorn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", f"{MODULE}:asgi_application", "--host", "127.0.0.1",
        "--port", str(port), "--no-access-log", "--lifespan", "off",
    ]  # fmt: skip
    with _serve(command, port, tmp_path_factory.mktemp("uvicorn") / "log") as url:
        yield url


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    command = [
        sys.executable, "-m", "gunicorn", f"{MODULE}:wsgi_application",
        "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread", "--threads", "4",
        "--workers", "1",
    ]  # fmt: skip
    with _serve(command, port, tmp_path_factory.mktemp("gunicorn") / "log") as url:
        yield url


# -- the measurements --------------------------------------------------------------------

CASES = [
    ("uvicorn", "ours", "/events"),
    ("uvicorn", "ours-no-keepalive", "/events?keepalive=off"),
    ("uvicorn", "starlette", "/starlette/events"),
    ("gunicorn", "ours", "/events?kind=sync"),
    ("gunicorn", "ours-no-keepalive", "/events?kind=sync&keepalive=off"),
    ("gunicorn", "flask", "/flask/events"),
    # The async producer under WSGI, pulled on an event loop of the body's own.
    ("gunicorn", "ours-async", "/events"),
]


def _base(request: pytest.FixtureRequest, server: str) -> str:
    url: str = request.getfixturevalue(server)
    return url


def read_stream(client: httpx.Client, path: str) -> bytes:
    with client.stream("GET", path) as response:
        return b"".join(response.iter_raw())


def first_event(client: httpx.Client, path: str) -> bytes:
    with client.stream("GET", path) as response:
        data = b""
        for chunk in response.iter_raw():
            data += chunk
            if b"\n\n" in data:
                break
        return data.partition(b"\n\n")[0]


@pytest.mark.parametrize(("server", "name", "path"), CASES, ids=[f"{s}-{n}" for s, n, _ in CASES])
def test_a_stream_of_2000_events(
    benchmark: BenchmarkFixture, request: pytest.FixtureRequest, server: str, name: str, path: str
) -> None:
    with httpx.Client(base_url=_base(request, server), timeout=TIMEOUT) as client:
        body = benchmark(read_stream, client, path)
    assert body == EXPECTED


def settle(client: httpx.Client) -> None:
    """Wait until the server answers a small request: the last stream is over.

    NOTE: a client that leaves after the first event leaves the server making
    the rest of the stream; a producer that never waits keeps an event loop
    busy until it ends (ours and Starlette's alike), and the next connection
    waits for that. Measured in a round, it would be the time of a whole
    stream, not of the first event.
    """
    client.get("/closed-at")


@pytest.mark.parametrize(("server", "name", "path"), CASES, ids=[f"{s}-{n}" for s, n, _ in CASES])
def test_the_first_event(
    benchmark: BenchmarkFixture, request: pytest.FixtureRequest, server: str, name: str, path: str
) -> None:
    with httpx.Client(base_url=_base(request, server), timeout=TIMEOUT) as client:
        first = benchmark.pedantic(  # type: ignore[no-untyped-call]
            first_event,
            args=(client, path),
            setup=functools.partial(settle, client),
            rounds=FIRST_EVENT_ROUNDS,
            warmup_rounds=2,
        )
    assert first == b"data: token 0"


def disconnect_to_close(url: str, path: str) -> float:
    """Leave a stream after its first event; return the seconds until its ``finally``."""
    with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        with client.stream("GET", path) as response:
            # NOTE: the iterator is kept: dropping it would close the response.
            chunks = response.iter_raw()
            next(chunks)
            left = time.time()
        # Leaving the block closed the connection mid-stream.
        deadline = time.monotonic() + CLOSE_BOUND * 2
        while time.monotonic() < deadline:
            closed = client.get("/closed-at").json()["closed_at"]
            if closed is not None and closed >= left:
                return float(closed - left)
            time.sleep(0.002)
    return float("inf")


@pytest.mark.parametrize(
    ("server", "path"),
    [
        ("uvicorn", "/forever"),
        ("uvicorn", "/forever?kind=sync"),
        ("gunicorn", "/forever?kind=sync"),
    ],
    ids=["uvicorn-async", "uvicorn-sync", "gunicorn-sync"],
)
def test_disconnect_to_close_latency(
    request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str], server: str, path: str
) -> None:
    url = _base(request, server)
    latencies = sorted(disconnect_to_close(url, path) for _ in range(3))
    with capsys.disabled():
        print(f"\n{server} {path}: disconnect to finally, median {latencies[1] * 1000:.1f} ms")
    assert latencies[1] < CLOSE_BOUND, latencies
