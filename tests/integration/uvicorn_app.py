"""The ASGI application that the integration tests run under real servers.

Started as ``python -m uvicorn tests.integration.uvicorn_app:app``; each
route exercises one part of the adapter over a real socket.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import resource
import tempfile
from collections.abc import AsyncIterator
from typing import Any

from sansio_http import file_response
from sansio_http.asgi import ASGIRequest, WebSocket, asgi_app
from sansio_http.bodies._formdata import FormLimits
from sansio_http.messages._response import Response

_MiB = 1024 * 1024
FILE_SIZE = 300_000
# Shared by the requests of this process (the lifespan state is a copy per request).
STATS: dict[str, Any] = {"streams_stopped": 0}


def _json(data: Any, status: int = 200) -> Response:
    return Response(json.dumps(data), status, content_type="application/json")


def _max_rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def startup(state: dict[str, Any]) -> None:
    handle, path = tempfile.mkstemp(prefix="sansio-asgi-", suffix=".bin")
    with os.fdopen(handle, "wb") as file:
        file.write(bytes(range(256)) * (FILE_SIZE // 256) + b"x" * (FILE_SIZE % 256))
    state["file"] = path


def shutdown(state: dict[str, Any]) -> None:
    os.unlink(state["file"])


async def _forever() -> AsyncIterator[bytes]:
    try:
        while True:
            yield b"tick\n" * 100
            await asyncio.sleep(0.01)
    finally:
        STATS["streams_stopped"] += 1


async def _slow(count: int) -> AsyncIterator[bytes]:
    for index in range(count):
        await asyncio.sleep(0.01)
        yield b"%d\n" % index


async def handler(request: ASGIRequest) -> Response:
    path = request.path
    if path == "/hello":
        client = request.scope["client"]
        return Response(b"hello", headers={"x-client-port": str(client[1])})
    if path == "/etag":
        response = Response(b"tagged", content_type="text/plain")
        response.set_etag("v1")
        return response.make_conditional(request)
    if path == "/file":
        name = request.state["file"]
        stat = os.stat(name)
        return file_response(name, size=stat.st_size, mtime=stat.st_mtime, request=request)
    if path == "/echo-size":
        digest = hashlib.sha256()
        size = 0
        async for chunk in request.stream():
            digest.update(chunk)
            size += len(chunk)
        return _json({"size": size, "sha256": digest.hexdigest()})
    if path == "/upload":
        before = _max_rss_kib()
        form = await request.form()
        files = await request.files()
        upload = files["file"]
        digest = hashlib.sha256()
        upload.seek(0)
        while chunk := upload.read(_MiB):
            digest.update(chunk)
        return _json(
            {
                "name": form["name"],
                "size": upload.size,
                "sha256": digest.hexdigest(),
                "rss_growth_kib": _max_rss_kib() - before,
            }
        )
    if path == "/stream":
        return Response(_slow(int(request.args.get("n", "5"))), content_type="text/plain")
    if path == "/forever":
        return Response(_forever(), content_type="text/plain")
    if path == "/stats":
        return _json(STATS)
    return Response(b"not found", 404)


async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for message in websocket:
        if isinstance(message, str):
            await websocket.send_text(message)
        else:
            await websocket.send_bytes(message)


app = asgi_app(
    handler,
    websocket=echo,
    on_startup=[startup],
    on_shutdown=[shutdown],
    max_content_length=64 * _MiB,
    form_limits=FormLimits(max_content_length=64 * _MiB),
)


def refuse_to_start(state: dict[str, Any]) -> None:
    raise ConnectionError("the database is unreachable")


failing_app = asgi_app(handler, on_startup=[refuse_to_start])
