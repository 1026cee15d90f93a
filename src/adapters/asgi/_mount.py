"""Mounted applications under ASGI: other Apps, ASGI apps, and WSGI apps bridged.

``to_asgi`` serves the Apps mounted in an App as it serves the App itself
(its thread pool, its file system, their startup and shutdown hooks in the
lifespan), and calls a mounted foreign application itself:

- an ASGI application gets a copy of the scope whose ``root_path`` ends
  with the prefix and whose ``path`` is the full path (the ASGI
  specification puts ``root_path`` in front of ``path``); ``raw_path`` is
  left as the server received it, as the specification says. Its own
  lifespan runs inside the App's (:class:`MountedLifespan`).
- a WSGI application runs in the App's mounts pool (``AppConfig.mount_threads``),
  one thread for the whole exchange, as a WSGI server's worker would (:func:`call_wsgi`): its
  ``wsgi.input`` reads the body from ``receive()`` through the event loop a
  chunk at a time (the blocking reads of ``ASGIRequest``), and each chunk
  it yields, or passes to ``write()``, is sent as it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from types import TracebackType
from typing import Any, Final
from urllib.parse import unquote_to_bytes

from sansio_http.app import App
from sansio_http.app._mounts import Mount, find_foreign, foreign_mounts, mounted_apps, shown
from sansio_http.app._static import prepare_static
from sansio_http.messages._errors import InternalServerError
from sansio_http.messages._proxy import ProxyPolicy

from ._request import ASGIRequest
from ._scope import split_path
from ._threads import ThreadPool, ThreadPools
from ._types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "MountedLifespan",
    "call_wsgi",
    "prepare_mounts",
    "start_mounts",
    "stop_mounts",
    "with_mounts",
]

logger = logging.getLogger("sansio_http.asgi")

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]

# RFC 9113 §8.2.3 and RFC 6265 §5.4: the fields of a split Cookie header
# join with "; ", every other repeated field with ",".
_JOINERS: Final = {"cookie": "; "}

# The scope's headers that PEP 3333 keeps without the HTTP_ prefix.
_UNPREFIXED: Final = {"content-type": "CONTENT_TYPE", "content-length": "CONTENT_LENGTH"}


def prepare_mounts(app: App, pools: ThreadPools) -> tuple[list[App], list[MountedLifespan]]:
    """Set up the Apps and the ASGI applications mounted in ``app``.

    Each mounted App gets ``app``'s request pool (from ``pools``) and, unless
    it has its own, its file system; each mounted ASGI application a
    :class:`MountedLifespan`, once however many times it is mounted.

    Returns:
        The mounted Apps, innermost first, and the lifespans.
    """
    inner_apps = mounted_apps(app)
    for inner in inner_apps:
        inner.thread_runner = pools.requests
        if inner.file_system is None:
            inner.file_system = app.file_system
        prepare_static(endpoint.view for endpoint in inner.endpoints.values())
    lifespans: list[MountedLifespan] = []
    for prefix, mount in foreign_mounts(app):
        if mount.kind == "asgi" and all(
            each.application is not mount.application for each in lifespans
        ):
            lifespans.append(MountedLifespan(mount.application, shown(prefix)))
    return inner_apps, lifespans


async def start_mounts(inner_apps: list[App], lifespans: list[MountedLifespan]) -> None:
    """Start the mounted ASGI applications, then the mounted Apps, innermost first.

    Raises:
        Exception: What the first failing startup raised; the server then
            refuses to start.
    """
    for lifespan in lifespans:
        await lifespan.startup()
    for inner in inner_apps:
        await inner.lifecycle.start_async(inner.ensure_async, threading.Event())


async def stop_mounts(inner_apps: list[App], lifespans: list[MountedLifespan]) -> None:
    """Stop what :func:`start_mounts` started, in the reverse order; every one runs.

    Raises:
        Exception: The first error, once all were stopped.
    """
    error: BaseException | None = None
    for inner in reversed(inner_apps):
        try:
            await inner.lifecycle.stop_async(inner.ensure_async)
        except Exception as exc:
            error = error or exc
    for lifespan in reversed(lifespans):
        try:
            await lifespan.shutdown()
        except Exception as exc:
            error = error or exc
    if error is not None:
        raise error


def with_mounts(
    app: App,
    served: ASGIApp,
    lifespans: list[MountedLifespan],
    pools: ThreadPools,
    trusted_hosts: Collection[str] | None = None,
    proxy_policy: ProxyPolicy | None = None,
) -> ASGIApp:
    """Return ``served``, or an ASGI application that first diverts mounted paths.

    ``trusted_hosts`` are those each request gets, and ``proxy_policy`` what
    the App reads its host through: where an App has rules with a host, its
    root mount takes only what they do not, on a host it trusts.

    PERF: an App without foreign mounts is served as it is.
    """
    if not foreign_mounts(app):
        return served
    states = {id(each.application): each.state for each in lifespans}

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http" or kind == "websocket":
            root_path = scope.get("root_path") or ""
            path, root_path = split_path(scope["path"], root_path)

            def request() -> ASGIRequest:
                # Only for its host, as the App reads it: the body is left to
                # whoever answers.
                made = ASGIRequest(scope, receive, trusted_hosts=trusted_hosts)
                return made if proxy_policy is None else proxy_policy.apply(made)

            method = scope.get("method") or "GET"
            found = find_foreign(app, path, method, kind == "websocket", request)
            if found is not None:
                mount, prefix = found
                child = dict(scope)
                child["root_path"] = root_path + prefix
                child["path"] = root_path + path
                if mount.kind == "asgi":
                    child["state"] = dict(states[id(mount.application)])
                    await mount.application(child, receive, send)
                    return
                if kind == "http":
                    await call_wsgi(mount, child, receive, send, pools.mounts)
                    return
                # A websocket for a WSGI application: the App refuses it.
        await served(scope, receive, send)

    return application


class MountedLifespan:
    """Run the lifespan protocol of one mounted ASGI application.

    The App's lifespan calls :meth:`startup` and :meth:`shutdown`; between
    them the application's lifespan task waits on its own queue, as under a
    server. An application that does not speak the protocol (it raises
    before answering, as ASGI allows) is left alone. Its lifespan state is
    its own dict; each of its requests gets a shallow copy, as a server
    gives.

    Args:
        application: The ASGI application.
        prefix: Where it is mounted, for messages.
    """

    def __init__(self, application: ASGIApp, prefix: str) -> None:
        self.application = application
        self.prefix = prefix
        #: The application's lifespan state.
        self.state: dict[str, Any] = {}
        self._task: asyncio.Task[None] | None = None
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._outbox: asyncio.Queue[Message] = asyncio.Queue()

    async def startup(self, state: object = None) -> None:
        """Send ``lifespan.startup`` and wait for the answer.

        Raises:
            RuntimeError: The application answered ``lifespan.startup.failed``.
        """
        self._inbox, self._outbox = asyncio.Queue(), asyncio.Queue()
        scope = {
            "type": "lifespan",
            "asgi": {"version": "3.0", "spec_version": "2.0"},
            "state": self.state,
        }
        self._task = asyncio.ensure_future(self._run(scope))
        await self._inbox.put({"type": "lifespan.startup"})
        answer = await self._answer()
        if answer is None:
            self._task = None
        elif answer["type"] == "lifespan.startup.failed":
            raise RuntimeError(
                f"the application mounted at {self.prefix!r} failed to start: "
                f"{answer.get('message', '')}"
            )

    async def shutdown(self, state: object = None) -> None:
        """Send ``lifespan.shutdown`` and wait for the answer and the task's end.

        Raises:
            RuntimeError: The application answered ``lifespan.shutdown.failed``.
        """
        task, self._task = self._task, None
        if task is None:
            return
        await self._inbox.put({"type": "lifespan.shutdown"})
        answer = await self._answer(task)
        await asyncio.wait((task,))
        if answer is not None and answer["type"] == "lifespan.shutdown.failed":
            raise RuntimeError(
                f"the application mounted at {self.prefix!r} failed to shut down: "
                f"{answer.get('message', '')}"
            )

    async def _run(self, scope: Scope) -> None:
        try:
            await self.application(scope, self._inbox.get, self._outbox.put)
        except Exception:
            # ASGI: an application that raises on the lifespan scope does
            # not support it; the server carries on without its events.
            logger.debug("the application mounted at %r has no lifespan", self.prefix)

    async def _answer(self, task: asyncio.Task[None] | None = None) -> Message | None:
        """Return the application's next message, or None if its task ended first."""
        running = task or self._task
        reply = asyncio.ensure_future(self._outbox.get())
        if running is None:
            return await reply
        await asyncio.wait((reply, running), return_when=asyncio.FIRST_COMPLETED)
        if reply.done():
            return reply.result()
        reply.cancel()
        return None


