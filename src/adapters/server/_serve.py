"""The server itself: listening, the connection cap, signals and shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import inspect
import ipaddress
import logging
import os
import signal
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import quote

import h11

from sansio_http.app import App
from sansio_http.messages._target import Target
from sansio_http.server._asgi import ASGIApp, ASGIRunner
from sansio_http.server._config import Config
from sansio_http.server._connection import HTTPConnection
from sansio_http.server._date import date_header
from sansio_http.server._exchange import Exchange
from sansio_http.server._log import setup_logging
from sansio_http.server._reload import RELOADED
from sansio_http.server._websocket import AVAILABLE as websocket_available
from sansio_http.server._websocket import WebSocketSession
from sansio_http.server._wsgi import WSGIApp, WSGIRunner

log = logging.getLogger("sansio_http.server")
access_log = logging.getLogger("sansio_http.server.access")


class ListenError(OSError):
    """The server could not listen on its address; the message says why."""


def _listen_problem(config: Config, exc: OSError) -> str:
    address = f"{config.host}:{config.port}"
    if exc.errno == errno.EADDRINUSE:
        return f"cannot listen on {address}: the port is in use; pick another with --port"
    # asyncio's message repeats the address; the system's own is shorter.
    reason = os.strerror(exc.errno) if exc.errno and exc.errno > 0 else str(exc)
    return f"cannot listen on {address}: {reason}"


def detect_interface(app: Any) -> str:
    """Return ``"asgi"`` or ``"wsgi"`` for an application object.

    A :class:`~sansio_http.App` is served as ASGI (its async views then run
    on the server's loop); otherwise a coroutine function (or an object whose
    ``__call__`` is one) is ASGI and anything else WSGI.
    """
    if isinstance(app, App):
        return "asgi"
    call = app if inspect.isfunction(app) or inspect.ismethod(app) else type(app).__call__
    return "asgi" if inspect.iscoroutinefunction(call) else "wsgi"


def is_loopback(host: str) -> bool:
    """Return whether ``host`` names a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _quote_target(target: bytes) -> str:
    # SECURITY: a request target may hold control bytes or terminal escapes;
    # log it percent-quoted so it can never forge a log line.
    return quote(target.decode("latin-1"), safe="/?&=%:;@!$'()*+,~-._[]")


