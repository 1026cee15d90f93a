"""The built-in middleware next to Starlette's and Flask's, on the same requests.

Each group sends the same request to each implementation through the same
harness, and asserts the answer:

- ``middleware-cors-actual`` / ``middleware-cors-preflight`` (ASGI): a GET
  with an allowed Origin, and the preflight of a PUT, through the App with
  :class:`~sansio_http.CORSMiddleware` and Starlette with its
  ``CORSMiddleware``, both allowing one origin with credentials.
- ``middleware-gzip`` (ASGI): a 16 KiB text answer to a client that accepts
  gzip, with :class:`~sansio_http.GZipMiddleware` and Starlette's
  ``GZipMiddleware``, both at zlib level 6 and a 500-byte minimum.
- ``middleware-session`` (WSGI): a view that reads and increments a counter
  in a signed-cookie session, so the cookie is verified and signed again,
  with :class:`~sansio_http.SessionMiddleware` and Flask's session.
- ``middleware-empty-stack`` (WSGI and ASGI): the App with no middleware, to
  compare against a saved baseline of the App before middleware existed.

Each group also runs both applications without the middleware (``baseline``
in the extra info), so that the cost the middleware adds can be compared
apart from the cost of the frameworks themselves.

ASGI groups run BATCH requests per round, as ``test_bench_asgi.py`` does.
"""

from __future__ import annotations

import asyncio
import gzip
import io
from collections.abc import Callable, Iterator
from typing import Any

import flask
import pytest
import starlette.applications
import starlette.middleware
import starlette.middleware.cors
import starlette.middleware.gzip
import starlette.requests
import starlette.responses
import starlette.routing
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks._drive import BATCH, mount_wsgi, mounted_asgi
from benchmarks.test_bench_asgi import PATH, browser_scope
from benchmarks.test_bench_wsgi import browser_environ
from sansio_http import (
    App,
    CORSMiddleware,
    GZipMiddleware,
    Request,
    Response,
    SessionMiddleware,
)

SITE = "https://app.example"
HELLO = b"Hello, world!"
TEXT = (b"Books, pamphlets and maps of the catalogue, page two, sorted by price.\n" * 240)[
    : 16 * 1024
]
SECRET = "a-secret-for-benchmarks-only-0123456789abcdef"

Answer = tuple[int, dict[str, str], bytes]


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


def record(benchmark: BenchmarkFixture, framework: str, **extra: Any) -> None:
    benchmark.extra_info.update(implementation=framework, framework=framework, **extra)


def drive_asgi(
    loop: asyncio.AbstractEventLoop, app: Any, scope: dict[str, Any]
) -> Callable[[], Answer]:
    """Return a function answering BATCH requests; it returns the last answer."""
    request = {"type": "http.request", "body": b"", "more_body": False}

    async def receive() -> dict[str, Any]:
        return request

    async def batch() -> Answer:
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        for _ in range(BATCH):
            sent.clear()
            await app(scope, receive, send)
        headers = {name.decode(): value.decode() for name, value in sent[0]["headers"]}
        return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])

    return lambda: loop.run_until_complete(batch())


def call_wsgi(app: Any, environ: dict[str, Any]) -> Answer:
    environ = environ.copy()
    environ["wsgi.input"] = io.BytesIO(b"")
    started: list[tuple[str, list[tuple[str, str]]]] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        started.append((status, headers))

    iterable = app(environ, start_response)
    try:
        body = b"".join(iterable)
    finally:
        close = getattr(iterable, "close", None)
        if close is not None:
            close()
    status, headers = started[-1]
    return int(status[:3]), {name.lower(): value for name, value in headers}, body


def scope_with(method: str = "GET", **fields: str) -> dict[str, Any]:
    headers = [(b"host", b"shop.example.com")]
    headers += [(name.replace("_", "-").encode(), value.encode()) for name, value in fields.items()]
    return browser_scope(method, headers)


# -- CORS --------------------------------------------------------------------------------


def ours_cors(middleware: bool = True) -> App:
    app = App("cors")
    if middleware:
        app.add_middleware(
            CORSMiddleware(
                [SITE], allow_methods=["GET", "PUT"], allow_credentials=True, max_age=600
            )
        )

    @app.route(PATH, methods=["GET", "PUT"])
    async def hello(request: Request) -> Response:
        return Response(HELLO)

    return app