async def call_wsgi(
    mount: Mount, scope: Scope, receive: Receive, send: Send, pool: ThreadPool
) -> None:
    """Answer one HTTP request with a mounted WSGI application.

    The application runs in a thread of ``pool`` for the whole exchange
    (the call, the iteration, ``close()``), in one thread and one context,
    so that its thread-locals and context variables hold from the first
    byte to the last. An exception before the response head is logged and
    answered with a 500; after the head it propagates, so that the server
    closes the connection. When the client goes away, the application's
    iterable is closed and nothing propagates.

    Args:
        mount: The mount of the WSGI application.
        scope: The request's scope, its ``root_path`` ending with the prefix.
        receive: The server's ``receive``.
        send: The server's ``send``.
        pool: The App's mounts pool: each exchange holds one of its
            threads, so a slow upload to the mounted application cannot
            take the threads of the App's own views.
    """
    request = ASGIRequest(scope, receive)
    exchange = _Exchange(request, send, head=request.method == "HEAD")
    environ = wsgi_environ(scope, request, _BodyInput(request))
    listener = asyncio.ensure_future(request._receiver.wait_disconnect())
    try:
        await pool(exchange.run, mount.application, environ)
    except _Gone:
        return
    except Exception:
        if request._receiver.disconnected:
            logger.info("error after the client disconnected", exc_info=True)
            return
        if exchange.started or request.propagate_exceptions:
            raise
        logger.exception("error in the WSGI application mounted at %r", shown(mount.prefix))
        response = InternalServerError().to_response(request)
        with contextlib.suppress(OSError):
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status,
                    "headers": response.raw_headers(),
                }
            )
            body = b"" if exchange.head else response.body
            await send({"type": "http.response.body", "body": body, "more_body": False})
    finally:
        listener.cancel()
        await request.close()


