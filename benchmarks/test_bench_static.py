"""Static files: a 1 KiB file, a 10 MiB file and a revalidation (304), in-process.

Ours is ``App.static`` mounted with ``to_wsgi`` and ``to_asgi``; next to it,
Werkzeug's ``SharedDataMiddleware`` (WSGI) and Starlette's ``StaticFiles``
(ASGI), each called the way its server would call it, with the harness of
:mod:`benchmarks._drive` (the same for every row of a group). The ASGI scope
offers no ``http.response.pathsend``, so every row streams the file in
chunks, and every row reads the whole body.

Equal work: each answer carries Content-Type, Content-Length, ETag and
Last-Modified, and each checks If-None-Match. Ours and Starlette's also
resolve symlinks to refuse one leading out of the folder (Werkzeug does not
check symlinks); ours also adds ``Vary: Accept-Encoding`` (precompressed
siblings are on, but the requests send no Accept-Encoding, so no sibling is
looked for).

The deep rows resolve a 1 KiB file 10, 100 and 800 folders deep: ours
checks every folder for a symlink, and its cost should grow linearly with
the depth, as Werkzeug's (which checks none) does.

``test_memory_stays_flat_*`` are plain tests, not timed: tracemalloc's peak
while a 10 MiB file is sent chunk by chunk and each chunk dropped.
"""

from __future__ import annotations

import asyncio
import io
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from starlette.staticfiles import StaticFiles
from werkzeug.middleware.shared_data import SharedDataMiddleware

from sansio_http import App

from ._drive import ASGIApp, Message, WSGIApp, call_wsgi, mount_asgi, mount_wsgi, release

