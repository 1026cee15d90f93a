"""ASGI applications: a request handler, or an App, as an ASGI 3 callable.

:func:`to_asgi` mounts an :class:`~sansio_http.App`; :func:`asgi_app` turns
``async def handler(request) -> Response``, or a ``def`` one run in a thread
of the application's request pool (plus an optional websocket
handler and lifespan hooks) into an application that
uvicorn, hypercorn or the development server can run. The application class
and :func:`serve_websocket` hold the rules every ASGI application of this
package follows: who answers an error, when a disconnect is silent, what an
exception after the response head means.
A test client that offers the scope extension :data:`RAISE_EXCEPTIONS` gets
the exception raised instead of a 500.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Collection, Iterable
from typing import Any, Final, cast

from sansio_http.app import App
from sansio_http.app._context import request_var
from sansio_http.app._responses import RESPONSE_CLASSES, not_a_response
from sansio_http.app._static import prepare_static
from sansio_http.bodies._body import with_settings
from sansio_http.bodies._formdata import FormLimits, SpoolFactory
from sansio_http.messages._errors import HTTPError, HTTPException, InternalServerError
from sansio_http.messages._head import DEFAULT_HEAD_LIMITS, HeadLimits
from sansio_http.messages._proxy import ProxyPolicy
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

from ._lifespan import Hook, Lifespan
from ._mount import prepare_mounts, start_mounts, stop_mounts, with_mounts
from ._request import RAISE_EXCEPTIONS, ASGIRequest
from ._response import NO_LENGTH_FIELDS, ResponseSender, run_close_work
from ._scope import check_scope
from ._static import FILE_SYSTEM
from ._threads import ThreadPool, ThreadPools
from ._types import ASGIApp, Receive, Scope, Send
from ._websocket import WebSocket, WebSocketDisconnect

__all__ = [
    "RAISE_EXCEPTIONS",
    "ErrorRenderer",
    "Handler",
    "SyncHandler",
    "WebSocketHandler",
    "asgi_app",
    "serve_websocket",
    "to_asgi",
]

logger = logging.getLogger("sansio_http.asgi")

# The statuses of a final response without content (RFC 9110 §15.3.5, §15.4.5).
_NO_CONTENT: Final = frozenset({204, 304})

#: An HTTP request handler: ``async def handler(request) -> Response``.
Handler = Callable[[ASGIRequest], Awaitable[Response]]

#: An HTTP request handler run in a thread: ``def handler(request) -> Response``.
SyncHandler = Callable[[ASGIRequest], Response]

#: Makes the response for an error: ``def render(request, exception) -> Response``,
#: or ``async def``.
ErrorRenderer = Callable[[Request, Exception], "Response | Awaitable[Response]"]

#: A websocket session handler: ``async def handler(websocket) -> None``.
WebSocketHandler = Callable[[WebSocket], Awaitable[None]]


async def serve_websocket(
    scope: Scope, receive: Receive, send: Send, handler: WebSocketHandler | None, **args: Any
) -> None:
    """Run one websocket session and make sure it ends properly.

    A session the handler leaves connecting is refused (403), one it leaves
    open is closed with 1000. An exception from the handler is logged and
    ends the session: with a 500 response when the server offers the
    ``websocket.http.response`` extension and the session was never
    accepted, else with close code 1011 (RFC 6455 §7.4.1, internal error).
    A disconnect is not an error.

    Args:
        scope: The ``websocket`` scope.
        receive: The server's ``receive``.
        send: The server's ``send``.
        handler: Runs the session; None refuses every connection.
        **args: Keyword arguments for :class:`WebSocket`.
    """
    websocket = WebSocket(scope, receive, send, **args)
    try:
        if handler is not None:
            await handler(websocket)
    except WebSocketDisconnect:
        return
    except HTTPException as exc:
        await _refuse(websocket, exc)
        return
    except Exception:
        logger.exception("error in the websocket handler")
        await _refuse(websocket, InternalServerError())
        return
    try:
        await websocket.close()
    except WebSocketDisconnect:
        pass


async def _refuse(websocket: WebSocket, error: HTTPException) -> None:
    try:
        if websocket.closed:
            return
        if websocket.connected:
            await websocket.close(1011 if error.status >= 500 else 1008)
        else:
            await websocket.deny(error.to_response(websocket.request))
    except WebSocketDisconnect:
        pass


class _HandlerApp:
    """An ASGI 3 application around a request handler (see `asgi_app`).

    It answers each HTTP request by the rules every ASGI application of this
    package follows:

    - An :class:`~sansio_http.HTTPException` from the handler (an error,
      or a routing answer such as the 308 to the slashed path; or an error
      from reading the body) is answered with its response.
    - Any other exception before the response head is logged and answered
      with a 500; after the head it propagates, so that the server closes
      the connection (the head already promised a complete body).
    - When the client has gone, nothing is sent and nothing propagates: a
      disconnect is never a 500 or an error for the server to log.
    - When the scope offers the extension :data:`RAISE_EXCEPTIONS`, an
      exception that would be a 500 propagates instead (for test clients).

    A head past ``head_limits``, or one the core's checks refuse, is
    answered without the handler. An ``error_renderer`` makes the answer to
    an error from the handler in place of the defaults.
    """

    __slots__ = (
        "_lifespan",
        "error_renderer",
        "handler",
        "head_limits",
        "request_class",
        "threads",
        "websocket",
    )

    def __init__(
        self,
        handler: Handler,
        websocket: WebSocketHandler | None,
        lifespan: Lifespan,
        request_class: type[ASGIRequest],
        head_limits: HeadLimits,
        threads: ThreadPools,
        error_renderer: ErrorRenderer | None = None,
    ) -> None:
        self.handler = handler
        self.error_renderer = error_renderer
        self.websocket = websocket
        self._lifespan = lifespan
        self.request_class = request_class
        self.head_limits = head_limits
        #: The threads of its blocking work: streams, files, work after the response.
        self.threads = threads

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http":
            await self._other(kind, scope, receive, send)
            return
        # PERF: the HTTP request served here, not in a coroutine of its own.
        state = self._lifespan.state
        request = (
            self.request_class(scope, receive)
            if state is None
            else self.request_class(scope, receive, state=state)
        )
        head = request.method == "HEAD"
        response: Response | None = None
        context: contextvars.Token[Request] | None = None
        try:
            try:
                checked = check_scope(scope, self.head_limits, request)
                response = checked or await self.handler(request)
                if response.__class__ not in RESPONSE_CLASSES and not isinstance(
                    response, Response
                ):
                    # Refused here, naming the handler, not as an AttributeError when sent.
                    raise not_a_response(self.handler, response)
            except HTTPException as exc:
                if request._receiver.disconnected:
                    return
                # A routing answer (308, 204) is no error: never the renderer's.
                if self.error_renderer is None or not isinstance(exc, HTTPError):
                    response = exc.to_response(request)
                else:
                    response = await self._render(request, exc)
            except Exception as exc:
                if request._receiver.disconnected:
                    logger.info("error after the client disconnected", exc_info=True)
                    return
                if request.propagate_exceptions:
                    raise
                logger.exception("error in the request handler")
                if self.error_renderer is None:
                    response = InternalServerError().to_response(request)
                else:
                    response = await self._render(request, exc)
            body = response.body
            status = response.status
            if body.__class__ is bytes and status >= 200:
                # PERF: the usual body, in memory, sent as ResponseSender would send it
                # without making one: the head counts as sent from the first send(), so an
                # error now propagates (the server closes the connection), and an OSError
                # means the client is gone (ASGI 2.4), which is not an error. A 1xx goes
                # to ResponseSender.
                headers = response.raw_headers()
                if status in _NO_CONTENT:
                    # RFC 9110 §15.3.5, §15.4.5: no content and no length, whatever the
                    # response holds. PERF: a Response's raw_headers() leaves the length
                    # out of a 204 already; a 304's or a subclass's may still hold one.
                    head = True
                    if status == 304 or response.__class__ is not Response:
                        headers = [field for field in headers if field[0] not in NO_LENGTH_FIELDS]
                try:
                    await send(
                        {
                            "type": "http.response.start",
                            "status": status,
                            "headers": headers,
                        }
                    )
                    await send(
                        {
                            "type": "http.response.body",
                            "body": b"" if head else body,
                            "more_body": False,
                        }
                    )
                except OSError:
                    return
                return
            # The body is made, and the work after the response runs, in the
            # request's context: url_for and current_request work there as in
            # the view (the dispatch's own context has ended). Kept to the end.
            context = request_var.set(request)
            sender = ResponseSender(
                send, request._receiver, scope.get("extensions"), threads=self.threads
            )
            try:
                await sender.send(response, head=head)
            except Exception:
                if sender.disconnected:
                    return
                if sender.started or request.propagate_exceptions:
                    # NOTE: the head promised a body that cannot be finished; the
                    # server must close the connection (ASGI spec, "Response").
                    raise
                logger.exception("error before the response head was sent")
                with contextlib.suppress(OSError):
                    await sender.send(InternalServerError().to_response(request), head=head)
        finally:
            # Work after the response: the response was sent (or the client
            # left, or it failed); the request's resources are still open.
            try:
                if (
                    Response._close_work_used
                    and response is not None
                    and getattr(response, "_close_work", None)
                ):
                    if context is None:
                        context = request_var.set(request)
                    await run_close_work(response, request, self.threads.requests)
                if request.has_resources:
                    await request.close()
            finally:
                if context is not None:
                    request_var.reset(context)

    async def _render(self, request: ASGIRequest, exc: Exception) -> Response:
        """Return what the error renderer makes of ``exc``, or the default answer."""
        renderer = cast(ErrorRenderer, self.error_renderer)
        try:
            response = renderer(request, exc)
            if inspect.isawaitable(response):
                response = await response
            if not isinstance(response, Response):
                raise not_a_response(renderer, response)
        except Exception:
            logger.exception("error in the error renderer")
            error = exc if isinstance(exc, HTTPError) else InternalServerError()
            return error.to_response(request)
        return response

    async def _other(self, kind: str, scope: Scope, receive: Receive, send: Send) -> None:
        if kind == "websocket":
            await serve_websocket(scope, receive, send, self.websocket, state=self._lifespan.state)
        elif kind == "lifespan":
            await self._lifespan(scope, receive, send)
        else:
            raise ValueError(f"unknown ASGI scope type {kind!r}")


def asgi_app(
    handler: Handler | SyncHandler,
    *,
    websocket: WebSocketHandler | None = None,
    on_startup: Iterable[Hook] = (),
    on_shutdown: Iterable[Hook] = (),
    max_content_length: int | None = None,
    form_limits: FormLimits | None = None,
    spool: SpoolFactory | None = None,
    trusted_hosts: Collection[str] | None = None,
    head_limits: HeadLimits | None = None,
    request_class: type[ASGIRequest] = ASGIRequest,
    threads: ThreadPools | None = None,
    error_renderer: ErrorRenderer | None = None,
) -> ASGIApp:
    """Make an ASGI 3 application from ``async def handler(request)``.

    A ``def`` handler works too: each call runs in a thread of the
    application's request pool (``threads.requests``, never the loop's
    default executor), with the context copied; its blocking body reads go
    through the event loop. Whether the handler is a coroutine function is
    decided here, once: an ``async def`` handler pays nothing for it.

    Example::

        async def hello(request: ASGIRequest) -> Response:
            return Response(f"Hello, {request.args.get('name', 'world')}!")

        app = asgi_app(hello)   # uvicorn module:app

    Args:
        handler: Answers each HTTP request with a
            :class:`~sansio_http.Response`; raising an
            :class:`~sansio_http.HTTPError` answers with its response.
            Returning anything else is a ``TypeError`` naming the handler,
            logged and answered with a 500.
        websocket: Runs each websocket session; without one, websocket
            connections are refused (403).
        on_startup: Called with the lifespan state (a dict that requests
            see as ``request.state``) before the server accepts requests,
            sync or async; an error stops the server from starting.
        on_shutdown: Called with the lifespan state when the server stops.
        max_content_length: The most request body bytes read, or None.
        form_limits: The limits of ``request.form()``.
        spool: Makes the file each upload is written to.
        trusted_hosts: The host names requests accept, or None for any.
        head_limits: The limits of the request head; a head past them, or
            one the core's checks refuse, is answered without ``handler``;
            the development server's by default.
        request_class: The request class to build, an :class:`ASGIRequest`
            subclass.
        threads: The thread pools of its blocking work (a ``def`` handler,
            sync bodies, files, upload spools, work after the response);
            pools of the default sizes, its own, when None.
        error_renderer: ``render(request, exception) -> Response``, called
            for an :class:`~sansio_http.HTTPError` that escapes the handler
            and for any other exception (still logged first) but a routing
            answer (:class:`~sansio_http.routing.RoutingAnswer`, always its
            own response); None answers
            with the error's own response and a 500. An ``async def`` one
            is awaited; a ``def`` one is called on the event loop, so it
            must be quick and must not block. When it raises (or returns no
            Response), that is logged and the default answer is sent.

    Returns:
        The ASGI application.

    Raises:
        TypeError: ``handler`` is an :class:`~sansio_http.App` (mount it with
            :func:`to_asgi`), ``websocket`` is not a coroutine function, or
            ``threads`` is not a :class:`ThreadPools`.
    """
    if isinstance(handler, App):
        raise TypeError("asgi_app() takes a handler function; mount an App with to_asgi(app)")
    if websocket is not None and not _is_async(websocket):
        name = getattr(websocket, "__qualname__", websocket)
        raise TypeError(
            f"asgi_app() awaits its websocket, and {name!r} is not a coroutine function:"
            " write it with async def"
        )
    if threads is None:
        threads = ThreadPools()
    elif not isinstance(threads, ThreadPools):
        raise TypeError(
            f"asgi_app(threads=) takes a ThreadPools, not {type(threads).__name__}: "
            "write threads=ThreadPools(threads=...) to size its pools"
        )
    call: Handler
    if _is_async(handler):
        call = cast(Handler, handler)
    else:
        call = _in_thread(cast(SyncHandler, handler), threads.requests)
    request_class = with_settings(
        request_class,
        {
            "threads": threads,
            "max_content_length": max_content_length,
            "form_limits": form_limits,
            "spool": None if spool is None else staticmethod(spool),
            "trusted_hosts": trusted_hosts,
        },
    )
    return _HandlerApp(
        call,
        websocket,
        Lifespan(on_startup, on_shutdown),
        request_class,
        DEFAULT_HEAD_LIMITS if head_limits is None else head_limits,
        threads,
        error_renderer,
    )


def _in_thread(handler: SyncHandler, pool: ThreadPool) -> Handler:
    """Return an ``async def`` handler that runs ``handler`` in a thread of ``pool``."""

    @functools.wraps(handler)
    async def call(request: ASGIRequest) -> Response:
        return await pool(handler, request)  # type: ignore[no-any-return]

    return call


def _is_async(func: object) -> bool:
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
        getattr(func, "__call__", None)  # noqa: B004 (the method itself is inspected)
    )


def to_asgi(
    app: App,
    *,
    proxy_policy: ProxyPolicy | None = None,
    spool: SpoolFactory | None = None,
    trusted_hosts: Collection[str] | None = None,
    head_limits: HeadLimits | None = None,
) -> ASGIApp:
    """Mount an :class:`~sansio_http.App` as an ASGI 3 application.

    Plain views, hooks and error handlers run in a thread pool owned by the
    App (``AppConfig.threads`` threads) with the context copied, so
    ``current_request`` works in them, all of one request's on one thread;
    coroutine functions run on the server's event loop. The App's other
    blocking work runs in pools of its own, each bounded by its setting
    (``AppConfig.io_threads``, ``stream_threads``, ``mount_threads``), never
    in the loop's default executor. Websocket rules get a :class:`WebSocket`; the App's
    lifespan context manager and its startup and shutdown hooks run in the
    lifespan, once per process however many times the App is mounted (see
    ``App.on_startup``), and the state they fill is the lifespan state each
    request's ``request.state`` starts with. Apps mounted in it
    (``App.mount``) share its thread pool and its lifespan; a mounted ASGI
    application gets its own lifespan inside the App's, and a mounted WSGI
    application runs in the mounts pool, its body and response streamed
    through the event loop.

    Args:
        app: The App; this installs its ``thread_runner``.
        proxy_policy: Which proxy headers to trust; none by default.
        spool: Makes the file each upload is written to.
        trusted_hosts: The host names requests accept; the App's
            ``AppConfig.trusted_hosts`` when None (None there too: any).
        head_limits: The limits of the request head; the development
            server's by default.

    Returns:
        The ASGI application, for uvicorn, hypercorn or the dev server.

    Raises:
        TypeError: ``app`` is not an :class:`~sansio_http.App`.
    """
    if not isinstance(app, App):
        raise TypeError(
            f"to_asgi() mounts a sansio_http.App, not {type(app).__name__}: for a "
            "handler function, async def handler(request) -> Response, use asgi_app(handler)"
        )
    config = app.config
    pools = ThreadPools(
        config.threads, config.io_threads, config.stream_threads, config.mount_threads
    )
    app.thread_runner = pools.requests
    if app.file_system is None:
        # What the static routes stat files through; one given by the user stays.
        app.file_system = FILE_SYSTEM
    # A static route of a package finds its folder now: a package that cannot
    # be served is refused here, before the server takes a request.
    prepare_static(endpoint.view for endpoint in app.endpoints.values())

    handle: Handler = app.dispatch_async
    if proxy_policy is not None:
        policy = proxy_policy

        async def handle(request: ASGIRequest) -> Response:
            return await app.dispatch_async(policy.apply(request))

    async def handle_websocket(websocket: WebSocket) -> None:
        request = websocket.request
        if proxy_policy is not None:
            request = proxy_policy.apply(request)
        view, values = app.websocket_view(request)
        await view(websocket, **values)

    lifecycle = app.lifecycle
    inner_apps, lifespans = prepare_mounts(app, pools)

    async def startup(state: dict[str, Any]) -> None:
        # Mounted applications first: the App may rely on them.
        await start_mounts(inner_apps, lifespans)
        # NOTE: once per process, whatever the number of mounts: when another
        # mount (to_wsgi at import, say) ran the hooks, this one only shares
        # the state they filled with the server, which copies it into each
        # request's scope.
        await lifecycle.start_async(app.ensure_async, threading.Event())
        state.update(lifecycle.state)

    async def shutdown(state: dict[str, Any]) -> None:
        try:
            try:
                await lifecycle.stop_async(app.ensure_async)
            finally:
                await stop_mounts(inner_apps, lifespans)
        finally:
            pools.shutdown()

    served = asgi_app(
        handle,
        websocket=handle_websocket,
        on_startup=[startup],
        on_shutdown=[shutdown],
        max_content_length=app.config.max_content_length,
        form_limits=app.config.form_limits,
        spool=spool,
        trusted_hosts=app.config.trusted_hosts if trusted_hosts is None else trusted_hosts,
        head_limits=head_limits,
        threads=pools,
    )
    # A mounted ASGI or WSGI application is called before the App (see App.mount).
    trusted = app.config.trusted_hosts if trusted_hosts is None else trusted_hosts
    return with_mounts(app, served, lifespans, pools, trusted, proxy_policy)