def wsgi_environ(scope: Scope, request: ASGIRequest, body: _BodyInput) -> dict[str, Any]:
    """Return the PEP 3333 environ of an ``http`` scope.

    ``SCRIPT_NAME`` is the scope's ``root_path`` and ``PATH_INFO`` the path
    below it, each the UTF-8 bytes of the decoded text as latin-1
    characters ("bytes as str"); header fields repeated in the scope are
    joined as a WSGI server joins them.
    """
    scheme = scope.get("scheme") or "http"
    # PEP 3333 requires both; a server without an address (a Unix socket,
    # a test client) gets the usual stand-in.
    host, port = request.server or ("localhost", None)
    script_name = _native(request.root_path)
    path_info = _native(request.path)
    raw_path = scope.get("raw_path")
    if raw_path:
        # The bytes as sent, percent-decoded: what a WSGI server puts in
        # PATH_INFO, even where they are not UTF-8.
        whole = unquote_to_bytes(raw_path).decode("latin-1")
        if whole.startswith(script_name) and whole[len(script_name) :][:1] == "/":
            path_info = whole[len(script_name) :]
    environ: dict[str, Any] = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": script_name,
        "PATH_INFO": path_info,
        "QUERY_STRING": request.query_string.decode("latin-1"),
        "SERVER_PROTOCOL": "HTTP/" + scope.get("http_version", "1.1"),
        "SERVER_NAME": str(host),
        "SERVER_PORT": str(port) if port is not None else ("443" if scheme == "https" else "80"),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scheme,
        "wsgi.input": body,
        # The input ends where the ASGI body ends (the last receive()), chunked
        # or not: an application may read to its end, as under gunicorn.
        # Werkzeug reads a body without Content-Length only when this is set.
        "wsgi.input_terminated": True,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"] = str(client[0])
        environ["REMOTE_PORT"] = str(client[1])
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin-1").lower()
        if "_" in name:
            # SECURITY: HTTP_X_USER would be the key of both X-User and
            # X_User; a proxy that checks one spelling lets the other
            # through. gunicorn and nginx drop such fields too.
            continue
        key = _UNPREFIXED.get(name) or "HTTP_" + name.upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if key in environ:
            value = environ[key] + _JOINERS.get(name, ",") + value
        environ[key] = value
    return environ


def _native(text: str) -> str:
    """Return decoded path text as PEP 3333's "bytes as str"."""
    try:
        # A server's undecodable bytes come back as they were sent.
        return text.encode("utf-8", "surrogateescape").decode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("latin-1")


class _Gone(Exception):
    """The client went away while the WSGI application was answering."""


