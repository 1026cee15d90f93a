"""The Flask layer against Flask and against the App's own views, in-process.

The same hello view and JSON echo view, side by side in one run:

- ``wsgi-flask-hello`` and ``wsgi-flask-json-echo``: the App's view (the
  reference), the same view written for Flask on
  :mod:`sansio_http.compat.flask`, and on Flask itself;
- ``asgi-flask-hello`` and ``asgi-flask-json-echo``: the App's ``async def``
  view (the reference), the layer's under ``to_asgi``, and the same view on
  Quart, which serves Flask's API on ASGI only. Quart waits on ``receive()``
  for a disconnect while it answers, as servers let it, so these groups
  drive every row with a ``receive()`` that gives the body once and then
  waits, as a server's does (:func:`drive_asgi_once`).

``make bench`` checks that the layer is at least 4x as fast as Flask and
within 1.3x of the App's own view (see ``scripts/bench_report.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import flask
import pytest
import quart
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks._drive import BATCH, ASGIApp, Message, drive_wsgi, mount_wsgi, mounted_asgi
from benchmarks.test_bench_asgi import HELLO as ASGI_HELLO
from benchmarks.test_bench_asgi import PATH as ASGI_PATH
from benchmarks.test_bench_asgi import SCOPE
from benchmarks.test_bench_cycle_asgi import ECHO_SCOPE
from benchmarks.test_bench_cycle_wsgi import ECHO, ECHO_ENVIRON, PAYLOAD, PAYLOAD_JSON
from benchmarks.test_bench_wsgi import ENVIRON, HELLO, PATH
from sansio_http import App, Request
from sansio_http.compat import flask as layer

HELLO_TEXT = HELLO.decode()
LAYER = "sansio-http Flask layer"


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


# -- WSGI ---------------------------------------------------------------------------------


def wsgi_hello_app() -> Any:
    app = App("hello")

    @app.get(PATH)
    def hello(request: Request) -> str:
        return HELLO_TEXT

    return mount_wsgi(app)


def wsgi_hello_layer() -> Any:
    app = layer.Flask("hello")

    @app.get(PATH)
    def hello() -> str:
        return HELLO_TEXT

    return mount_wsgi(app)


def wsgi_hello_flask() -> Any:
    app = flask.Flask("hello")

    @app.get(PATH)
    def hello() -> str:
        return HELLO_TEXT

    return app


def wsgi_echo_app() -> Any:
    app = App("echo")

    @app.post(ECHO)
    def echo(request: Any) -> Any:
        return request.get_json()

    return mount_wsgi(app)


def wsgi_echo_layer() -> Any:
    app = layer.Flask("echo")

    @app.post(ECHO)
    def echo() -> Any:
        return layer.request.get_json()

    return mount_wsgi(app)


def wsgi_echo_flask() -> Any:
    app = flask.Flask("echo")

    @app.post(ECHO)
    def echo() -> Any:
        return flask.request.get_json()

    return app


WSGI_HELLOS: dict[str, tuple[str, Callable[[], Any]]] = {
    "app": ("sansio-http App", wsgi_hello_app),
    "layer": (LAYER, wsgi_hello_layer),
    "flask": ("flask", wsgi_hello_flask),
}
WSGI_ECHOES: dict[str, tuple[str, Callable[[], Any]]] = {
    "app": ("sansio-http App", wsgi_echo_app),
    "layer": (LAYER, wsgi_echo_layer),
    "flask": ("flask", wsgi_echo_flask),
}


@pytest.mark.benchmark(group="wsgi-flask-hello")
@pytest.mark.parametrize("name", WSGI_HELLOS)
def test_wsgi_hello(benchmark: BenchmarkFixture, name: str) -> None:
    label, make = WSGI_HELLOS[name]
    benchmark.extra_info["implementation"] = label
    status, body = benchmark(drive_wsgi(make(), ENVIRON))
    assert (status, body) == ("200 OK", HELLO)


@pytest.mark.benchmark(group="wsgi-flask-json-echo")
@pytest.mark.parametrize("name", WSGI_ECHOES)
def test_wsgi_json_echo(benchmark: BenchmarkFixture, name: str) -> None:
    label, make = WSGI_ECHOES[name]
    benchmark.extra_info["implementation"] = label
    status, body = benchmark(drive_wsgi(make(), ECHO_ENVIRON, PAYLOAD_JSON))
    assert status == "200 OK"
    assert json.loads(body) == PAYLOAD


# -- ASGI ---------------------------------------------------------------------------------

ASGI_TEXT = ASGI_HELLO.decode()


async def _drive_once(app: ASGIApp, scope: dict[str, Any], body: bytes) -> tuple[int, bytes]:
    sent: list[Message] = []
    request = {"type": "http.request", "body": body, "more_body": False}
    pending: list[Message] = []

    async def receive() -> Message:
        if pending:
            return pending.pop()
        # As a server's receive(): nothing more until the client goes.
        await asyncio.get_running_loop().create_future()
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        sent.append(message)

    for _ in range(BATCH):
        sent.clear()
        pending.append(request)
        await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def drive_asgi_once(
    loop: asyncio.AbstractEventLoop, app: ASGIApp, scope: dict[str, Any], body: bytes = b""
) -> Callable[[], tuple[int, bytes]]:
    """Return a function answering BATCH requests, each receive() giving the body once."""
    loop.run_until_complete(_drive_once(app, scope, body))
    return lambda: loop.run_until_complete(_drive_once(app, scope, body))


def asgi_hello_app() -> App:
    app = App("hello")

    @app.get(ASGI_PATH)
    async def hello(request: Request) -> str:
        return ASGI_TEXT

    return app


def asgi_hello_layer() -> App:
    app = layer.Flask("hello")

    @app.get(ASGI_PATH)
    async def hello() -> str:
        return ASGI_TEXT

    return app


def asgi_hello_quart() -> quart.Quart:
    app = quart.Quart("hello")

    @app.get(ASGI_PATH)
    async def hello() -> str:
        return ASGI_TEXT

    return app


def asgi_echo_app() -> App:
    app = App("echo")

    @app.post(ECHO)
    async def echo(request: Any) -> Any:
        return await request.json()

    return app


def asgi_echo_layer() -> App:
    app = layer.Flask("echo")

    @app.post(ECHO)
    async def echo() -> Any:
        return await layer.request.get_json()

    return app


def asgi_echo_quart() -> quart.Quart:
    app = quart.Quart("echo")

    @app.post(ECHO)
    async def echo() -> Any:
        return await quart.request.get_json()

    return app


ASGI_HELLOS: dict[str, tuple[str, Callable[[], Any]]] = {
    "app": ("sansio-http App", asgi_hello_app),
    "layer": (LAYER, asgi_hello_layer),
    "quart": ("quart", asgi_hello_quart),
}
ASGI_ECHOES: dict[str, tuple[str, Callable[[], Any]]] = {
    "app": ("sansio-http App", asgi_echo_app),
    "layer": (LAYER, asgi_echo_layer),
    "quart": ("quart", asgi_echo_quart),
}


@contextlib.contextmanager
def served(app: Any) -> Iterator[ASGIApp]:
    """An App mounted with ``to_asgi`` (its pool stopped after), or Quart as it is."""
    if isinstance(app, App):
        with mounted_asgi(app) as asgi:
            yield asgi
    else:
        yield app


@pytest.mark.benchmark(group="asgi-flask-hello")
@pytest.mark.parametrize("name", ASGI_HELLOS)
def test_asgi_hello(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, name: str
) -> None:
    label, make = ASGI_HELLOS[name]
    benchmark.extra_info.update(implementation=label, requests_per_round=BATCH)
    with served(make()) as asgi:
        status, body = benchmark(drive_asgi_once(loop, asgi, SCOPE))
    assert status == 200
    assert body == ASGI_HELLO


@pytest.mark.benchmark(group="asgi-flask-json-echo")
@pytest.mark.parametrize("name", ASGI_ECHOES)
def test_asgi_json_echo(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, name: str
) -> None:
    label, make = ASGI_ECHOES[name]
    benchmark.extra_info.update(implementation=label, requests_per_round=BATCH)
    with served(make()) as asgi:
        status, body = benchmark(drive_asgi_once(loop, asgi, ECHO_SCOPE, PAYLOAD_JSON))
    assert status == 200
    assert json.loads(body) == PAYLOAD
