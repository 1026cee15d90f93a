"""The ASGI adapter next to Starlette and Falcon, driven in-process.

Three kinds of groups: building a request from a scope and reading what a
view reads; a hello-world application called as a server calls it, with
canned ``receive`` and ``send``; and a 10 MiB multipart upload read through
each framework's form API, spooled to temporary files alike. Each round of
the application groups drives a batch of requests inside one event loop
turn-around, so that the cost measured is the applications', not the loop's
start-up.

The hello world is two groups, so that each compares equal work:

- ``asgi-hello-bare``: applications that answer every path without a
  router: ``asgi_app`` around a handler (the reference), Starlette's request
  and response without its router, and a raw ASGI callable (the floor);
- ``asgi-hello`` (the App in ``test_bench_cycle_asgi.py``): applications
  that route the path and method first: the :class:`~sansio_http.App` (the
  reference), Starlette and Falcon.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

import falcon
import falcon.asgi
import pytest
import starlette.applications
import starlette.datastructures
import starlette.requests
import starlette.responses
import starlette.routing
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks._drive import BATCH, drive_asgi
from benchmarks.conftest import BROWSER_GET_RAW
from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.messages._response import Response

T = TypeVar("T")
Message = dict[str, Any]
ASGI = Callable[[dict[str, Any], Any, Any], Awaitable[None]]

PATH = "/catalogue/books/"
EXPECTED = (
    "GET",
    PATH,
    "2",
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "7f3c9a1e5b2d4c6e8f0a1b2c3d4e5f60",
)
HELLO = b"Hello, world!"


def browser_scope(
    method: str = "GET", headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    """The scope uvicorn builds for the captured Firefox navigation."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("shop.example.com", 443),
        "client": ("192.0.2.1", 53122),
        "scheme": "https",
        "method": method,
        "root_path": "",
        "path": PATH,
        "raw_path": PATH.encode(),
        "query_string": b"page=2&sort=price",
        "headers": BROWSER_GET_RAW if headers is None else headers,
        "state": {},
        "extensions": {},
    }


SCOPE = browser_scope()


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


def runner(
    loop: asyncio.AbstractEventLoop, make: Callable[[], Coroutine[Any, Any, T]]
) -> Callable[[], T]:
    return lambda: loop.run_until_complete(make())


# -- scope -> request, reading method, path, one arg, one header, one cookie -------


async def no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def read_ours() -> tuple[str, str, str, str | None, str]:
    request = ASGIRequest(SCOPE, no_body)
    return (
        request.method,
        request.path,
        request.args["page"],
        request.headers.get("user-agent"),
        request.cookies["sessionid"],
    )


def read_starlette() -> tuple[str, str, str, str | None, str]:
    request = starlette.requests.Request(SCOPE, no_body)
    return (
        request.method,
        request.url.path,
        request.query_params["page"],
        request.headers.get("user-agent"),
        request.cookies["sessionid"],
    )


@pytest.mark.benchmark(group="asgi-request")
def test_request_ours(benchmark: BenchmarkFixture) -> None:
    assert benchmark(read_ours) == EXPECTED


@pytest.mark.benchmark(group="asgi-request")
def test_request_starlette(benchmark: BenchmarkFixture) -> None:
    assert benchmark(read_starlette) == EXPECTED


# -- a hello-world application -------------------------------------------------------


async def hello_ours(request: ASGIRequest) -> Response:
    return Response("Hello, world!")


async def raw_hello(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/plain"), (b"content-length", b"13")],
        }
    )
    await send({"type": "http.response.body", "body": HELLO})


async def starlette_bare(scope: dict[str, Any], receive: Any, send: Any) -> None:
    # Starlette's own pieces without its router: the closest match to asgi_app().
    starlette.requests.Request(scope, receive)
    await starlette.responses.PlainTextResponse(HELLO)(scope, receive, send)


async def starlette_hello(request: starlette.requests.Request) -> starlette.responses.Response:
    return starlette.responses.PlainTextResponse(HELLO)


class FalconHello:
    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.content_type = falcon.MEDIA_TEXT
        resp.data = HELLO


