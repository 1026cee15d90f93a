"""A Falcon-style resource framework: ``on_get``/``on_post`` responders, on WSGI and ASGI alike.

One ``async def`` handler serves ``api.wsgi`` and ``api.asgi``; responders are ``def`` or
``async def`` (docs/framework-authors.rst says how)."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from typing import Any

from sansio_http import BodyRequest, HTTPError, JSONResponse, Request, Response, abort, decode_json
from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.routing import Router, Rule
from sansio_http.wsgi import wsgi_app

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")  # OPTIONS: the router answers it
FIELD = re.compile(r"\{(\w+)(?::(\w+))?\}")  # Falcon's {name} and {name:converter}


def problem(request: Request, error: Exception) -> Response:
    """Render every error as application/problem+json (RFC 9457); a crash tells nothing."""
    error = error if isinstance(error, HTTPError) else HTTPError()  # a 500
    body = {"title": error.reason, "status": error.status, "detail": error.detail}
    return Response(json.dumps(body), error.status, error.headers, "application/problem+json")


async def call(request: Request, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a responder of either kind where the adapter serving ``request`` wants it."""
    if inspect.iscoroutinefunction(func):
        return await func(*args, **kwargs)
    if isinstance(request, ASGIRequest):  # the server's loop: hand it to the app's threads
        return await request.threads.requests(func, *args, **kwargs)
    return func(*args, **kwargs)  # WSGI: this worker thread's own loop, which no one shares


class Req:
    """The request as a responder reads it: the request's attributes and its body, read whole."""

    def __init__(self, request: Request, body: bytes) -> None:
        self.request, self.body = request, body

    @property
    def params(self) -> Any:
        """The query arguments, parsed when first asked for (Falcon's ``req.params``)."""
        return self.request.args

    def __getattr__(self, name: str) -> Any:  # req.headers, req.path...: the request's
        return getattr(self.request, name)

    @property
    def media(self) -> Any:
        """The body decoded as JSON: 415 unless it says it is JSON, 400 unless it is."""
        if not self.request.is_json:
            abort(415, "Send JSON with Content-Type: application/json.")
        return decode_json(self.body)


class Resp:
    """What a responder sets: the status, headers, and ``media`` (as JSON) or ``text``."""

    def __init__(self) -> None:
        self.status, self.text, self.headers = 200, "", dict[str, str]()
        self.media: Any = None


class API:
    """Routes to resources; ``wsgi`` and ``asgi`` serve them through one handler."""

    def __init__(self) -> None:
        self.router = Router()
        self.responders: dict[str, dict[str, Any]] = {}  # template -> method -> responder
        self.wsgi = wsgi_app(self.handle, error_renderer=problem)
        self.asgi = asgi_app(self.handle, error_renderer=problem)

    def add_route(self, template: str, resource: object) -> None:
        """Route ``template`` (``/items/{id:int}``) to the ``on_<method>`` of ``resource``."""
        found = {m: getattr(resource, f"on_{m.lower()}", None) for m in METHODS}
        responders = {method: func for method, func in found.items() if callable(func)}
        if not responders:
            name = type(resource).__name__
            raise TypeError(f"{name} has no responder: give it on_get(self, req, resp), say")
        path = FIELD.sub(lambda m: f"<{m[2]}:{m[1]}>" if m[2] else f"<{m[1]}>", template)
        self.router.add(Rule(path, template, list(responders)))
        self.responders[template] = {"HEAD": responders.get("GET"), **responders}  # HEAD: GET

    async def handle(self, request: BodyRequest) -> Response:
        """Answer one request: 404, 405 with Allow, or what the responder sets."""
        rule, values = self.router.match(request.path, request.method)
        responder = self.responders[rule.endpoint][request.method]
        body = b"" if request.method in ("GET", "HEAD") else await request.body()
        req, resp = Req(request, body), Resp()
        await call(request, responder, req, resp, **values)
        if resp.media is None:
            return Response(resp.text, resp.status, resp.headers)
        return JSONResponse(resp.media, resp.status, resp.headers)
