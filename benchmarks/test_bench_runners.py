"""What a handler of the other kind costs: the adapters' runners, measured.

A hello-world handler, written ``def`` and ``async def``, under each bare
adapter, called as a server calls it:

- ``runners-wsgi``: ``wsgi_app`` with the ``def`` handler (the reference,
  called directly) and with the ``async def`` one, which each request runs
  to completion on the worker thread's kept event loop
  (:class:`~sansio_http.wsgi.CoroutineRunner`);
- ``runners-asgi``: ``asgi_app`` with the ``async def`` handler (the
  reference, awaited on the loop) and with the ``def`` one, which each
  request runs in a thread of the application's request pool
  (:class:`~sansio_http.asgi.ThreadPool`). A round is BATCH requests.

The difference between the two rows of a group is the price of one hop
through the runner; docs/framework-authors.rst quotes it.

- ``runners-framework-wsgi`` and ``runners-framework-asgi``: the same at the
  level of a framework, ``examples/decorators.py``, whose one ``async def``
  handler serves a ``def`` view and an ``async def`` view (the same hello
  world) under each adapter. Under WSGI both views run inside the handler on
  the kept loop, the ``def`` one called directly; under ASGI the ``def``
  view goes to the request pool. The issue's bar: an ``async def`` view
  under WSGI costs at most twice a ``def`` view.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks._drive import BATCH, drive_asgi, drive_wsgi
from benchmarks.test_bench_asgi import SCOPE
from benchmarks.test_bench_wsgi import ENVIRON, browser_environ
from examples.decorators import Bottle, Req
from sansio_http import Request, Response
from sansio_http.asgi import ThreadPools, asgi_app
from sansio_http.wsgi import wsgi_app

HELLO = b"Hello, World!"


def hello(request: Request) -> Response:
    return Response(HELLO)


async def hello_async(request: Request) -> Response:
    return Response(HELLO)


HANDLERS: dict[str, Callable[..., Any]] = {"def": hello, "async": hello_async}


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.mark.benchmark(group="runners-wsgi")
@pytest.mark.parametrize("kind", HANDLERS)
def test_wsgi_handler(benchmark: BenchmarkFixture, kind: str) -> None:
    app = wsgi_app(HANDLERS[kind])
    benchmark.extra_info["handler"] = kind
    assert benchmark(drive_wsgi(app, ENVIRON)) == ("200 OK", HELLO)


@pytest.mark.benchmark(group="runners-asgi")
@pytest.mark.parametrize("kind", ["async", "def"])
def test_asgi_handler(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, kind: str
) -> None:
    pools = ThreadPools()
    try:
        app = asgi_app(HANDLERS[kind], threads=pools)
        benchmark.extra_info.update(handler=kind, requests_per_round=BATCH)
        assert benchmark(drive_asgi(loop, app, SCOPE)) == (200, HELLO)
    finally:
        pools.shutdown(wait=True)


def framework() -> Bottle:
    """A bottle-style app with the hello world as a def view and as an async def view."""
    app = Bottle()

    @app.get("/def")
    def hello_view(req: Req) -> bytes:
        return HELLO

    @app.get("/async")
    async def hello_async_view(req: Req) -> bytes:
        return HELLO

    return app


@pytest.mark.benchmark(group="runners-framework-wsgi")
@pytest.mark.parametrize("kind", ["def", "async"])
def test_wsgi_framework_view(benchmark: BenchmarkFixture, kind: str) -> None:
    environ = browser_environ(path=f"/{kind}")
    benchmark.extra_info["view"] = kind
    assert benchmark(drive_wsgi(framework().wsgi, environ)) == ("200 OK", HELLO)


@pytest.mark.benchmark(group="runners-framework-asgi")
@pytest.mark.parametrize("kind", ["async", "def"])
def test_asgi_framework_view(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, kind: str
) -> None:
    scope = {**SCOPE, "path": f"/{kind}", "raw_path": f"/{kind}".encode()}
    app = framework()
    benchmark.extra_info.update(view=kind, requests_per_round=BATCH)
    assert benchmark(drive_asgi(loop, app.asgi, scope)) == (200, HELLO)
