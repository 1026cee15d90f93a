"""WSGI callables: a plain request handler (and later the App) served by WSGI.

:func:`wsgi_app` wraps ``def handler(request) -> Response`` (or an
``async def`` one, run on the worker thread's kept event loop) for framework
authors who bring their own routing. Every callable built here answers the
same way: an :class:`~sansio_http.HTTPError` becomes its own response (or
what the ``error_renderer`` makes of it), any other exception a 500 whose
traceback goes to the ``sansio_http.wsgi`` logger (never to the client), and
the request's files are released when the server closes the response. A
test client that sets the environ key :data:`RAISE_EXCEPTIONS` gets that
exception raised instead of the 500.
"""

from __future__ import annotations

import atexit
import functools
import inspect
import sys
import threading
from collections.abc import Callable, Collection, Coroutine, Iterable
from typing import Any, cast

from sansio_http.app import App
from sansio_http.app._responses import RESPONSE_CLASSES, not_a_response
from sansio_http.app._static import prepare_static
from sansio_http.bodies._body import with_settings
from sansio_http.bodies._formdata import FormLimits, SpoolFile
from sansio_http.messages._errors import HTTPError, HTTPException, InternalServerError
from sansio_http.messages._head import DEFAULT_HEAD_LIMITS, HeadLimits
from sansio_http.messages._proxy import ProxyPolicy
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

from ._environ import check_environ
from ._lifespan import hold
from ._mount import prepare_mounts, stop_mounts, with_mounts
from ._pull import logger
from ._request import WSGIRequest
from ._response import RAISE_EXCEPTIONS, StartResponse, send_response
from ._runner import CoroutineRunner
from ._static import FILE_SYSTEM

__all__ = [
    "RAISE_EXCEPTIONS",
    "AsyncHandler",
    "ErrorRenderer",
    "Handler",
    "WSGIApplication",
    "respond",
    "to_wsgi",
    "wsgi_app",
]

#: A PEP 3333 application callable.
WSGIApplication = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

#: A request handler: ``def handler(request) -> Response``.
Handler = Callable[[WSGIRequest], Response]

#: A request handler written ``async def handler(request) -> Response``.
AsyncHandler = Callable[[WSGIRequest], Coroutine[Any, Any, Response]]

#: Makes the response for an error: ``def render(request, exception) -> Response``.
ErrorRenderer = Callable[[Request, Exception], Response]


def respond(
    request: WSGIRequest,
    start_response: StartResponse,
    handler: Callable[[WSGIRequest], Response],
    head_limits: HeadLimits = DEFAULT_HEAD_LIMITS,
    error_renderer: ErrorRenderer | None = None,
) -> Iterable[bytes]:
    """Answer ``request`` with what ``handler`` returns or raises.

    The one request cycle of every WSGI callable of this package. What
    would be answered with a 500 is raised instead when the environ holds
    :data:`RAISE_EXCEPTIONS` (a test client asks for it).

    Args:
        request: The request, built from the environ.
        start_response: The server's ``start_response``.
        handler: Called once with the request; returns the response.
        head_limits: The limits of the request head; a head past them, or
            one the core's checks refuse, is answered without ``handler``.
        error_renderer: Makes the response for an
            :class:`~sansio_http.HTTPError` or another exception from
            ``handler``; None for the error's own response and a 500.

    Returns:
        The WSGI iterable; the request is closed when the server is done.
    """
    try:
        try:
            response = check_environ(request.environ, head_limits, request) or handler(request)
            if response.__class__ not in RESPONSE_CLASSES and not isinstance(response, Response):
                # Refused here, naming the handler, not as an AttributeError when sent.
                raise not_a_response(handler, response)
        except HTTPException as exc:
            # A routing answer (308, 204) is no error: never the renderer's.
            if error_renderer is None or not isinstance(exc, HTTPError):
                response = exc.to_response(request)
            else:
                response = _render(error_renderer, request, exc)
        except Exception as exc:
            if request.propagate_exceptions:
                raise
            return _answer_crash(request, start_response, "Exception on %s %s", error_renderer, exc)
        try:
            return send_response(response, request, start_response)
        except Exception:
            if request.propagate_exceptions:
                raise
            return _answer_crash(request, start_response, "Exception sending the response to %s %s")
    except BaseException:
        # No iterable reaches the server, so nothing else would close it.
        request.close()
        raise


