"""One App with the three built-in middleware, for every adapter and server.

The same source runs under ``to_wsgi`` and ``to_asgi``; the views come as
``def`` and ``async def``. The allowed CORS origin comes from the
``CORS_ORIGIN`` environment variable, so that a browser test can start two
servers that allow each other or not.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

from sansio_http import (
    App,
    CORSMiddleware,
    GZipMiddleware,
    Middleware,
    Request,
    Response,
    SessionMiddleware,
)
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi

SECRET = "test-secret-for-the-middleware-views-0123456789"
ORIGIN = os.environ.get("CORS_ORIGIN", "https://app.example")
LINE = b"a line of text that compresses well, repeated many times over.\n"
BIG = LINE * 200

app = App("middleware")


class CountPreflights(Middleware):
    """Count the preflights that reach the outermost middleware."""

    blocking = False

    def __init__(self) -> None:
        self.count = 0

    def process_request(self, request: Request) -> None:
        if request.method == "OPTIONS" and "access-control-request-method" in request.headers:
            self.count += 1


preflights = CountPreflights()
app.add_middleware(preflights)
app.add_middleware(
    CORSMiddleware(
        [ORIGIN],
        allow_methods=["GET", "POST", "PUT"],
        allow_headers=["content-type", "x-client"],
        allow_credentials=True,
        expose_headers=["x-visits"],
        max_age=120,
    )
)
app.add_middleware(GZipMiddleware())
app.add_middleware(SessionMiddleware(SECRET))


@app.get("/preflights")
def preflight_count(request: Request) -> dict[str, int]:
    """Report how many preflights the server saw."""
    return {"preflights": preflights.count}


@app.route("/sync/visit", methods=["GET", "PUT"])
def sync_visit(request: Request) -> Response:
    """Count visits in the session, def spelling."""
    session = request.state.session
    session["visits"] = session.get("visits", 0) + 1
    return Response(str(session["visits"]), headers={"x-visits": str(session["visits"])})


@app.route("/async/visit", methods=["GET", "PUT"])
async def async_visit(request: Request) -> Response:
    """Count visits in the session, async def spelling."""
    session = request.state.session
    session["visits"] = session.get("visits", 0) + 1
    return Response(str(session["visits"]), headers={"x-visits": str(session["visits"])})


@app.get("/sync/peek")
def sync_peek(request: Request) -> dict[str, Any]:
    """Read the session without changing it."""
    return {"visits": request.state.session.get("visits", 0)}


@app.get("/async/peek")
async def async_peek(request: Request) -> dict[str, Any]:
    """Read the session without changing it."""
    return {"visits": request.state.session.get("visits", 0)}


@app.get("/sync/big")
def sync_big(request: Request) -> Response:
    """A body worth compressing."""
    return Response(BIG, content_type="text/plain", headers={"ETag": '"big"'})


@app.get("/async/big")
async def async_big(request: Request) -> Response:
    """A body worth compressing."""
    return Response(BIG, content_type="text/plain", headers={"ETag": '"big"'})


@app.get("/sync/stream")
def sync_stream(request: Request) -> Response:
    """A streamed body, as a generator."""

    def chunks() -> Iterator[bytes]:
        for _ in range(200):
            yield LINE

    return Response(chunks(), content_type="text/plain")


@app.get("/async/stream")
async def async_stream(request: Request) -> Response:
    """A streamed body, as an async generator."""

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(200):
            yield LINE

    return Response(chunks(), content_type="text/plain")


@app.get("/sync/small")
def sync_small(request: Request) -> str:
    """A body too small to compress."""
    return "small"


@app.get("/async/small")
async def async_small(request: Request) -> str:
    """A body too small to compress."""
    return "small"


wsgi_application = to_wsgi(app)
asgi_application = to_asgi(app)
