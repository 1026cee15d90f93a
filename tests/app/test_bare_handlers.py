"""One handler source under both adapters: ``def`` or ``async def``, and its errors.

``wsgi_app`` and ``asgi_app`` each take either kind of handler: an ``async
def`` one under WSGI runs on the worker thread's kept event loop, a ``def``
one under ASGI in a thread of the application's request pool. Their
``error_renderer`` answers the errors that escape the handler, and a
renderer that fails leaves the default answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest

from sansio_http import BodyRequest, HTTPError, NotFound, Request, Response
from sansio_http.asgi import ThreadPools, asgi_app
from sansio_http.routing import Router, Rule
from sansio_http.testing import Client, Interface
from sansio_http.wsgi import wsgi_app


class Boom(Exception):
    pass


def where() -> str:
    """Name how the handler runs: on a running loop, or on which kind of thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = "no-loop"
    else:
        loop = "loop"
    return f"{loop} {threading.current_thread().name.rpartition('-')[0] or 'main'}"


def answer(request: Request, body: bytes) -> Response:
    if request.path == "/missing":
        raise NotFound("no such thing")
    if request.path == "/crash":
        raise Boom("crash")
    if request.path == "/none":
        return None  # type: ignore[return-value]
    return Response(f"{request.method} {body.decode()} | {where()}")


def sync_handler(request: BodyRequest) -> Response:
    return answer(request, request.get_data())


async def async_handler(request: BodyRequest) -> Response:
    return answer(request, await request.body())


HANDLERS: dict[str, Any] = {"def": sync_handler, "async": async_handler}


def problem(request: Request, exc: Exception) -> Response:
    """Render every error as ``application/problem+json`` (RFC 9457)."""
    status = exc.status if isinstance(exc, HTTPError) else 500
    detail = exc.detail if isinstance(exc, HTTPError) else "internal error"
    return Response(
        json.dumps({"status": status, "detail": detail, "instance": request.path}),
        status=status,
        content_type="application/problem+json",
    )


async def async_problem(request: Request, exc: Exception) -> Response:
    await asyncio.sleep(0)
    return problem(request, exc)


def broken(request: Request, exc: Exception) -> Response:
    raise RuntimeError("the renderer failed")


@pytest.fixture
def pools() -> Iterator[ThreadPools]:
    threads = ThreadPools(threads=2)
    yield threads
    threads.shutdown(wait=True)


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    return cast(Interface, request.param)


def serve(
    interface: Interface, handler: Callable[..., Any], pools: ThreadPools, **options: Any
) -> Client:
    if interface == "wsgi":
        return Client(wsgi_app(handler, **options), interface="wsgi", raise_app_exceptions=False)
    app = asgi_app(handler, threads=pools, **options)
    return Client(app, interface="asgi", raise_app_exceptions=False)


# Under WSGI a def handler runs on the calling thread, an async one on its kept
# loop; under ASGI an async handler runs on the loop, a def one in the pool.
EXPECTED_PLACE = {
    ("wsgi", "def"): "no-loop main",
    ("wsgi", "async"): "loop main",
    ("asgi", "def"): "no-loop sansio-http-request",
    ("asgi", "async"): "loop main",
}


@pytest.mark.parametrize("kind", HANDLERS)
def test_either_kind_of_handler_runs_under_either_adapter(
    interface: Interface, kind: str, pools: ThreadPools
) -> None:
    with serve(interface, HANDLERS[kind], pools) as client:
        response = client.post("/echo", content=b"hello")
        assert response.status_code == 200
        text, _, place = response.text.partition(" | ")
        assert text == "POST hello"
        # The test client runs a WSGI app on the test's thread and an ASGI
        # app's loop on a thread of its own: only the kind of thread counts.
        if interface == "asgi" and kind == "async":
            assert place.startswith("loop ")
        else:
            assert place == EXPECTED_PLACE[interface, kind]


@pytest.mark.parametrize("kind", HANDLERS)
def test_default_answers_stay(interface: Interface, kind: str, pools: ThreadPools) -> None:
    with serve(interface, HANDLERS[kind], pools) as client:
        missing = client.get("/missing")
        assert (missing.status_code, missing.headers["content-type"].split(";")[0]) == (
            404,
            "text/html",
        )
        assert client.get("/crash").status_code == 500


