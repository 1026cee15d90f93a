"""The applications that ``test_bench_thread_model.py`` runs under uvicorn.

Each answers the same requests:

- ``GET /chat``: a chat reply streamed by a ``def`` producer, three tokens
  one second apart; ``time.sleep`` between them stands for a blocking call
  to a model, and it blocks the producer's thread;
- ``GET /view``: a ``def`` view;
- ``GET /static/hello.txt``: a static file, from the folder named by
  ``SANSIO_BENCH_STATIC``.

``ours`` (the :class:`~sansio_http.App` through ``to_asgi``) also mounts a
plain WSGI application at ``/upload/`` that reads its whole body, with
``AppConfig(mount_threads=MOUNT_THREADS, stream_threads=STREAM_THREADS)``.
``starlette_app`` is the same
with Starlette: a sync generator in a ``StreamingResponse``, a ``def``
endpoint, ``StaticFiles``; Starlette runs all three in anyio's one pool of
40 threads.

Only the uvicorn processes import this module: it builds the applications
at import.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import starlette.applications
import starlette.requests
import starlette.responses
import starlette.routing
import starlette.staticfiles

from sansio_http import App, AppConfig, Request, Response
from sansio_http.asgi import to_asgi

STATIC = os.environ.get("SANSIO_BENCH_STATIC", "static")
TOKENS = 3
TOKEN_INTERVAL = 1.0
#: Small, so that a few slow uploads fill the pool of mounted WSGI applications.
MOUNT_THREADS = 4
#: The stream limit of the App: as many concurrent streams as the benchmark runs.
STREAM_THREADS = 16


def chat_tokens() -> Iterator[str]:
    """Yield the tokens of a reply, blocking between them."""
    for index in range(TOKENS):
        if index:
            time.sleep(TOKEN_INTERVAL)
        yield f"token {index}\n"


def read_upload(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """A PEP 3333 application that reads its whole body and answers its length."""
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length)
    answer = str(len(body)).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(answer)))])
    return [answer]


def _ours() -> App:
    app = App(
        "thread-model-bench",
        config=AppConfig(mount_threads=MOUNT_THREADS, stream_threads=STREAM_THREADS),
    )
    app.static("/static", STATIC)
    app.mount("/upload", read_upload)

    @app.get("/chat")
    def chat(request: Request) -> Response:
        return Response(chat_tokens(), content_type="text/plain; charset=utf-8")

    @app.get("/view")
    def view(request: Request) -> str:
        return "view"

    return app


ours = to_asgi(_ours())


def _starlette_chat(request: starlette.requests.Request) -> starlette.responses.Response:
    return starlette.responses.StreamingResponse(chat_tokens(), media_type="text/plain")


def _starlette_view(request: starlette.requests.Request) -> starlette.responses.Response:
    return starlette.responses.PlainTextResponse("view")


starlette_app = starlette.applications.Starlette(
    routes=[
        starlette.routing.Route("/chat", _starlette_chat),
        starlette.routing.Route("/view", _starlette_view),
        starlette.routing.Mount(
            "/static", starlette.staticfiles.StaticFiles(directory=STATIC, check_dir=False)
        ),
    ]
)
