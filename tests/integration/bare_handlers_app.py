"""One pair of handlers, ``def`` and ``async def``, served by both adapters.

``wsgi_def`` / ``wsgi_async`` (for gunicorn) and ``asgi_def`` /
``asgi_async`` (for uvicorn) share the handlers and an error renderer that
answers every error as ``application/problem+json``.
"""

from __future__ import annotations

import json

from sansio_http import BodyRequest, HTTPError, NotFound, Request, Response
from sansio_http.asgi import asgi_app
from sansio_http.wsgi import wsgi_app


def _answer(request: Request, body: bytes, kind: str) -> Response:
    if request.path == "/missing":
        raise NotFound("no such thing")
    if request.path == "/crash":
        raise RuntimeError("crash")
    return Response(f"{kind} {request.method} {body.decode()}")


def handler(request: BodyRequest) -> Response:
    return _answer(request, request.get_data(), "def")


async def async_handler(request: BodyRequest) -> Response:
    return _answer(request, await request.body(), "async")


def problem(request: Request, exc: Exception) -> Response:
    status = exc.status if isinstance(exc, HTTPError) else 500
    return Response(
        json.dumps({"status": status, "instance": request.path}),
        status=status,
        content_type="application/problem+json",
    )


wsgi_def = wsgi_app(handler, error_renderer=problem)
wsgi_async = wsgi_app(async_handler, error_renderer=problem)
asgi_def = asgi_app(handler, error_renderer=problem)
asgi_async = asgi_app(async_handler, error_renderer=problem)