def starlette_cors(middleware: bool = True) -> Any:
    async def hello(request: starlette.requests.Request) -> starlette.responses.Response:
        return starlette.responses.Response(HELLO)

    routes = [starlette.routing.Route(PATH, hello, methods=["GET", "PUT"])]
    if not middleware:
        return starlette.applications.Starlette(routes=routes)
    return starlette.applications.Starlette(
        routes=routes,
        middleware=[
            starlette.middleware.Middleware(
                starlette.middleware.cors.CORSMiddleware,
                allow_origins=[SITE],
                allow_methods=["GET", "PUT"],
                allow_credentials=True,
                max_age=600,
            )
        ],
    )


ACTUAL = scope_with(origin=SITE)
PREFLIGHT = scope_with("OPTIONS", origin=SITE, access_control_request_method="PUT")


def check_actual(answer: Answer) -> bool:
    status, headers, body = answer
    return (status, body, headers["access-control-allow-origin"]) == (200, HELLO, SITE)


def check_preflight(answer: Answer) -> bool:
    status, headers, _ = answer
    return status in (200, 204) and headers["access-control-allow-origin"] == SITE


@pytest.mark.benchmark(group="middleware-cors-actual")
def test_cors_actual_ours(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    record(benchmark, "sansio-http CORSMiddleware", requests_per_round=BATCH)
    with mounted_asgi(ours_cors()) as asgi:
        assert check_actual(benchmark(drive_asgi(loop, asgi, ACTUAL)))


@pytest.mark.benchmark(group="middleware-cors-actual")
def test_cors_actual_starlette(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop
) -> None:
    record(benchmark, "starlette CORSMiddleware", requests_per_round=BATCH)
    assert check_actual(benchmark(drive_asgi(loop, starlette_cors(), ACTUAL)))


@pytest.mark.benchmark(group="middleware-cors-actual")
def test_cors_actual_ours_baseline(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop
) -> None:
    record(benchmark, "sansio-http App", baseline=True, requests_per_round=BATCH)
    with mounted_asgi(ours_cors(middleware=False)) as asgi:
        assert benchmark(drive_asgi(loop, asgi, ACTUAL))[2] == HELLO


@pytest.mark.benchmark(group="middleware-cors-actual")
def test_cors_actual_starlette_baseline(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop
) -> None:
    record(benchmark, "starlette", baseline=True, requests_per_round=BATCH)
    assert benchmark(drive_asgi(loop, starlette_cors(middleware=False), ACTUAL))[2] == HELLO


@pytest.mark.benchmark(group="middleware-cors-preflight")
def test_cors_preflight_ours(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    record(benchmark, "sansio-http CORSMiddleware", requests_per_round=BATCH)
    with mounted_asgi(ours_cors()) as asgi:
        assert check_preflight(benchmark(drive_asgi(loop, asgi, PREFLIGHT)))


@pytest.mark.benchmark(group="middleware-cors-preflight")
def test_cors_preflight_starlette(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop
) -> None:
    record(benchmark, "starlette CORSMiddleware", requests_per_round=BATCH)
    assert check_preflight(benchmark(drive_asgi(loop, starlette_cors(), PREFLIGHT)))


# -- gzip --------------------------------------------------------------------------------

GZIP_SCOPE = scope_with(accept_encoding="gzip, deflate, br, zstd")


def ours_gzip(middleware: bool = True) -> App:
    app = App("gzip")
    if middleware:
        app.add_middleware(GZipMiddleware(minimum_size=500, level=6))

    @app.get(PATH)
    async def text(request: Request) -> Response:
        return Response(TEXT, content_type="text/plain; charset=utf-8")

    return app


def starlette_gzip(middleware: bool = True) -> Any:
    async def text(request: starlette.requests.Request) -> starlette.responses.Response:
        return starlette.responses.Response(TEXT, media_type="text/plain")

    routes = [starlette.routing.Route(PATH, text)]
    if not middleware:
        return starlette.applications.Starlette(routes=routes)
    return starlette.applications.Starlette(
        routes=routes,
        middleware=[
            starlette.middleware.Middleware(
                starlette.middleware.gzip.GZipMiddleware, minimum_size=500, compresslevel=6
            )
        ],
    )


def check_gzip(answer: Answer) -> bool:
    status, headers, body = answer
    return status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body) == TEXT


@pytest.mark.benchmark(group="middleware-gzip")
def test_gzip_ours(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    record(benchmark, "sansio-http GZipMiddleware", requests_per_round=BATCH)
    with mounted_asgi(ours_gzip()) as asgi:
        assert check_gzip(benchmark(drive_asgi(loop, asgi, GZIP_SCOPE)))


@pytest.mark.benchmark(group="middleware-gzip")
def test_gzip_starlette(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    record(benchmark, "starlette GZipMiddleware", requests_per_round=BATCH)
    assert check_gzip(benchmark(drive_asgi(loop, starlette_gzip(), GZIP_SCOPE)))


@pytest.mark.benchmark(group="middleware-gzip")
def test_gzip_ours_baseline(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    record(benchmark, "sansio-http App", baseline=True, requests_per_round=BATCH)
    with mounted_asgi(ours_gzip(middleware=False)) as asgi:
        assert benchmark(drive_asgi(loop, asgi, GZIP_SCOPE))[2] == TEXT


@pytest.mark.benchmark(group="middleware-gzip")
def test_gzip_starlette_baseline(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop
) -> None:
    record(benchmark, "starlette", baseline=True, requests_per_round=BATCH)
    assert benchmark(drive_asgi(loop, starlette_gzip(middleware=False), GZIP_SCOPE))[2] == TEXT


# -- sessions ----------------------------------------------------------------------------


def ours_session() -> App:
    app = App("session")
    app.add_middleware(SessionMiddleware(SECRET))

    @app.get(PATH)
    def count(request: Request) -> str:
        session = request.state.session
        session["count"] = session.get("count", 0) + 1
        return str(session["count"])

    return app


def flask_session() -> flask.Flask:
    app = flask.Flask("session")
    app.secret_key = SECRET

    @app.get(PATH)
    def count() -> str:
        flask.session["count"] = flask.session.get("count", 0) + 1
        return str(flask.session["count"])

    return app


def with_session(app: Any) -> dict[str, Any]:
    """The browser environ, carrying the cookie of a first visit to ``app``."""
    first = call_wsgi(app, browser_environ())
    environ = browser_environ()
    environ["HTTP_COOKIE"] = first[1]["set-cookie"].split(";")[0]
    return environ


def check_session(answer: Answer) -> bool:
    status, headers, body = answer
    return (status, body) == (200, b"2") and "set-cookie" in headers


@pytest.mark.benchmark(group="middleware-session")
def test_session_ours(benchmark: BenchmarkFixture) -> None:
    app = mount_wsgi(ours_session())
    record(benchmark, "sansio-http SessionMiddleware")
    assert check_session(benchmark(call_wsgi, app, with_session(app)))


@pytest.mark.benchmark(group="middleware-session")
def test_session_flask(benchmark: BenchmarkFixture) -> None:
    app = flask_session()
    record(benchmark, "flask session")
    assert check_session(benchmark(call_wsgi, app, with_session(app)))


# -- the App without middleware ----------------------------------------------------------


def hello_app(kind: str) -> App:
    app = App("hello")
    if kind == "def":

        @app.get(PATH)
        def hello(request: Request) -> Response:
            return Response(HELLO)

    else:

        @app.get(PATH)
        async def hello_async(request: Request) -> Response:
            return Response(HELLO)

    return app


@pytest.mark.benchmark(group="middleware-empty-stack")
def test_empty_stack_wsgi(benchmark: BenchmarkFixture) -> None:
    app = mount_wsgi(hello_app("def"))
    record(benchmark, "sansio-http App, WSGI")
    assert benchmark(call_wsgi, app, browser_environ())[2] == HELLO


@pytest.mark.benchmark(group="middleware-empty-stack")
def test_empty_stack_asgi(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    record(benchmark, "sansio-http App, ASGI", requests_per_round=BATCH)
    with mounted_asgi(hello_app("async def")) as asgi:
        assert benchmark(drive_asgi(loop, asgi, browser_scope()))[2] == HELLO
