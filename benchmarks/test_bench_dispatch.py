"""What a view of the other colour costs: async under WSGI, plain under ASGI.

Each group answers the hello-world request of the adapter benchmarks with the
same view written both ways, so the difference between the two is the cost
of the conversion alone:

- ``wsgi-async-view``: the App mounted with ``to_wsgi`` runs an ``async def``
  view to completion on its event loop; Flask does it through asgiref (its
  ``async`` extra). Beside them, the floor of any such conversion: a kept
  event loop's ``run_until_complete`` of a trivial coroutine, alone. Target:
  the App's added cost is at most 1.5 times that floor.
- ``asgi-sync-view``: the App mounted with ``to_asgi`` runs a ``def`` view in
  its thread pool; Starlette runs a sync endpoint in anyio's thread pool.
  Target: the App's added cost is at most half of Starlette's.
- ``asgi-sync-hook``: a ``def`` before_request hook and a ``def`` view under
  ``to_asgi``, which run on one thread of the App's request pool in one
  hand-off. Starlette has no request hooks; its closest equivalent is a
  pure ASGI middleware that runs the same blocking step in anyio's thread
  pool (``run_in_threadpool``) before a sync endpoint, which takes a thread
  of its own: two hand-offs. (``BaseHTTPMiddleware`` would add the cost of
  its streams besides; a FastAPI dependency is not Starlette.)

``scripts/bench_report.py`` turns each group into the added cost per request,
from the ``framework`` and ``view`` recorded with every benchmark (the floor's
time is its added cost).
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Iterator
from typing import Any

import flask
import pytest
import starlette.applications
import starlette.concurrency
import starlette.requests
import starlette.responses
import starlette.routing
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks import test_bench_asgi as asgi_bench
from benchmarks import test_bench_wsgi as wsgi_bench
from benchmarks._drive import BATCH, drive_asgi, drive_wsgi, mount_wsgi, mounted_asgi
from sansio_http import App, Response
from sansio_http.wsgi import WSGIRequest

VIEWS = ["def", "async def"]


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


def record(benchmark: BenchmarkFixture, framework: str, view: str, **extra: Any) -> None:
    benchmark.extra_info.update(
        implementation=f"{framework}, {view} view", framework=framework, view=view, **extra
    )


def hello_app(view: str, path: str, text: str) -> App:
    """An App whose one view answers ``text``, written as ``view``."""
    app = App("hello")
    if view == "def":

        @app.get(path)
        def hello(request: WSGIRequest) -> Response:
            return Response(text)

    else:

        @app.get(path)
        async def hello_async(request: WSGIRequest) -> Response:
            return Response(text)

    return app


# -- async def views under WSGI ----------------------------------------------------------

WSGI_HELLO = wsgi_bench.HELLO


def flask_app(view: str) -> Callable[..., Any]:
    if view == "async def" and importlib.util.find_spec("asgiref") is None:
        pytest.skip("Flask runs async views through asgiref, which is missing: flask[async]")
    app = flask.Flask("hello")
    if view == "def":

        @app.get(wsgi_bench.PATH)
        def hello() -> flask.Response:
            return flask.Response(WSGI_HELLO, content_type="text/plain; charset=utf-8")

    else:

        @app.get(wsgi_bench.PATH)
        async def hello_async() -> flask.Response:
            return flask.Response(WSGI_HELLO, content_type="text/plain; charset=utf-8")

    return app


@pytest.mark.benchmark(group="wsgi-async-view")
@pytest.mark.parametrize("view", VIEWS)
def test_app_under_wsgi(benchmark: BenchmarkFixture, view: str) -> None:
    app = mount_wsgi(hello_app(view, wsgi_bench.PATH, WSGI_HELLO.decode()))
    record(benchmark, "sansio-http App", view)
    assert benchmark(drive_wsgi(app, wsgi_bench.ENVIRON)) == ("200 OK", WSGI_HELLO)


@pytest.mark.benchmark(group="wsgi-async-view")
def test_bare_run_until_complete(benchmark: BenchmarkFixture) -> None:
    kept = asyncio.new_event_loop()

    async def hello() -> bytes:
        return WSGI_HELLO

    record(benchmark, "asyncio, kept loop", "run_until_complete")
    benchmark.extra_info["implementation"] = "asyncio, run_until_complete on a kept loop"
    try:
        kept.run_until_complete(hello())  # as the App's runner, its loop is made already
        assert benchmark(lambda: kept.run_until_complete(hello())) == WSGI_HELLO
    finally:
        kept.close()


@pytest.mark.benchmark(group="wsgi-async-view")
@pytest.mark.parametrize("view", VIEWS)
def test_flask_under_wsgi(benchmark: BenchmarkFixture, view: str) -> None:
    app = flask_app(view)
    record(benchmark, "flask", view)
    assert benchmark(drive_wsgi(app, wsgi_bench.ENVIRON)) == ("200 OK", WSGI_HELLO)


# -- def views under ASGI ----------------------------------------------------------------

ASGI_HELLO = asgi_bench.HELLO


def starlette_app(view: str) -> starlette.applications.Starlette:
    def hello(request: starlette.requests.Request) -> starlette.responses.Response:
        return starlette.responses.PlainTextResponse(ASGI_HELLO)

    async def hello_async(request: starlette.requests.Request) -> starlette.responses.Response:
        return starlette.responses.PlainTextResponse(ASGI_HELLO)

    endpoint = hello if view == "def" else hello_async
    return starlette.applications.Starlette(
        routes=[starlette.routing.Route(asgi_bench.PATH, endpoint)]
    )


@pytest.mark.benchmark(group="asgi-sync-view")
@pytest.mark.parametrize("view", VIEWS)
def test_app_under_asgi(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, view: str
) -> None:
    record(benchmark, "sansio-http App", view, requests_per_round=BATCH)
    with mounted_asgi(hello_app(view, asgi_bench.PATH, ASGI_HELLO.decode())) as asgi:
        assert benchmark(drive_asgi(loop, asgi, asgi_bench.SCOPE)) == (200, ASGI_HELLO)


@pytest.mark.benchmark(group="asgi-sync-view")
@pytest.mark.parametrize("view", VIEWS)
def test_starlette_under_asgi(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, view: str
) -> None:
    app = starlette_app(view)
    record(benchmark, "starlette", view, requests_per_round=BATCH)
    assert benchmark(drive_asgi(loop, app, asgi_bench.SCOPE)) == (200, ASGI_HELLO)


# -- a def before_request hook and a def view under ASGI ---------------------------------

HOOK_VIEW = "def before_request + def"


def hooked_app() -> App:
    """An App whose ``def`` view answers hello for the user its ``def`` hook loaded."""
    app = App("hooked")

    @app.before_request
    def load_user(request: WSGIRequest) -> None:
        request.state.user = "ada"

    @app.get(asgi_bench.PATH)
    def hello(request: WSGIRequest) -> Response:
        return Response(ASGI_HELLO.decode() if request.state.user == "ada" else "")

    return app


def starlette_hooked_app() -> Callable[..., Any]:
    """Starlette's ``def`` endpoint behind a middleware that runs a blocking step first."""

    def load_user(scope: dict[str, Any]) -> None:
        scope.setdefault("state", {})["user"] = "ada"

    def hello(request: starlette.requests.Request) -> starlette.responses.Response:
        body = ASGI_HELLO if request.state.user == "ada" else b""
        return starlette.responses.PlainTextResponse(body)

    inner = starlette.applications.Starlette(
        routes=[starlette.routing.Route(asgi_bench.PATH, hello)]
    )

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await starlette.concurrency.run_in_threadpool(load_user, scope)
        await inner(scope, receive, send)

    return app


@pytest.mark.benchmark(group="asgi-sync-hook")
def test_app_hook_under_asgi(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    record(benchmark, "sansio-http App", HOOK_VIEW, requests_per_round=BATCH)
    with mounted_asgi(hooked_app()) as asgi:
        assert benchmark(drive_asgi(loop, asgi, asgi_bench.SCOPE)) == (200, ASGI_HELLO)


@pytest.mark.benchmark(group="asgi-sync-hook")
def test_starlette_hook_under_asgi(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop
) -> None:
    record(benchmark, "starlette", HOOK_VIEW, requests_per_round=BATCH)
    app = starlette_hooked_app()
    assert benchmark(drive_asgi(loop, app, asgi_bench.SCOPE)) == (200, ASGI_HELLO)
