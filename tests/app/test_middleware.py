"""The App's middleware model under both adapters, with def and async def hooks.

Every test builds its App once and runs through ``to_wsgi`` and ``to_asgi``
(the ``interface`` fixture) with the same middleware source; the ``kind``
fixture writes each middleware as ``def`` hooks and as ``async def`` hooks.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from typing import Any

import pytest

from sansio_http import (
    App,
    Middleware,
    Request,
    Response,
    SessionMiddleware,
    file_response,
    g,
    transform_body,
)
from sansio_http.testing import Client


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["def", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def client(app: App, interface: str) -> Client:
    return Client(app, interface="wsgi" if interface == "wsgi" else "asgi")


class Upper:
    """A chunk transform: upper-cases each chunk, and marks the end."""

    def __init__(self) -> None:
        self.fed: list[bytes] = []

    def feed(self, chunk: bytes) -> bytes:
        self.fed.append(chunk)
        return chunk.upper()

    def close(self) -> bytes:
        return b"!"


def recorder(name: str, calls: list[str], kind: str, answer: str | None = None) -> Any:
    """Return a middleware that logs its hooks, written as def or async def."""
    if kind == "def":

        class Sync(Middleware):
            def process_request(self, request: Request) -> Any:
                calls.append(f"{name}-request")
                request.state.seen = [*request.state.get("seen", []), name]
                return answer

            def process_response(self, request: Request, response: Response) -> Response:
                calls.append(f"{name}-response")
                response.headers.add("x-order", name)
                return response

        return Sync()

    class Async(Middleware):
        async def process_request(self, request: Request) -> Any:
            calls.append(f"{name}-request")
            request.state.seen = [*request.state.get("seen", []), name]
            return answer

        async def process_response(self, request: Request, response: Response) -> Response:
            calls.append(f"{name}-response")
            response.headers.add("x-order", name)
            return response

    return Async()


def build(kind: str, answer_at: str | None = None) -> tuple[App, list[str]]:
    app = App()
    calls: list[str] = []
    for name in ("outer", "middle", "inner"):
        answer = f"answered by {name}" if name == answer_at else None
        app.add_middleware(recorder(name, calls, kind, answer))

    @app.before_request
    def before(request: Request) -> None:
        calls.append("before")

    @app.after_request
    def after(request: Request, response: Response) -> Response:
        calls.append("after")
        return response

    @app.get("/")
    def index(request: Request) -> str:
        calls.append("view")
        return ",".join(request.state.seen)

    return app, calls


def test_requests_go_in_in_order_and_responses_come_out_in_reverse(
    interface: str, kind: str
) -> None:
    app, calls = build(kind)
    response = client(app, interface).get("/")
    assert response.text == "outer,middle,inner"
    assert calls == [
        "outer-request",
        "middle-request",
        "inner-request",
        "before",
        "view",
        "after",
        "inner-response",
        "middle-response",
        "outer-response",
    ]
    assert response.headers.getlist("x-order") == ["inner", "middle", "outer"]


def test_an_early_answer_skips_the_view_and_the_inner_middleware(interface: str, kind: str) -> None:
    app, calls = build(kind, answer_at="middle")
    response = client(app, interface).get("/")
    assert response.text == "answered by middle"
    assert calls == ["outer-request", "middle-request", "after", "outer-response"]
    assert response.headers.getlist("x-order") == ["outer"]


def test_an_early_answer_reaches_no_route_so_an_unknown_path_is_answered_too(
    interface: str, kind: str
) -> None:
    app, _ = build(kind, answer_at="outer")
    assert client(app, interface).get("/nowhere").text == "answered by outer"


def test_a_response_can_be_replaced(interface: str, kind: str) -> None:
    app = App()
    if kind == "def":

        class Replace(Middleware):
            def process_response(self, request: Request, response: Response) -> Response:
                return Response(f"replaced {response.status}", status=203)

    else:

        class Replace(Middleware):  # type: ignore[no-redef]
            async def process_response(self, request: Request, response: Response) -> Response:
                return Response(f"replaced {response.status}", status=203)

    app.add_middleware(Replace())
    response = client(app, interface).get("/missing")
    assert (response.status_code, response.text) == (203, "replaced 404")


class Boom(Exception):
    pass


def failing(where: str, kind: str) -> Middleware:
    if kind == "def":

        class Sync(Middleware):
            def process_request(self, request: Request) -> None:
                if where == "request":
                    raise Boom("in process_request")

            def process_response(self, request: Request, response: Response) -> Response:
                if where == "response":
                    raise Boom("in process_response")
                return response

        return Sync()

    class Async(Middleware):
        async def process_request(self, request: Request) -> None:
            if where == "request":
                raise Boom("in process_request")

        async def process_response(self, request: Request, response: Response) -> Response:
            if where == "response":
                raise Boom("in process_response")
            return response

    return Async()


@pytest.mark.parametrize("where", ["request", "response"])
def test_an_error_in_a_middleware_goes_through_the_error_handlers(
    interface: str, kind: str, where: str
) -> None:
    app = App()
    calls: list[str] = []
    app.add_middleware(recorder("outer", calls, kind))
    app.add_middleware(failing(where, kind))

    @app.errorhandler(Boom)
    def handle(request: Request, exc: Boom) -> tuple[str, int]:
        return f"handled: {exc}", 418

    @app.get("/")
    def index(request: Request) -> str:
        return "view"

    response = client(app, interface).get("/")
    assert (response.status_code, response.text) == (418, f"handled: in process_{where}")
    # The outer middleware still processes the error handler's answer.
    assert response.headers.getlist("x-order") == ["outer"]


@pytest.mark.parametrize("where", ["request", "response"])
def test_an_unhandled_error_in_a_middleware_is_a_500_seen_by_teardown(
    interface: str, where: str
) -> None:
    app = App()
    failures: list[BaseException | None] = []
    app.add_middleware(failing(where, "def"))

    @app.teardown_request
    def teardown(request: Request, exc: BaseException | None) -> None:
        failures.append(exc)

    served = Client(
        app, interface="wsgi" if interface == "wsgi" else "asgi", raise_app_exceptions=False
    )
    assert served.get("/").status_code == 500
    assert [type(exc) for exc in failures] == [Boom]


def test_an_unhandled_error_in_a_middleware_reaches_the_test(interface: str) -> None:
    app = App()
    app.add_middleware(failing("response", "def"))
    with pytest.raises(Boom, match="in process_response"):
        client(app, interface).get("/")


def test_process_response_must_return_a_response(interface: str) -> None:
    class Forgetful(Middleware):
        def process_response(self, request: Request, response: Response) -> Response:
            return None  # type: ignore[return-value]

    app = App()
    app.add_middleware(Forgetful())
    with pytest.raises(TypeError, match="process_response returns a Response"):
        client(app, interface).get("/")


def test_an_object_without_hooks_is_refused() -> None:
    app = App()
    with pytest.raises(TypeError, match="neither process_request nor process_response"):
        app.add_middleware(Middleware())
    with pytest.raises(TypeError, match="neither"):
        app.add_middleware(object())
    assert app.middleware == []


def test_a_duck_typed_middleware_works(interface: str) -> None:
    class Stamp:
        def process_response(self, request: Request, response: Response) -> Response:
            response.headers["x-stamp"] = "yes"
            return response

    app = App()
    stamp = Stamp()
    app.add_middleware(stamp)
    assert app.middleware == [stamp]
    assert client(app, interface).get("/").headers["x-stamp"] == "yes"


def test_blocking_plain_hooks_run_in_the_thread_pool_under_asgi() -> None:
    threads: dict[str, int] = {}

    class Where(Middleware):
        def process_request(self, request: Request) -> None:
            threads[type(self).__name__] = threading.get_ident()

    class Inline(Where):
        blocking = False

    app = App()
    app.add_middleware(Where())
    app.add_middleware(Inline())

    @app.get("/")
    async def index(request: Request) -> str:
        threads["view"] = threading.get_ident()
        return "ok"

    assert Client(app, interface="asgi").get("/").text == "ok"
    # The view runs on the event loop: the non-blocking hook ran there too,
    # the blocking one in a worker thread.
    assert threads["Inline"] == threads["view"]
    assert threads["Where"] != threads["view"]


BODIES: dict[str, Callable[[], Any]] = {
    "bytes": lambda: b"abc",
    "iterable": lambda: iter([b"a", b"", b"bc"]),
    "async": lambda: _agen([b"a", b"", b"bc"]),
}


async def _agen(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


@pytest.mark.parametrize("body", list(BODIES))
def test_a_streamed_body_is_wrapped_without_buffering(interface: str, kind: str, body: str) -> None:
    transforms: list[Upper] = []

    class Shout(Middleware):
        def process_response(self, request: Request, response: Response) -> Response:
            transform = Upper()
            transforms.append(transform)
            response.body = transform_body(response.body, transform)
            return response

    app = App()
    app.add_middleware(Shout())
    if kind == "def":

        @app.get("/")
        def index(request: Request) -> Response:
            return Response(BODIES[body]())

    else:

        @app.get("/")
        async def index_async(request: Request) -> Response:
            return Response(BODIES[body]())

    response = client(app, interface).get("/")
    assert response.content == b"ABC!"
    # Each chunk reached the transform as it was: nothing was joined first.
    assert transforms[0].fed == ([b"abc"] if body == "bytes" else [b"a", b"", b"bc"])


def test_the_wrapper_keeps_the_kind_of_body_and_closes_the_source() -> None:
    closed: list[str] = []

    def source() -> Iterator[bytes]:
        try:
            yield b"x"
            yield b"y"
        finally:
            closed.append("sync")

    async def asource() -> AsyncIterator[bytes]:
        try:
            yield b"x"
            yield b"y"
        finally:
            closed.append("async")

    assert transform_body(b"x", Upper()) == b"X!"
    wrapped = transform_body(source(), Upper())
    assert isinstance(wrapped, Generator)
    assert next(wrapped) == b"X"
    wrapped.close()
    awrapped = transform_body(asource(), Upper())
    assert isinstance(awrapped, AsyncGenerator)

    async def first_then_close() -> bytes:
        chunk: bytes = await awrapped.__anext__()
        await awrapped.aclose()
        return chunk

    assert asyncio.run(first_then_close()) == b"X"
    assert closed == ["sync", "async"]


def test_a_file_body_cannot_be_transformed(tmp_path: Any) -> None:
    response = file_response(tmp_path / "a.txt", size=4, mtime=0.0)
    with pytest.raises(TypeError, match="FileBody"):
        transform_body(response.body, Upper())


def test_an_empty_stack_adds_no_hook_calls(interface: str) -> None:
    app = App()

    @app.get("/")
    def index(request: Request) -> str:
        return "plain"

    assert app.middleware == []
    assert client(app, interface).get("/").text == "plain"


marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")


def test_context_set_by_an_async_hook_reaches_an_async_view_under_asgi() -> None:
    class SetAsync(Middleware):
        async def process_request(self, request: Request) -> None:
            marker.set("async hook")

    class SetInThread(Middleware):
        def process_request(self, request: Request) -> None:
            marker.set("thread hook")  # runs on a copy of the context

    app = App()
    app.add_middleware(SetAsync())
    app.add_middleware(SetInThread())

    @app.get("/")
    async def index(request: Request) -> str:
        return marker.get()

    assert Client(app, interface="asgi").get("/").text == "async hook"


def test_the_session_is_also_g_session(interface: str) -> None:
    app = App()
    app.add_middleware(SessionMiddleware("k" * 32))

    @app.get("/")
    def index(request: Request) -> str:
        g.session["seen"] = True
        return str(request.state.session is g.session)

    response = client(app, interface).get("/")
    assert response.text == "True"
    assert response.headers["set-cookie"].startswith("session=")