@pytest.mark.parametrize("kind", HANDLERS)
def test_a_handler_returning_no_response_is_named(
    interface: Interface, kind: str, pools: ThreadPools
) -> None:
    if interface == "wsgi":
        app: Any = wsgi_app(HANDLERS[kind])
    else:
        app = asgi_app(HANDLERS[kind], threads=pools)
    with (
        Client(app, interface=interface) as client,
        pytest.raises(TypeError, match=f"{HANDLERS[kind].__qualname__}' returned None"),
    ):
        client.get("/none")


@pytest.mark.parametrize("kind", HANDLERS)
def test_a_renderer_turns_every_error_into_problem_json(
    interface: Interface, kind: str, pools: ThreadPools, caplog: pytest.LogCaptureFixture
) -> None:
    with serve(interface, HANDLERS[kind], pools, error_renderer=problem) as client:
        missing = client.get("/missing")
        assert missing.status_code == 404
        assert missing.headers["content-type"] == "application/problem+json"
        assert missing.json() == {"status": 404, "detail": "no such thing", "instance": "/missing"}
        with caplog.at_level(logging.ERROR):
            crash = client.get("/crash")
        assert crash.status_code == 500
        assert crash.json() == {"status": 500, "detail": "internal error", "instance": "/crash"}
        # The unhandled exception is still logged, with its traceback.
        assert any(r.exc_info and r.exc_info[0] is Boom for r in caplog.records)
        assert client.get("/ok").status_code == 200


def test_an_async_renderer_is_awaited_under_asgi(pools: ThreadPools) -> None:
    with serve("asgi", sync_handler, pools, error_renderer=async_problem) as client:
        missing = client.get("/missing")
        assert missing.status_code == 404
        assert missing.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("kind", HANDLERS)
def test_a_failing_renderer_leaves_the_default_answer(
    interface: Interface, kind: str, pools: ThreadPools, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        serve(interface, HANDLERS[kind], pools, error_renderer=broken) as client,
        caplog.at_level(logging.ERROR),
    ):
        missing = client.get("/missing")
        assert missing.status_code == 404
        assert "no such thing" in missing.text
        assert client.get("/crash").status_code == 500
    failures = [r for r in caplog.records if "error renderer" in r.getMessage()]
    assert len(failures) == 2
    assert all(r.exc_info and r.exc_info[0] is RuntimeError for r in failures)


def test_the_def_handler_runs_in_the_given_request_pool(pools: ThreadPools) -> None:
    with serve("asgi", sync_handler, pools) as client:
        assert client.get("/").status_code == 200
    assert pools.requests._workers, "the request pool ran the handler"


def test_a_websocket_handler_stays_async_only() -> None:
    with pytest.raises(TypeError, match="awaits its websocket"):
        asgi_app(async_handler, websocket=sync_handler)  # type: ignore[arg-type]


ROUTER = Router([Rule("/docs/", "docs"), Rule("/items", "items", methods=["GET", "POST"])])


def routed(request: Request) -> Response:
    rule, _ = ROUTER.match(request.path, request.method)
    return Response(rule.endpoint)


async def routed_async(request: Request) -> Response:
    return routed(request)


@pytest.mark.parametrize("handler", [routed, routed_async], ids=["def", "async"])
def test_a_renderer_of_every_http_error_leaves_redirects_and_options_intact(
    interface: Interface, handler: Callable[..., Any], pools: ThreadPools
) -> None:
    rendered: list[Exception] = []

    def render(request: Request, exc: Exception) -> Response:
        # An author's renderer that turns anything it gets into an error page.
        rendered.append(exc)
        return problem(request, exc)

    with serve(interface, handler, pools, error_renderer=render) as client:
        options = client.options("/items")
        assert (options.status_code, options.headers["allow"]) == (204, "GET, HEAD, OPTIONS, POST")
        assert options.content == b""
        redirect = client.get("/docs?page=2", follow_redirects=False)
        assert (redirect.status_code, redirect.headers["location"]) == (308, "/docs/?page=2")
        # A real error still goes to the renderer.
        refused = client.put("/items")
        assert refused.status_code == 405
        assert refused.headers["content-type"] == "application/problem+json"
    assert [type(exc).__name__ for exc in rendered] == ["MethodNotAllowed"]