def _render(renderer: ErrorRenderer, request: WSGIRequest, exc: Exception) -> Response:
    """Return what ``renderer`` makes of ``exc``, or the default answer if it fails."""
    try:
        response = renderer(request, exc)
        if not isinstance(response, Response):
            raise not_a_response(renderer, response)
    except Exception:
        logger.exception("error in the error renderer for %s %s", request.method, request.full_path)
        error = exc if isinstance(exc, HTTPError) else InternalServerError()
        return error.to_response(request)
    return response


def _answer_crash(
    request: WSGIRequest,
    start_response: StartResponse,
    message: str,
    error_renderer: ErrorRenderer | None = None,
    exc: Exception | None = None,
) -> Iterable[bytes]:
    """Log the exception being handled and answer it with a 500 (PEP 3333)."""
    exc_info = sys.exc_info()
    try:
        logger.exception(message, request.method, request.full_path)
        if error_renderer is None or exc is None:
            response = InternalServerError().to_response(request)
        else:
            response = _render(error_renderer, request, exc)
        # A server that already sent headers re-raises exc_info here.
        return send_response(response, request, start_response, exc_info)
    finally:
        # Break the frame <-> traceback cycle that sys.exc_info() creates.
        del exc_info


def wsgi_app(
    handler: Handler | AsyncHandler,
    *,
    request_class: type[WSGIRequest] = WSGIRequest,
    max_content_length: int | None = None,
    form_limits: FormLimits | None = None,
    spool: Callable[[], SpoolFile] | None = None,
    trusted_hosts: Collection[str] | None = None,
    head_limits: HeadLimits | None = None,
    error_renderer: ErrorRenderer | None = None,
) -> WSGIApplication:
    """Turn ``def handler(request) -> Response`` into a WSGI application.

    An ``async def`` handler works too: each call runs to completion on the
    event loop that the worker thread keeps (a :class:`CoroutineRunner`
    of its own), with the context copied. Its awaited body reads read
    ``wsgi.input``. Whether the handler is a coroutine function is decided
    here, once: a ``def`` handler pays nothing for it.

    Args:
        handler: Called with a :class:`WSGIRequest` for each request; it
            returns a :class:`~sansio_http.Response`. An
            :class:`~sansio_http.HTTPException` it raises (an error, or a
            routing answer such as the router's 308) becomes its own
            response; any other exception (and a ``TypeError`` naming it
            when it returns anything but a Response) a 500, logged with its
            traceback on the ``sansio_http.wsgi`` logger.
        request_class: The request class to build, a :class:`WSGIRequest`
            subclass.
        max_content_length: Passed on to each request.
        form_limits: Passed on to each request.
        spool: Passed on to each request.
        trusted_hosts: Passed on to each request.
        head_limits: The limits of the request head (:func:`respond`); the
            development server's by default.
        error_renderer: ``def render(request, exception) -> Response``,
            called for an :class:`~sansio_http.HTTPError` that escapes the
            handler and for any other exception but a routing answer
            (:class:`~sansio_http.routing.RoutingAnswer`, always its own
            response) (still logged first);
            None answers with the error's own response and a 500. When the
            renderer raises (or returns no Response), that is logged and
            the default answer is sent.

    Returns:
        A PEP 3333 application, ready for gunicorn or any WSGI server.

    Raises:
        TypeError: ``handler`` is an :class:`~sansio_http.App` (mount it with
            :func:`to_wsgi`).

    Example:
        >>> from sansio_http import Response
        >>> def hello(request):
        ...     return Response(f"Hello, {request.args.get('name', 'world')}!")
        >>> application = wsgi_app(hello)
    """
    if isinstance(handler, App):
        raise TypeError("wsgi_app() takes a handler function; mount an App with to_wsgi(app)")
    call: Handler
    if inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004 (the method itself is inspected)
    ):
        call = _on_kept_loop(cast(AsyncHandler, handler))
    else:
        call = cast(Handler, handler)
    request_class = with_settings(
        request_class,
        {
            "max_content_length": max_content_length,
            "form_limits": form_limits,
            "_spool_factory": None if spool is None else staticmethod(spool),
            "trusted_hosts": trusted_hosts,
        },
    )
    limits = DEFAULT_HEAD_LIMITS if head_limits is None else head_limits

    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        request = request_class(environ)
        return respond(request, start_response, call, limits, error_renderer)

    application.__name__ = getattr(handler, "__name__", application.__name__)
    application.__doc__ = getattr(handler, "__doc__", None)
    return application


