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
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks._drive import BATCH, drive_asgi, drive_wsgi
from benchmarks.test_bench_asgi import SCOPE
from benchmarks.test_bench_wsgi import ENVIRON
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