class Server:
    """Serve one WSGI or ASGI application over HTTP/1.1 on h11."""

    def __init__(self, app: Any, config: Config | None = None) -> None:
        self.config = config or Config()
        if self.config.debug and not is_loopback(self.config.host):
            raise ValueError("debug mode shows tracebacks; it is only allowed on loopback")
        interface = self.config.interface
        if interface == "auto":
            interface = "asgi" if detect_interface(app) == "asgi" else "wsgi"
        max_content_length: int | None = None
        if isinstance(app, App):
            max_content_length = app.config.max_content_length
            if interface == "asgi":
                from sansio_http.asgi import to_asgi

                app = to_asgi(app)
            else:
                from sansio_http.wsgi import to_wsgi

                app = to_wsgi(app)
        self.interface = interface
        self.asgi: ASGIRunner | None = None
        self.wsgi: WSGIRunner | None = None
        if interface == "asgi":
            self.asgi = ASGIRunner(cast(ASGIApp, app), self.config)
        else:
            self.wsgi = WSGIRunner(
                cast(WSGIApp, app), self.config, max_content_length=max_content_length
            )
        self.connections: set[HTTPConnection] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.stopping = asyncio.Event()
        self.port = self.config.port
        self._server: asyncio.base_events.Server | None = None

    async def _run_exchange(self, exchange: Exchange) -> None:
        runner: Callable[[Exchange], Any] = self.asgi or cast(WSGIRunner, self.wsgi)
        try:
            await runner(exchange)
        finally:
            if self.config.access_log:
                request = exchange.request
                access_log.info(
                    '%s - "%s %s HTTP/%s" %d %d',
                    exchange.client[0] if exchange.client else "-",
                    request.method.decode("ascii", "replace"),
                    _quote_target(request.target),
                    request.http_version.decode("ascii", "replace"),
                    exchange.status,
                    exchange.sent_bytes,
                )

    async def _upgrade(
        self, connection: HTTPConnection, request: h11.Request, target: Target
    ) -> None:
        if self.asgi is None:
            await connection.refuse(501, "websockets need an ASGI application")
            return
        if not websocket_available:
            await connection.refuse(501, "websockets need sansio-http[server]")
            return
        session = WebSocketSession(self.asgi.app, connection, request, target, self.asgi.state)
        await session.run()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self.connections) >= self.config.max_connections or self.stopping.is_set():
            writer.write(
                b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n"
                b"connection: close\r\ndate: " + date_header() + b"\r\n\r\n"
            )
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            writer.close()
            return
        connection = HTTPConnection(reader, writer, self.config, self._run_exchange, self._upgrade)
        self.connections.add(connection)
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(cast("asyncio.Task[None]", task))
        try:
            await connection.serve()
        finally:
            self.connections.discard(connection)
            if task is not None:
                self.tasks.discard(cast("asyncio.Task[None]", task))

    async def start(self) -> None:
        """Bind the socket, run the lifespan startup, then start accepting.

        Raises:
            ListenError: The address cannot be bound (a port in use, say);
                the lifespan startup has not run.
        """
        config = self.config
        try:
            self._server = await asyncio.start_server(
                self._handle,
                config.host,
                config.port,
                limit=config.max_header_size,
                backlog=config.backlog,
                start_serving=False,
            )
        except OSError as exc:
            error = ListenError(_listen_problem(config, exc))
            error.errno = exc.errno
            raise error from exc
        sock = self._server.sockets[0].getsockname()
        self.port = int(sock[1])
        if self.asgi is not None:
            try:
                await self.asgi.startup()
            except BaseException:
                self._server.close()
                await self._server.wait_closed()
                raise
        await self._server.start_serving()

    async def stop(self) -> None:
        """Stop listening, let in-flight requests finish, then shut down."""
        self.stopping.set()
        if self._server is not None:
            self._server.close()
        # Idle keep-alive connections can go at once; busy ones finish.
        for connection in list(self.connections):
            if not connection.busy:
                connection.writer.close()
        pending = [task for task in self.tasks if not task.done()]
        if pending:
            _, late = await asyncio.wait(pending, timeout=self.config.shutdown_timeout)
            for task in late:
                task.cancel()
        if self.asgi is not None:
            await self.asgi.shutdown()
        if self.wsgi is not None:
            self.wsgi.close()

    async def serve(self, ready: Callable[[Server], None] | None = None) -> None:
        """Serve until SIGINT or SIGTERM, then shut down gracefully."""
        await self.start()
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        # Before ready() logs "press Ctrl+C to stop": a signal sent as soon as
        # that line shows must stop the server, not find the default action
        # (a traceback, or no shutdown at all) or, when the server was started
        # with SIGINT ignored (a background job), be lost.
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        if ready is not None:
            ready(self)
        try:
            await stop.wait()
        finally:
            await self.stop()


def run(
    app: Any,
    config: Config | None = None,
    *,
    name: str | None = None,
    **options: Any,
) -> None:
    """Serve ``app`` until interrupted.

    Logs one line when it is ready: the application, the interface, the
    address and the mode.

    Args:
        app: A WSGI callable, an ASGI callable, or an :class:`~sansio_http.App`.
        config: The settings; keyword ``options`` override its fields.
        name: How the banner names the application, such as
            ``"mypackage.web:app"``; by default its module and name.
        **options: Fields of :class:`Config`, such as ``host`` and ``port``.

    Raises:
        ListenError: The address cannot be bound.
        ValueError: The configuration is refused (debug mode off loopback).
    """
    config = dataclasses.replace(config or Config(), **options)
    server = Server(app, config)
    label = name or app_name(app)
    setup_logging()

    # The --reload watcher marks the server processes it starts.
    reloading = os.environ.get(RELOADED) == "1"

    def ready(server: Server) -> None:
        log.info("%s", banner(label, server, reload=reloading))

    asyncio.run(server.serve(ready))


def banner(name: str, server: Server, *, reload: bool = False) -> str:
    """Return the line the server logs when it starts listening.

    Args:
        name: The application, as ``module:attr``.
        server: The server, listening.
        reload: Whether a reloader restarts it on changes.

    Returns:
        For example ``Serving app:app (WSGI) on http://127.0.0.1:8000,
        debug off, reload on; press Ctrl+C to stop``.
    """
    host = server.config.host
    if ":" in host:
        host = f"[{host}]"
    return (
        f"Serving {name} ({server.interface.upper()}) on http://{host}:{server.port}, "
        f"debug {'on' if server.config.debug else 'off'}, reload {'on' if reload else 'off'}; "
        "press Ctrl+C to stop"
    )


def app_name(app: Any) -> str:
    """Return ``module:name`` for an application object, as well as it can."""
    target = app if hasattr(app, "__qualname__") else type(app)
    module = getattr(target, "__module__", None) or "?"
    return f"{module}:{target.__qualname__}"
