"""Errors under both adapters: the same app answers (or raises) the same way.

Each test runs once mounted with ``to_wsgi`` / ``wsgi_app`` and once with
``to_asgi`` / ``asgi_app``, driven by the test client.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any
from wsgiref.validate import validator

import pytest

from sansio_http import (
    App,
    AppConfig,
    FileBody,
    InternalServerError,
    NotFound,
    Request,
    Response,
)
from sansio_http.asgi import ASGIRequest, ThreadPools, asgi_app, to_asgi
from sansio_http.testing import Client
from sansio_http.wsgi import WSGIRequest, to_wsgi, wsgi_app


class Boom(Exception):
    pass


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(autouse=True)
def quiet(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.ERROR)
    return caplog


def client(app: App, interface: str, **options: Any) -> Client:
    return Client(app, interface="wsgi" if interface == "wsgi" else "asgi", **options)


def handler_client(make: Callable[[], Response], interface: str, **options: Any) -> Client:
    """Mount a handler that returns ``make()`` with wsgi_app or asgi_app."""
    if interface == "wsgi":

        def sync_handler(request: WSGIRequest) -> Response:
            return make()

        return Client(wsgi_app(sync_handler), interface="wsgi", **options)

    async def async_handler(request: ASGIRequest) -> Response:
        return make()

    return Client(asgi_app(async_handler), interface="asgi", **options)


def crashing_app(**config: Any) -> tuple[App, list[BaseException | None]]:
    app = App(config=AppConfig(**config))
    torn_down: list[BaseException | None] = []

    @app.get("/sync")
    def sync_crash(request: Request) -> str:
        raise Boom("sync view")

    @app.get("/async")
    async def async_crash(request: Request) -> str:
        raise Boom("async view")

    @app.get("/missing")
    def missing(request: Request) -> str:
        raise NotFound("no such thing")

    @app.teardown_request
    def teardown(request: Request, exc: BaseException | None) -> None:
        torn_down.append(exc)

    return app, torn_down


# -- the test client raises what the application raised ----------------------------


@pytest.mark.parametrize("path", ["/sync", "/async"])
def test_the_view_exception_is_raised_in_the_test(interface: str, path: str) -> None:
    app, torn_down = crashing_app()
    with pytest.raises(Boom, match="view") as raised:
        client(app, interface).get(path)
    # The teardown hooks ran first, and got it.
    assert torn_down == [raised.value]


def test_http_errors_stay_responses(interface: str) -> None:
    app, torn_down = crashing_app()
    response = client(app, interface).get("/missing")
    assert response.status_code == 404
    assert torn_down == [None]


@pytest.mark.parametrize("path", ["/sync", "/async"])
def test_a_500_when_asked(interface: str, path: str) -> None:
    app, torn_down = crashing_app()
    response = client(app, interface, raise_app_exceptions=False).get(path)
    assert response.status_code == 500
    assert "view" not in response.text
    assert [type(exc) for exc in torn_down] == [Boom]


def test_the_500_handler_answers_when_not_raised(interface: str) -> None:
    app, torn_down = crashing_app()

    @app.errorhandler(InternalServerError)
    def server_error(request: Request, exc: InternalServerError) -> Any:
        return {"error": str(exc.original_exception)}, 500

    answered = client(app, interface, raise_app_exceptions=False).get("/async")
    assert (answered.status_code, answered.json()) == (500, {"error": "async view"})
    with pytest.raises(Boom):
        client(app, interface).get("/sync")
    assert [type(exc) for exc in torn_down] == [Boom, Boom]


def test_a_handler_exception_is_raised_in_the_test(interface: str) -> None:
    def crash() -> Response:
        raise Boom("handler")

    with pytest.raises(Boom, match="handler"):
        handler_client(crash, interface).get("/")
    response = handler_client(crash, interface, raise_app_exceptions=False).get("/")
    assert response.status_code == 500


def test_a_handler_http_error_stays_a_response(interface: str) -> None:
    def refuse() -> Response:
        raise NotFound

    assert handler_client(refuse, interface).get("/").status_code == 404


# -- a response body that fails ----------------------------------------------------


def failing_before_the_first_chunk() -> Iterator[bytes]:
    yield b""
    raise Boom("body")


async def async_failing_before_the_first_chunk() -> AsyncIterator[bytes]:
    yield b""
    raise Boom("body")


def failing_after_the_first_chunk() -> Iterator[bytes]:
    yield b"partial"
    raise Boom("body")


@pytest.mark.parametrize(
    "body", [failing_before_the_first_chunk, async_failing_before_the_first_chunk]
)
def test_a_body_failing_before_its_first_chunk_is_a_500(
    interface: str, body: Callable[[], Any], quiet: pytest.LogCaptureFixture
) -> None:
    def make() -> Response:
        return Response(body(), headers={"x-view": "1"})

    response = handler_client(make, interface, raise_app_exceptions=False).get("/")
    assert response.status_code == 500
    assert "x-view" not in response.headers
    assert "Internal Server Error" in response.text
    assert "body" in quiet.text  # logged, with the exception
    with pytest.raises(Boom, match="body"):
        handler_client(make, interface).get("/")


def test_a_response_that_cannot_start_is_a_500_or_raised(interface: str, tmp_path: Path) -> None:
    def make() -> Response:
        return Response(FileBody(tmp_path / "missing", length=3))

    response = handler_client(make, interface, raise_app_exceptions=False).get("/")
    assert response.status_code == 500
    with pytest.raises(FileNotFoundError):
        handler_client(make, interface).get("/")


def test_a_body_failing_after_its_first_chunk_is_cut_short(interface: str) -> None:
    def make() -> Response:
        return Response(failing_after_the_first_chunk())

    response = handler_client(make, interface, raise_app_exceptions=False).get("/")
    assert (response.status_code, response.content) == (200, b"partial")
    with pytest.raises(Boom, match="body"):
        handler_client(make, interface).get("/")


@pytest.mark.parametrize("first", [True, False])
def test_an_unsupported_chunk_gets_the_same_message(
    interface: str, first: bool, quiet: pytest.LogCaptureFixture
) -> None:
    def make() -> Response:
        chunks: list[Any] = [42] if first else [b"bytes", 42]
        return Response(iter(chunks))

    message = r"a response body yields bytes or str, not int: encode the value first"
    with pytest.raises(TypeError, match=message):
        handler_client(make, interface).get("/")
    if first:
        response = handler_client(make, interface, raise_app_exceptions=False).get("/")
        assert response.status_code == 500
        assert "yields bytes or str, not int" in quiet.text


def test_bytearray_and_memoryview_chunks_are_sent(interface: str) -> None:
    def make() -> Response:
        chunks: list[Any] = [bytearray(b"ab"), memoryview(b"cd")]
        return Response(iter(chunks))

    assert handler_client(make, interface).get("/").content == b"abcd"


# -- the debug page ----------------------------------------------------------------


def test_the_debug_page_only_for_a_local_client_and_host(interface: str) -> None:
    app, _ = crashing_app(debug=True)
    local = client(app, interface, base_url="http://localhost:8000", raise_app_exceptions=False)
    page = local.get("/sync")
    assert page.status_code == 500
    assert "Boom: sync view" in page.text
    # A foreign Host (DNS rebinding) or a foreign client: a plain 500.
    foreign_host = client(app, interface, raise_app_exceptions=False)
    assert "sync view" not in foreign_host.get("/sync").text
    assert "sync view" not in local.get("/sync", remote_addr="203.0.113.9").text


# -- misuse is refused at construction ---------------------------------------------


async def async_handler(request: ASGIRequest) -> Response:
    return Response("")  # pragma: no cover (never called)


def sync_handler(request: WSGIRequest) -> Response:
    return Response("")  # pragma: no cover (never called)


class AsyncCallable:
    async def __call__(self, request: Any) -> Response:
        return Response("")  # pragma: no cover (never called)


# mypy --strict refuses each misuse below already; these are what an untyped
# caller gets.
SYNC: Any = sync_handler
ASYNC: Any = async_handler
APP: Any = App()


@pytest.mark.parametrize(
    ("mount", "match"),
    [
        (lambda: to_wsgi(SYNC), r"to_wsgi\(\) mounts a sansio_http.App.*wsgi_app"),
        (lambda: to_asgi(ASYNC), r"to_asgi\(\) mounts a sansio_http.App.*asgi_app"),
        (lambda: wsgi_app(APP), r"mount an App with to_wsgi\(app\)"),
        (lambda: asgi_app(APP), r"mount an App with to_asgi\(app\)"),
        (
            lambda: asgi_app(async_handler, websocket=SYNC),
            r"awaits its websocket, and 'sync_handler'",
        ),
    ],
)
def test_misuse_is_a_type_error_saying_what_to_do(mount: Callable[[], Any], match: str) -> None:
    with pytest.raises(TypeError, match=match):
        mount()


def test_async_callables_are_accepted_by_asgi_app() -> None:
    assert callable(asgi_app(AsyncCallable()))


def test_either_kind_of_handler_is_accepted_by_both_adapters() -> None:
    # Which kind each is gets decided here, once (tests/app/test_bare_handlers.py).
    for handler in (SYNC, ASYNC, AsyncCallable()):
        assert callable(wsgi_app(handler))
        assert callable(asgi_app(handler, threads=ThreadPools(threads=1)))


# -- the WSGI test client fixes the status with the first chunk --------------------


def test_wsgi_status_may_change_until_the_first_chunk() -> None:
    def app(environ: dict[str, Any], start_response: Any) -> Iterator[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])

        def body() -> Iterator[bytes]:
            yield b""  # sends nothing: the headers stay unsent (PEP 3333)
            try:
                raise Boom("late")
            except Boom:
                start_response("503 Busy", [("Content-Type", "text/plain")], sys.exc_info())
            yield b"busy"

        return body()

    response = Client(validator(app)).get("/")
    assert (response.status_code, response.reason, response.text) == (503, "Busy", "busy")


def test_wsgi_exc_info_after_the_first_chunk_is_raised() -> None:
    def app(environ: dict[str, Any], start_response: Any) -> Iterator[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        yield b"sent"
        try:
            raise Boom("too late")
        except Boom:
            start_response("503 Busy", [("Content-Type", "text/plain")], sys.exc_info())
        yield b"never"  # pragma: no cover (start_response raised)

    with Client(app).stream("GET", "/") as response:
        assert response.status_code == 200
        with pytest.raises(Boom, match="too late"):
            response.read()


def test_stream_returns_once_the_first_chunk_is_made(interface: str) -> None:
    made: list[bytes] = []

    def body() -> Iterator[bytes]:
        for chunk in (b"", b"one", b"two"):
            made.append(chunk)
            yield chunk

    with handler_client(lambda: Response(body()), interface).stream("GET", "/") as response:
        assert response.status_code == 200
        assert made == [b"", b"one"]
        assert response.read() == b"onetwo"


def test_the_log_of_an_unhandled_exception_holds_the_path_encoded(
    interface: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The path is the client's: decoded, a %0A in it would start a line of
    # the log that the client wrote.
    app = App()

    @app.get("/<rest>")
    def crash(request: Request, rest: str) -> str:
        raise KeyError(rest)

    c = client(app, interface, raise_app_exceptions=False)
    assert c.get("/a%0D%0AERROR forged%20line").status_code == 500
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("unhandled")]
    assert logged == ["unhandled exception in GET /a%0D%0AERROR%20forged%20line"]
