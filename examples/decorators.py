"""A bottle-style decorator framework: ``@app.get("/hello/<name>")``, on WSGI and ASGI alike.

One ``async def`` handler serves both; views and hooks are ``def`` or ``async def``."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from sansio_http import BodyRequest, HTTPError, JSONResponse, Request, Response, abort, decode_json
from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.routing import Router, Rule
from sansio_http.wsgi import wsgi_app

F = TypeVar("F", bound=Callable[..., Any])


def problem(request: Request, error: Exception) -> Response:
    """Render every error as application/problem+json (RFC 9457); a crash tells nothing."""
    error = error if isinstance(error, HTTPError) else HTTPError()  # a 500
    body = {"title": error.reason, "status": error.status, "detail": error.detail}
    return Response(json.dumps(body), error.status, error.headers, "application/problem+json")


async def call(request: Request, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a view or hook of either kind where the adapter serving ``request`` wants it."""
    if inspect.iscoroutinefunction(func):
        return await func(*args, **kwargs)
    if isinstance(request, ASGIRequest):  # the server's loop: hand it to the app's threads
        return await request.threads.requests(func, *args, **kwargs)
    return func(*args, **kwargs)  # WSGI: this worker thread's own loop, which no one shares


def to_response(result: Any) -> Response:
    """Turn what a view returned into a Response: str, bytes, dict or list, or (that, status)."""
    if isinstance(result, Response):
        return result
    body, status = result if isinstance(result, tuple) else (result, 200)
    if isinstance(body, dict | list):
        return JSONResponse(body, status)
    kind = None if isinstance(body, str) else "application/octet-stream"  # str: text/plain
    return Response(body, status, None, kind)


class Req:
    """What a view gets: the request's attributes (``req.args``...) and its body, read whole."""

    def __init__(self, request: Request, body: bytes) -> None:
        self.request, self.body = request, body

    def __getattr__(self, name: str) -> Any:  # read when asked: a view pays for what it uses
        return getattr(self.request, name)

    @property
    def json(self) -> Any:
        """The body decoded as JSON: 415 unless it says it is JSON, 400 unless it is."""
        if not self.request.is_json:
            abort(415, "Send JSON with Content-Type: application/json.")
        return decode_json(self.body)


class Bottle:
    """Views by decorator, hooks around them; ``wsgi`` and ``asgi`` serve them alike."""

    def __init__(self) -> None:
        self.router, self.views = Router(), dict[str, Callable[..., Any]]()
        self.before: list[Callable[[Req], Any]] = []  # hook(req), before every view
        self.after: list[Callable[[Req, Response], Any]] = []  # hook(req, response)
        self.wsgi = wsgi_app(self.handle, error_renderer=problem)
        self.asgi = asgi_app(self.handle, error_renderer=problem)

    def route(self, path: str, methods: Iterable[str] = ("GET",)) -> Callable[[F], F]:
        """Register a view for ``path`` (``/items/<int:id>``); it gets ``req`` and the values."""

        def register(view: F) -> F:
            self.router.add(Rule(path, name := f"{view.__qualname__}@{id(view):x}", methods))
            self.views[name] = view
            return view

        return register

    def get(self, path: str) -> Callable[[F], F]:
        return self.route(path, ["GET"])

    def post(self, path: str) -> Callable[[F], F]:
        return self.route(path, ["POST"])

    async def handle(self, request: BodyRequest) -> Response:
        """Answer one request: 404, 405 with Allow, or the hooks and the view."""
        rule, values = self.router.match(request.path, request.method)
        req = Req(request, b"" if request.method in ("GET", "HEAD") else await request.body())
        for hook in self.before:
            await call(request, hook, req)
        response = to_response(await call(request, self.views[rule.endpoint], req, **values))
        for after in self.after:
            await call(request, after, req, response)
        return response