def falcon_app() -> falcon.asgi.App[Any, Any]:
    app = falcon.asgi.App()
    app.add_route(PATH, FalconHello())
    return app


def starlette_app() -> starlette.applications.Starlette:
    return starlette.applications.Starlette(routes=[starlette.routing.Route(PATH, starlette_hello)])


#: Applications without a router, by test id: the name in the report and the maker.
BARE: dict[str, tuple[str, Callable[[], Any]]] = {
    "ours": ("sansio-http, no router", lambda: asgi_app(hello_ours)),
    "raw": ("raw callable", lambda: raw_hello),
    "starlette-bare": ("starlette, no router", lambda: starlette_bare),
}

#: Applications that route the request first; the App joins them in test_bench_cycle_asgi.py.
ROUTED: dict[str, Callable[[], Any]] = {"starlette": starlette_app, "falcon": falcon_app}


@pytest.mark.benchmark(group="asgi-hello-bare")
@pytest.mark.parametrize("name", BARE)
def test_hello_bare(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, name: str
) -> None:
    label, make = BARE[name]
    app = make()
    benchmark.extra_info.update(implementation=label, requests_per_round=BATCH)
    assert benchmark(drive_asgi(loop, app, SCOPE)) == (200, HELLO)


@pytest.mark.benchmark(group="asgi-hello")
@pytest.mark.parametrize("name", ROUTED)
def test_hello(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, name: str) -> None:
    app = ROUTED[name]()
    benchmark.extra_info.update(implementation=name, requests_per_round=BATCH)
    assert benchmark(drive_asgi(loop, app, SCOPE)) == (200, HELLO)


# -- a 10 MiB multipart upload through the form API ---------------------------------

BOUNDARY = "----sansio-bench-8b1f"
UPLOAD = bytes(range(256)) * (40 * 1024)  # 10 MiB
UPLOAD_BODY = (
    (
        f"--{BOUNDARY}\r\n"
        'Content-Disposition: form-data; name="title"\r\n\r\nholiday\r\n'
        f"--{BOUNDARY}\r\n"
        'Content-Disposition: form-data; name="file"; filename="photos.tar"\r\n'
        "Content-Type: application/x-tar\r\n\r\n"
    ).encode()
    + UPLOAD
    + f"\r\n--{BOUNDARY}--\r\n".encode()
)
UPLOAD_SCOPE = browser_scope(
    "POST",
    [
        (b"host", b"shop.example.com"),
        (b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode()),
        (b"content-length", str(len(UPLOAD_BODY)).encode()),
    ],
)
# uvicorn hands the body over in pieces of at most 64 KiB.
STEP = 64 * 1024
UPLOAD_CHUNKS = [UPLOAD_BODY[i : i + STEP] for i in range(0, len(UPLOAD_BODY), STEP)]


def upload_receive() -> Callable[[], Awaitable[Message]]:
    indexed = enumerate(UPLOAD_CHUNKS)
    last = len(UPLOAD_CHUNKS) - 1

    async def receive() -> Message:
        index, chunk = next(indexed)
        return {"type": "http.request", "body": chunk, "more_body": index < last}

    return receive


async def upload_ours() -> tuple[str, int]:
    request = ASGIRequest(UPLOAD_SCOPE, upload_receive())
    try:
        form = await request.form()
        upload = (await request.files())["file"]
        return form["title"], upload.size
    finally:
        await request.close()


async def upload_starlette() -> tuple[str, int]:
    request = starlette.requests.Request(UPLOAD_SCOPE, upload_receive())
    form = await request.form()
    try:
        upload = form["file"]
        assert isinstance(upload, starlette.datastructures.UploadFile)
        return str(form["title"]), upload.size or 0
    finally:
        await form.close()


@pytest.mark.benchmark(group="asgi-upload")
def test_upload_ours(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    assert benchmark(runner(loop, upload_ours)) == ("holiday", len(UPLOAD))


@pytest.mark.benchmark(group="asgi-upload")
def test_upload_starlette(benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop) -> None:
    assert benchmark(runner(loop, upload_starlette)) == ("holiday", len(UPLOAD))