def _on_kept_loop(handler: AsyncHandler) -> Handler:
    """Return a ``def`` handler that runs ``handler`` on the thread's kept loop."""
    runner = CoroutineRunner()
    atexit.register(runner.close)

    @functools.wraps(handler)
    def call(request: WSGIRequest) -> Response:
        return runner(handler(request))  # type: ignore[no-any-return]

    return call


def to_wsgi(
    app: App,
    *,
    proxy_policy: ProxyPolicy | None = None,
    spool: Callable[[], SpoolFile] | None = None,
    trusted_hosts: Collection[str] | None = None,
    head_limits: HeadLimits | None = None,
) -> WSGIApplication:
    """Mount an :class:`~sansio_http.App` as a PEP 3333 application.

    Plain views, hooks and error handlers are called directly in the worker
    thread; coroutine functions run to completion on an event loop kept per
    worker thread (see ``App.coroutine_runner``), with the context copied so
    ``current_request`` works in them. The App's lifespan is entered and its
    startup hooks run now, and its shutdown hooks run and the lifespan exits
    when the interpreter exits, each once per process however many times
    the App is mounted (see ``App.on_startup``); each request's
    ``request.state`` starts with what they stored. An async lifespan is held
    open by one task on an event loop of its own thread. Apps mounted
    in it (``App.mount``) share its runner and start before it; a mounted
    WSGI application is called directly.

    Args:
        app: The App; this installs its ``coroutine_runner``.
        proxy_policy: Which proxy headers to trust; none by default.
        spool: Makes the file each upload is written to.
        trusted_hosts: The host names requests accept; the App's
            ``AppConfig.trusted_hosts`` when None (None there too: any).
        head_limits: The limits of the request head; the development
            server's by default.

    Returns:
        A PEP 3333 application, ready for gunicorn or any WSGI server.

    Raises:
        TypeError: ``app`` is not an :class:`~sansio_http.App`, or an ASGI
            application is mounted in it (serve it with ``to_asgi``).
    """
    if not isinstance(app, App):
        raise TypeError(
            f"to_wsgi() mounts a sansio_http.App, not {type(app).__name__}: for a "
            "handler function, def handler(request) -> Response, use wsgi_app(handler)"
        )
    runner = CoroutineRunner()
    app.coroutine_runner = runner
    if app.file_system is None:
        # What the static routes stat files through; one given by the user stays.
        app.file_system = FILE_SYSTEM
    # A static route of a package finds its folder now: a package that cannot
    # be served is refused here, before the server takes a request.
    prepare_static(endpoint.view for endpoint in app.endpoints.values())
    # Mounted Apps get the runner and start first: the App may rely on them.
    inner_apps = prepare_mounts(app, runner)
    lifecycle = app.lifecycle
    # NOTE: once per process, whatever the number of mounts: an App mounted
    # with to_asgi too, or again, shares this startup and its state.
    lifecycle.start_sync(app.ensure_sync, threading.Event(), hold)

    def shutdown() -> None:
        try:
            try:
                lifecycle.stop_sync(app.ensure_sync)
            finally:
                stop_mounts(inner_apps)
        finally:
            runner.close()

    atexit.register(shutdown)

    dispatch: Callable[[WSGIRequest], Response] = app.dispatch_sync
    if proxy_policy is not None:
        policy = proxy_policy

        def dispatch(request: WSGIRequest) -> Response:
            return app.dispatch_sync(policy.apply(request))

    handle: Callable[[WSGIRequest], Response] = dispatch
    if app.startup_funcs or lifecycle.lifespan is not None:
        # What the lifespan and the startup hooks stored seeds each request's
        # state, as the ASGI lifespan state does. PERF: an App without them
        # pays nothing.
        state = lifecycle.state

        def handle(request: WSGIRequest) -> Response:
            if state:
                request.state.update(state)
            return dispatch(request)

    served = wsgi_app(
        handle,
        max_content_length=app.config.max_content_length,
        form_limits=app.config.form_limits,
        spool=spool,
        trusted_hosts=app.config.trusted_hosts if trusted_hosts is None else trusted_hosts,
        head_limits=head_limits,
    )
    # A mounted WSGI application is called before the App (see App.mount).
    trusted = app.config.trusted_hosts if trusted_hosts is None else trusted_hosts
    return with_mounts(app, served, trusted, proxy_policy)