class _Exchange:
    """One WSGI call, run in a worker thread, its sends handed to the loop."""

    def __init__(self, request: ASGIRequest, send: Send, *, head: bool) -> None:
        self.request = request
        self.send = send
        self.head = head
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        #: Whether the response head was sent.
        self.started = False

    def start_response(
        self,
        status: str,
        headers: list[tuple[str, str]],
        exc_info: ExcInfo | None = None,
    ) -> Callable[[bytes], None]:
        """PEP 3333's ``start_response``: keep the head until the first body bytes."""
        if exc_info is not None:
            try:
                if self.started:
                    # PEP 3333: too late to change the head; the error goes on.
                    raise exc_info[1].with_traceback(exc_info[2])
            finally:
                exc_info = None  # PEP 3333: no frame <-> traceback cycle
        elif self.status is not None:
            raise RuntimeError(
                "start_response() was called a second time without exc_info (PEP 3333)"
            )
        code = status[:3]
        if not (code.isascii() and code.isdigit() and status[3:4] in ("", " ")):
            raise ValueError(f"the WSGI status {status!r} does not start with three digits")
        self.status = int(code)
        self.headers = [
            (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers
        ]
        return self.write

    def write(self, data: bytes) -> None:
        """PEP 3333's ``write()``: send ``data`` now."""
        if self.status is None:
            raise RuntimeError("write() was called before start_response() (PEP 3333)")
        if data:
            self._deliver(data, more=True)

    def run(self, application: Any, environ: dict[str, Any]) -> None:
        """Call the application, send what it yields, close its iterable once."""
        result: Iterable[bytes] = application(environ, self.start_response)
        try:
            for chunk in result:
                if not chunk:
                    continue
                if self.status is None:
                    raise RuntimeError(
                        "the WSGI application returned a body before calling start_response()"
                    )
                self._deliver(chunk, more=True)
                if self.head:
                    break  # the head is sent; HEAD sends no body (RFC 9110 §9.3.2)
            if self.status is None:
                raise RuntimeError("the WSGI application never called start_response()")
            self._deliver(b"", more=False)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()

    def _deliver(self, data: bytes, *, more: bool) -> None:
        """Send the head if not yet sent, then ``data``; wait until sent."""
        messages: list[Message] = []
        if not self.started:
            messages.append(
                {"type": "http.response.start", "status": self.status, "headers": self.headers}
            )
        if not self.head or not more:
            messages.append(
                {
                    "type": "http.response.body",
                    "body": b"" if self.head else data,
                    "more_body": more,
                }
            )
        if self.request._receiver.disconnected:
            raise _Gone
        try:
            self.request._bridge(_send_all(self.send, messages))
        except OSError as exc:
            raise _Gone from exc
        self.started = True


async def _send_all(send: Send, messages: list[Message]) -> None:
    for message in messages:
        await send(message)


class _BodyInput:
    """``wsgi.input``: the request body read through the event loop as asked.

    Each read waits for the next chunk of ``receive()`` only when the bytes
    held do not cover it, so at most one chunk more than asked for is held.
    """

    def __init__(self, request: ASGIRequest) -> None:
        self._request = request
        self._chunks: Iterator[bytes] | None = None
        self._held = bytearray()
        self._ended = False

    def _more(self) -> bool:
        """Take the next chunk into ``_held``; return False at the end."""
        if self._ended:
            return False
        if self._chunks is None:
            self._chunks = self._request.iter_data()
        chunk = next(self._chunks, None)
        if chunk is None:
            self._ended = True
            return False
        self._held += chunk
        return True

    def _take(self, size: int) -> bytes:
        data = bytes(self._held[:size])
        del self._held[:size]
        return data

    def read(self, size: int | None = -1) -> bytes:
        """Read ``size`` bytes, or to the end when ``size`` is negative or None."""
        if size is None or size < 0:
            while self._more():
                pass
            return self._take(len(self._held))
        while len(self._held) < size and self._more():
            pass
        return self._take(size)

    def readline(self, size: int | None = -1) -> bytes:
        """Read one line, up to and with its newline, of at most ``size`` bytes."""
        limit = None if size is None or size < 0 else size
        while True:
            end = self._held.find(b"\n")
            if end >= 0 and (limit is None or end < limit):
                return self._take(end + 1)
            if limit is not None and len(self._held) >= limit:
                return self._take(limit)
            if not self._more():
                return self._take(len(self._held))

    def readlines(self, hint: int = -1) -> list[bytes]:
        """Read lines until the end, or until ``hint`` bytes were read."""
        lines: list[bytes] = []
        total = 0
        while line := self.readline():
            lines.append(line)
            total += len(line)
            if 0 < hint <= total:
                break
        return lines

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line