KiB = 1024
MiB = 1024 * KiB
SMALL = bytes(range(256)) * 4  # 1 KiB
LARGE_SIZE = 10 * MiB
# Requests per timed round under ASGI: a batch for the small answers, one for 10 MiB.
BATCHES = {"small.txt": 100, "large.bin": 1}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench-static")
    (root / "small.txt").write_bytes(SMALL)
    with (root / "large.bin").open("wb") as file:
        for _ in range(LARGE_SIZE // MiB):
            file.write(bytes(range(256)) * 4 * KiB)
    return root


def our_app(folder: Path) -> App:
    app = App("bench-static")
    app.static("/static", folder)
    return app


def environ(path: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    base: dict[str, Any] = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "localhost",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    for name, value in (headers or {}).items():
        base["HTTP_" + name.upper().replace("-", "_")] = value
    return base


def scope(path: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "type": "http",
        # NOTE: 2.4, where a gone client shows as an OSError from send();
        # before it, Starlette's FileResponse polls receive() for the disconnect.
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost")]
        + [(name.encode(), value.encode()) for name, value in (headers or {}).items()],
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 80),
    }


def werkzeug_app(folder: Path) -> WSGIApp:
    def not_found(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response("404 NOT FOUND", [("Content-Type", "text/plain")])
        return [b""]

    return SharedDataMiddleware(not_found, {"/static": str(folder)})


def starlette_app(folder: Path) -> ASGIApp:
    return StaticFiles(directory=folder)


# -- the ASGI harness: BATCH requests per round, chunks counted, not kept ----------


async def _drive(
    app: ASGIApp, scope: dict[str, Any], batch: int
) -> tuple[int, int, dict[bytes, bytes]]:
    status, size, headers = 0, 0, {}
    request = {"type": "http.request", "body": b"", "more_body": False}
    never = asyncio.Event()
    received = 0

    async def receive() -> Message:
        # As a server does: the body once, then nothing until the client goes
        # (it never does here), so that a listener for the disconnect waits.
        nonlocal received
        received += 1
        if received == 1:
            return request
        await never.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status, size, headers
        if message["type"] == "http.response.start":
            status, size = message["status"], 0
            headers = dict(message["headers"])
        else:
            size += len(message.get("body", b""))

    for _ in range(batch):
        received = 0
        await app(dict(scope), receive, send)
    return status, size, headers


def drive_asgi(
    loop: asyncio.AbstractEventLoop, app: ASGIApp, scope: dict[str, Any], batch: int
) -> Callable[[], tuple[int, int, dict[bytes, bytes]]]:
    loop.run_until_complete(_drive(app, scope, batch))
    return lambda: loop.run_until_complete(_drive(app, scope, batch))


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    try:
        yield loop
    finally:
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


def etag_of_wsgi(app: WSGIApp, path: str) -> str:
    found: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        found.extend(value for name, value in headers if name.lower() == "etag")

    iterable = app(environ(path), start_response)
    getattr(iterable, "close", lambda: None)()
    return found[0]


# -- WSGI rows ------------------------------------------------------------------------

WSGI_CASES = {"small": ("small.txt", len(SMALL)), "large": ("large.bin", LARGE_SIZE)}


@pytest.mark.parametrize("case", ["small", "large"])
def test_wsgi_file_sansio_http(benchmark: BenchmarkFixture, folder: Path, case: str) -> None:
    name, size = WSGI_CASES[case]
    app = mount_wsgi(our_app(folder))
    status, body = benchmark(call_wsgi, app, environ(f"/static/{name}"))
    assert (status, len(body)) == ("200 OK", size)


@pytest.mark.parametrize("case", ["small", "large"])
def test_wsgi_file_werkzeug(benchmark: BenchmarkFixture, folder: Path, case: str) -> None:
    name, size = WSGI_CASES[case]
    app = werkzeug_app(folder)
    status, body = benchmark(call_wsgi, app, environ(f"/static/{name}"))
    assert (status, len(body)) == ("200 OK", size)


def test_wsgi_not_modified_sansio_http(benchmark: BenchmarkFixture, folder: Path) -> None:
    app = mount_wsgi(our_app(folder))
    etag = etag_of_wsgi(app, "/static/small.txt")
    status, body = benchmark(call_wsgi, app, environ("/static/small.txt", {"if-none-match": etag}))
    assert (status, body) == ("304 Not Modified", b"")


def test_wsgi_not_modified_werkzeug(benchmark: BenchmarkFixture, folder: Path) -> None:
    app = werkzeug_app(folder)
    etag = etag_of_wsgi(app, "/static/small.txt")
    status, body = benchmark(call_wsgi, app, environ("/static/small.txt", {"if-none-match": etag}))
    assert (status.split()[0], body) == ("304", b"")


# -- deep folders: resolving a file k folders deep ----------------------------------------

DEPTHS = [10, 100, 800]


@pytest.fixture(scope="module")
def deep_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Folders one letter long, so that 800 of them stay within PATH_MAX (4096).
    root = tmp_path_factory.mktemp("bench-deep")
    for depth in DEPTHS:
        leaf = root.joinpath(str(depth), *["d"] * depth)
        leaf.mkdir(parents=True)
        (leaf / "f.txt").write_bytes(SMALL)
    return root


def deep_path(depth: int) -> str:
    return f"/static/{depth}/" + "d/" * depth + "f.txt"


@pytest.mark.parametrize("depth", DEPTHS)
def test_wsgi_deep_file_sansio_http(
    benchmark: BenchmarkFixture, deep_folder: Path, depth: int
) -> None:
    app = mount_wsgi(our_app(deep_folder))
    status, body = benchmark(call_wsgi, app, environ(deep_path(depth)))
    assert (status, body) == ("200 OK", SMALL)


@pytest.mark.parametrize("depth", DEPTHS)
def test_wsgi_deep_file_werkzeug(
    benchmark: BenchmarkFixture, deep_folder: Path, depth: int
) -> None:
    app = werkzeug_app(deep_folder)
    status, body = benchmark(call_wsgi, app, environ(deep_path(depth)))
    assert (status, body) == ("200 OK", SMALL)


# -- ASGI rows --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["small.txt", "large.bin"])
def test_asgi_file_sansio_http(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, folder: Path, name: str
) -> None:
    app = our_app(folder)
    try:
        run = drive_asgi(loop, mount_asgi(app), scope(f"/static/{name}"), BATCHES[name])
        status, size, _ = benchmark(run)
    finally:
        release(app)
    assert (status, size) == (200, (folder / name).stat().st_size)


@pytest.mark.parametrize("name", ["small.txt", "large.bin"])
def test_asgi_file_starlette(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, folder: Path, name: str
) -> None:
    run = drive_asgi(loop, starlette_app(folder), scope(f"/{name}"), BATCHES[name])
    status, size, _ = benchmark(run)
    assert (status, size) == (200, (folder / name).stat().st_size)


def test_asgi_not_modified_sansio_http(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, folder: Path
) -> None:
    app = our_app(folder)
    try:
        asgi = mount_asgi(app)
        _, _, headers = loop.run_until_complete(_drive(asgi, scope("/static/small.txt"), 1))
        conditional = scope("/static/small.txt", {"if-none-match": headers[b"etag"].decode()})
        status, size, _ = benchmark(drive_asgi(loop, asgi, conditional, 100))
    finally:
        release(app)
    assert (status, size) == (304, 0)


def test_asgi_not_modified_starlette(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, folder: Path
) -> None:
    app = starlette_app(folder)
    _, _, headers = loop.run_until_complete(_drive(app, scope("/small.txt"), 1))
    conditional = scope("/small.txt", {"if-none-match": headers[b"etag"].decode()})
    status, size, _ = benchmark(drive_asgi(loop, app, conditional, 100))
    assert (status, size) == (304, 0)


# -- memory: flat for 10 MiB (plain tests, not timed) ---------------------------------------


def test_memory_stays_flat_under_wsgi(folder: Path) -> None:
    app = mount_wsgi(our_app(folder))
    tracemalloc.start()
    try:
        iterable = app(environ("/static/large.bin"), lambda *args: None)
        sent = 0
        try:
            for chunk in iterable:
                sent += len(chunk)
        finally:
            getattr(iterable, "close", lambda: None)()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sent == LARGE_SIZE
    print(f"\nWSGI, 10 MiB static file: peak traced memory {peak / KiB:.0f} KiB")
    assert peak < 1 * MiB


def test_memory_stays_flat_under_asgi(loop: asyncio.AbstractEventLoop, folder: Path) -> None:
    app = our_app(folder)
    try:
        asgi = mount_asgi(app)
        # NOTE: one request first, so that the App's thread pools have started
        # their threads: the bound is on what the body costs, not on them.
        loop.run_until_complete(_drive(asgi, scope("/static/small.txt"), 1))
        tracemalloc.start()
        try:
            status, size, _ = loop.run_until_complete(_drive(asgi, scope("/static/large.bin"), 1))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    finally:
        release(app)
    assert (status, size) == (200, LARGE_SIZE)
    print(f"\nASGI, 10 MiB static file: peak traced memory {peak / KiB:.0f} KiB")
    assert peak < 1 * MiB
