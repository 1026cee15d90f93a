"""A micro-framework on sansio-http: routing, bodies, responses, errors, WSGI and ASGI.

examples/notes.py is an application built with it; docs/build-your-own.rst explains both.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from typing import Any

from sansio_http import (
    FormData,
    FormDecoder,
    FormLimits,
    HTTPError,
    ImmutableMultiDict,
    JSONResponse,
    ProxyPolicy,
    Request,
    Response,
    decode_json,
)
from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.routing import Router, Rule
from sansio_http.wsgi import WSGIRequest, wsgi_app

View = Callable[..., Any]
NO_FORM = FormData(ImmutableMultiDict(), ImmutableMultiDict())


class Context:
    """What a view receives: the request head and its decoded body."""

    def __init__(self, request: Request, body: bytes, data: FormData) -> None:
        self.request, self.body = request, body
        self.form, self.files = data

    def json(self) -> Any:
        return decode_json(self.body)  # a 400 for anything but valid JSON


def to_response(result: Any) -> Response:
    """Turn what a view returned into a Response: a body, or (body, status[, headers])."""
    if isinstance(result, Response):
        return result
    status, headers = 200, None
    if isinstance(result, tuple):
        result, status, headers = (*result, None)[:3]  # (body, status[, headers])
    if isinstance(result, dict | list):
        return JSONResponse(result, status, headers)
    kind = "application/octet-stream" if isinstance(result, bytes) else None  # str: text/plain
    return Response(result, status, headers, kind)


class Micro:
    """Routes, error handlers and limits: the whole framework."""

    def __init__(self, limits: FormLimits | None = None, proxy: ProxyPolicy | None = None):
        self.router = Router()
        self.views: dict[str, View] = {}
        self.error_handlers: dict[int, View] = {}  # status -> handler(request, error)
        self.limits = limits or FormLimits()
        self.proxy = proxy

    def route(self, rule: str, methods: Iterable[str] = ("GET",)) -> Callable[[View], View]:
        def register(view: View) -> View:
            self.router.add(Rule(rule, view.__name__, methods))
            self.views[view.__name__] = view
            return view

        return register

    def url_for(self, endpoint: str, **values: Any) -> str:
        return self.router.build(endpoint, values)

    def as_wsgi(self) -> Callable[..., Any]:
        def handle(request: WSGIRequest) -> Response:
            exchange = Exchange(self, request)
            if exchange.response is None:
                for chunk in request.iter_data():
                    if not exchange.feed(chunk):
                        break
            return exchange.finish()

        return wsgi_app(handle, max_content_length=self.limits.max_content_length)

    def as_asgi(self) -> Callable[..., Any]:
        async def handle(request: ASGIRequest) -> Response:
            exchange = Exchange(self, request)
            if exchange.response is None:
                async for chunk in request.stream():
                    if not exchange.feed(chunk):
                        break
            return exchange.finish()

        return asgi_app(handle, max_content_length=self.limits.max_content_length)


class Exchange:
    """One request's way through the framework; the adapter feeds it the body."""

    def __init__(self, app: Micro, request: Request) -> None:
        self.app, self.request = app, app.proxy.apply(request) if app.proxy else request
        self.response: Response | None = None
        self.chunks: list[bytes] = []
        self.decoder: FormDecoder | None = None
        try:  # 404, 405 or a 308 to the path with a slash, before any body byte is read
            rule, self.values = app.router.match(self.request.path, self.request.method)
        except HTTPError as error:
            self.fail(error)
            return
        self.view = app.views[rule.endpoint]
        if FormDecoder.supports(self.request.mimetype):
            self.decoder = FormDecoder(
                self.request.content_type or "",
                content_length=self.request.content_length,
                limits=app.limits,
                spool=lambda: tempfile.SpooledTemporaryFile(max_size=1024 * 1024),
            )

    def fail(self, error: HTTPError) -> Response:
        handler = self.app.error_handlers.get(error.status)
        result = handler(self.request, error) if handler else error.to_response(self.request)
        self.response = to_response(result)
        return self.response

    def feed(self, chunk: bytes) -> bool:  # False once the answer is known: stop reading
        try:  # a malformed form is a 400, a broken limit a 413, as the chunks arrive
            if self.decoder is None:
                self.chunks.append(chunk)
            else:
                self.decoder.feed(chunk)
        except HTTPError as error:
            self.fail(error)
        return self.response is None

    def finish(self) -> Response:
        if self.response is not None:
            return self.response
        data = NO_FORM
        try:
            data = self.decoder.close() if self.decoder else NO_FORM
            context = Context(self.request, b"".join(self.chunks), data)
            return to_response(self.view(context, **self.values))
        except HTTPError as error:
            return self.fail(error)
        finally:
            data.close()
