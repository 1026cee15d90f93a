"""Whole ASGI request cycles in-process: the App, a JSON echo, Falcon's request.

This completes the groups of ``test_bench_asgi.py`` on its inputs (the
captured Firefox navigation as uvicorn's scope), with the same batches of
requests per round:

- ``asgi-request``: Falcon's ASGI request, reading what the others read;
- ``asgi-hello``: the :class:`~sansio_http.App` mounted with ``to_asgi``, the
  reference of the applications that route (Starlette and Falcon);
- ``asgi-json-echo``: ``POST /echo`` with a small JSON object, answered with
  the same object, by applications that route: the App (the reference),
  Starlette and Falcon;
- ``asgi-json-echo-bare``: the same echo without a router: ``asgi_app``
  around a handler (the reference) and a raw callable (the floor).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import falcon
import falcon.asgi
import pytest
import starlette.applications
import starlette.requests
import starlette.responses
import starlette.routing
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks._drive import BATCH, drive_asgi, mounted_asgi
from benchmarks.conftest import BROWSER_GET_RAW
from benchmarks.test_bench_asgi import EXPECTED, HELLO, PATH, SCOPE, browser_scope, no_body
from sansio_http import App, JSONResponse, Response
from sansio_http.asgi import ASGIRequest, asgi_app

# The view's text as a constant, as the bare handler has it: no decoding in the timing.
HELLO_TEXT = HELLO.decode()


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


# -- scope -> request -------------------------------------------------------------------


def read_falcon() -> tuple[str, str, str, str | None, str]:
    request = falcon.asgi.Request(SCOPE, no_body)
    return (
        request.method,
        request.path,
        request.get_param("page", required=True),
        request.get_header("user-agent"),
        request.cookies["sessionid"],
    )


@pytest.mark.benchmark(group="asgi-request")
def test_request_falcon(benchmark: BenchmarkFixture) -> None:
    benchmark.extra_info["implementation"] = "falcon"
    assert benchmark(read_falcon) == EXPECTED


# -- hello world through the App ------------------------------------------------------


@pytest.mark.benchmark(group="asgi-hello")
def test_hello_app(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    app = App("hello")

    @app.get(PATH)
    async def hello(request: ASGIRequest) -> Response:
        return Response(HELLO_TEXT)

    benchmark.extra_info.update(implementation="sansio-http App", requests_per_round=BATCH)
    with mounted_asgi(app) as asgi:
        assert benchmark(drive_asgi(loop, asgi, SCOPE)) == (200, HELLO)


# -- JSON echo ------------------------------------------------------------------------

ECHO = "/echo"
PAYLOAD = {"id": 42, "name": "Zoë", "tags": ["a", "b"], "active": True}
PAYLOAD_JSON = json.dumps(PAYLOAD).encode()
ECHO_SCOPE = {
    **browser_scope(
        "POST",
        [
            *BROWSER_GET_RAW,
            (b"content-type", b"application/json"),
            (b"content-length", str(len(PAYLOAD_JSON)).encode()),
        ],
    ),
    "path": ECHO,
    "raw_path": ECHO.encode(),
    "query_string": b"",
}


async def echo_raw(scope: dict[str, Any], receive: Any, send: Any) -> None:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    data = json.loads(b"".join(chunks))
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def echo_handler(request: ASGIRequest) -> Response:
    return JSONResponse(await request.json())


def echo_app() -> App:
    app = App("echo")

    @app.post(ECHO)
    async def echo(request: ASGIRequest) -> Any:
        return await request.json()

    return app


async def echo_starlette(request: starlette.requests.Request) -> starlette.responses.Response:
    return starlette.responses.JSONResponse(await request.json())


class FalconEcho:
    async def on_post(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.media = await req.get_media()


def falcon_echo() -> falcon.asgi.App[Any, Any]:
    app = falcon.asgi.App()
    app.add_route(ECHO, FalconEcho())
    return app


def starlette_echo() -> starlette.applications.Starlette:
    route = starlette.routing.Route(ECHO, echo_starlette, methods=["POST"])
    return starlette.applications.Starlette(routes=[route])


#: By test id: the implementation's name in the report, and how to make its application.
ECHOES: dict[str, tuple[str, Callable[[], Any]]] = {
    "app": ("sansio-http App", echo_app),
    "starlette": ("starlette", starlette_echo),
    "falcon": ("falcon", falcon_echo),
}

#: The same without a router.
BARE_ECHOES: dict[str, tuple[str, Callable[[], Any]]] = {
    "sansio_http": ("sansio-http, no router", lambda: asgi_app(echo_handler)),
    "raw": ("raw callable", lambda: echo_raw),
}


@pytest.mark.benchmark(group="asgi-json-echo")
@pytest.mark.parametrize("name", ECHOES)
def test_json_echo(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, name: str) -> None:
    run_echo(benchmark, loop, *ECHOES[name])


@pytest.mark.benchmark(group="asgi-json-echo-bare")
@pytest.mark.parametrize("name", BARE_ECHOES)
def test_json_echo_bare(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, name: str
) -> None:
    run_echo(benchmark, loop, *BARE_ECHOES[name])


def run_echo(
    benchmark: BenchmarkFixture,
    loop: asyncio.AbstractEventLoop,
    label: str,
    make: Callable[[], Any],
) -> None:
    made = make()
    benchmark.extra_info.update(implementation=label, requests_per_round=BATCH)
    with mounted_asgi(made) if isinstance(made, App) else contextlib.nullcontext(made) as app:
        status, body = benchmark(drive_asgi(loop, app, ECHO_SCOPE, PAYLOAD_JSON))
    assert status == 200
    assert json.loads(body) == PAYLOAD
