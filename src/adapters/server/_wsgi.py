"""Run a WSGI application on the development server's thread pool.

The application runs in a worker thread; every read of ``wsgi.input`` and
every write of the response goes back to the event loop and waits there, so
a slow client slows only its own thread (back-pressure), never the loop.
A body of at most ``max_prefetch_size`` bytes is read on the loop before a
thread is taken, so a slow small upload holds no thread at all.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any
from urllib.parse import unquote_to_bytes

from sansio_http.server._config import Config
from sansio_http.server._debug import error_response, shows_traceback
from sansio_http.server._exchange import BodyError, Exchange, log

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]
StartResponse = Callable[..., Callable[[bytes], object]]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class Prefetched:
    """The start of a request body, read before the application runs.

    Attributes:
        data: The bytes read.
        complete: Whether ``data`` is the whole body.
        error: Why reading stopped early, if it failed; the application's
            read raises it once it has consumed ``data``.
    """

    __slots__ = ("complete", "data", "error")

    def __init__(self) -> None:
        self.data = bytearray()
        self.complete = False
        self.error: BodyError | None = None


async def prefetch(exchange: Exchange, limit: int) -> Prefetched:
    """Read up to about ``limit`` bytes of the body on the event loop.

    Nothing is read when the client waits for ``100 Continue``: the
    application decides whether it wants the body (RFC 9110 §10.1.1). Nor
    when the body announces more than ``limit`` bytes: its reading would
    take a thread anyway, and the application may refuse it from its head
    (a 413) at once instead of after the client sent ``limit`` bytes, or
    after the body timeout when the client sends nothing.
    """
    head = Prefetched()
    length = exchange.body_length
    if limit <= 0 or exchange.expects_continue or (length is not None and length > limit):
        return head
    try:
        while len(head.data) < limit:
            chunk = await exchange.receive()
            if chunk is None:
                head.complete = True
                break
            head.data += chunk
    except BodyError as exc:
        head.error = exc
    return head


class InputStream(io.RawIOBase):
    """``wsgi.input``: the request body, read from the event loop on demand."""

    def __init__(
        self,
        exchange: Exchange,
        loop: asyncio.AbstractEventLoop,
        head: Prefetched | None = None,
    ) -> None:
        super().__init__()
        self._exchange = exchange
        self._loop = loop
        head = head or Prefetched()
        self._buffer = head.data
        self._eof = head.complete
        self._error = head.error

    def readable(self) -> bool:
        """Return True: the body can be read."""
        return True

    def _fill(self) -> bool:
        if self._eof:
            return False
        try:
            if self._error is not None:
                raise self._error
            future = asyncio.run_coroutine_threadsafe(self._exchange.receive(), self._loop)
            chunk = future.result()
        except BodyError as exc:
            self._eof = True
            raise OSError(f"request body incomplete: {exc}") from exc
        if chunk is None:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    def read(self, size: int | None = -1) -> bytes:
        """Read up to ``size`` bytes, or everything when it is negative."""
        if size is None or size < 0:
            while self._fill():
                pass
            size = len(self._buffer)
        while len(self._buffer) < size and self._fill():
            pass
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def readinto(self, buffer: Any) -> int:
        """Read into a writable buffer; return the byte count."""
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readline(self, size: int | None = -1) -> bytes:
        """Read one line, of at most ``size`` bytes when it is given."""
        limit = -1 if size is None else size
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 and (limit < 0 or end < limit):
                return self.read(end + 1)
            if 0 <= limit <= len(self._buffer):
                return self.read(limit)
            if not self._fill():
                return self.read(len(self._buffer))


def build_environ(exchange: Exchange, stream: InputStream, config: Config) -> dict[str, Any]:
    """Return the PEP 3333 environ of a request."""
    request = exchange.request
    target = request.target
    server = exchange.server or (config.host, config.port)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": request.method.decode("ascii"),
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(exchange.path).decode("latin-1"),
        "QUERY_STRING": exchange.query.decode("latin-1"),
        "RAW_URI": target.decode("latin-1"),
        "REQUEST_URI": target.decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": "HTTP/" + request.http_version.decode("ascii"),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": exchange.scheme,
        "wsgi.input": stream,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        # The server de-chunks request bodies and ends the stream at the end
        # of the body, so reading to EOF is safe.
        "wsgi.input_terminated": True,
    }
    if exchange.client is not None:
        environ["REMOTE_ADDR"] = exchange.client[0]
        environ["REMOTE_PORT"] = str(exchange.client[1])
    for raw_name, raw_value in exchange.headers:
        if b"_" in raw_name:
            # SECURITY: CGI names turn "-" into "_", so "X-Forwarded_For"
            # would land on (or merge into) HTTP_X_FORWARDED_FOR, and
            # "Transfer_Encoding" on HTTP_TRANSFER_ENCODING. Such fields are
            # dropped, as gunicorn and nginx drop them.
            continue
        name = raw_name.decode("latin-1")
        value = raw_value.decode("latin-1")
        if name == "content-type":
            environ["CONTENT_TYPE"] = value
        elif name == "content-length":
            environ["CONTENT_LENGTH"] = value
        else:
            key = "HTTP_" + name.upper().replace("-", "_")
            if key in environ:
                # RFC 9110 §5.3: repeated fields combine with a comma.
                environ[key] += "," + value
            else:
                environ[key] = value
    return environ


class WSGIRunner:
    """Serve exchanges with a WSGI application on a thread pool.

    Args:
        app: The WSGI application.
        config: The server's settings.
        max_content_length: The largest body the application accepts, when
            the server knows it (an App's); a larger one is not prefetched.
    """

    def __init__(
        self, app: WSGIApp, config: Config, *, max_content_length: int | None = None
    ) -> None:
        self.app = app
        self.config = config
        self.pool = ThreadPoolExecutor(config.threads, thread_name_prefix="wsgi")
        self._prefetch_size = config.max_prefetch_size
        if max_content_length is not None:
            self._prefetch_size = min(self._prefetch_size, max_content_length)

    async def __call__(self, exchange: Exchange) -> None:
        """Run the application for one exchange."""
        loop = asyncio.get_running_loop()
        # SECURITY: a thread waiting on a slow body is a thread no one else
        # gets; a small body is read here, where waiting is cheap.
        prefetched = await prefetch(exchange, self._prefetch_size)
        await loop.run_in_executor(self.pool, self._run, exchange, loop, prefetched)

    def close(self) -> None:
        """Stop the thread pool once running requests finish."""
        self.pool.shutdown(wait=False)

    def _run(
        self, exchange: Exchange, loop: asyncio.AbstractEventLoop, prefetched: Prefetched
    ) -> None:
        def call(coroutine: Any) -> Any:
            return asyncio.run_coroutine_threadsafe(coroutine, loop).result()

        stream = InputStream(exchange, loop, prefetched)
        environ = build_environ(exchange, stream, self.config)
        head: list[Any] = []

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: ExcInfo | None = None
        ) -> Callable[[bytes], object]:
            if exc_info is not None:
                try:
                    if exchange.started:
                        raise exc_info[1].with_traceback(exc_info[2])
                finally:
                    exc_info = None
            elif head:
                raise RuntimeError("start_response was already called")
            head[:] = [status, headers]
            return write

        def send_head() -> None:
            if not exchange.started:
                status, headers = head
                raw = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in headers]
                call(exchange.start(int(status[:3]), raw))

        def write(data: bytes) -> None:
            if not head:
                raise RuntimeError("write() before start_response()")
            send_head()
            call(exchange.write(data))

        try:
            result = self.app(environ, start_response)
            try:
                for data in result:
                    if data:
                        write(data)
                if not head:
                    raise RuntimeError("the application did not call start_response")
                send_head()
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()
            call(exchange.end())
        except Exception as exc:
            if exchange.lost.is_set():
                return
            if exchange.started:
                # Too late for a 500: close so the client sees a cut response.
                log.error(
                    "Exception after the response to %s %s started; closing the connection",
                    environ["REQUEST_METHOD"],
                    environ["PATH_INFO"],
                    exc_info=exc,
                )
                exchange.close_after = True
                return
            status, headers, body = error_response(
                exc, shows_traceback(self.config.debug, exchange.headers)
            )
            if isinstance(exc, OSError) and isinstance(exc.__cause__, BodyError):
                exchange.close_after = True
            call(exchange.start(status, headers))
            call(exchange.write(body))
            call(exchange.end())
