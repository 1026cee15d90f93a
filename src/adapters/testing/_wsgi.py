"""Driving a WSGI application in-process: the environ in, the response out.

The environ is what a PEP 3333 server would build (it passes
``wsgiref.validate``): native strings holding latin-1-decoded bytes,
``CONTENT_TYPE`` and ``CONTENT_LENGTH`` without the ``HTTP_`` prefix, and a
``wsgi.input`` that reads a streamed body lazily, chunk by chunk, ending
with the body (``wsgi.input_terminated``) when no length is known.

As a server does, the driver sends nothing before the application's first
non-empty chunk: until then a ``start_response(..., exc_info)`` may still
replace the status and headers (PEP 3333).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, Protocol

from sansio_http.http._headers import Headers
from sansio_http.messages._request import RAISE_EXCEPTIONS

from ._request import ClientRequest
from ._response import ClientResponse, has_content

__all__ = ["RAISE_EXCEPTIONS", "WSGIApp", "build_environ", "run_wsgi"]

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


class StartResponse(Protocol):
    """The ``start_response`` callable of PEP 3333."""

    def __call__(
        self, status: str, headers: list[tuple[str, str]], exc_info: ExcInfo | None = None
    ) -> Callable[[bytes], object]:
        """Begin the response."""


#: A PEP 3333 application.
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


# PEP 3333 names these two without the HTTP_ prefix.
_UNPREFIXED = {"content-type": "CONTENT_TYPE", "content-length": "CONTENT_LENGTH"}


class _ChunkReader(io.RawIOBase):
    """A raw stream over body chunks, pulled from the iterable on demand."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        super().__init__()
        self._chunks = iter(chunks)
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._pending = bytes(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def build_environ(request: ClientRequest) -> dict[str, Any]:
    """Build the PEP 3333 environ for a request.

    Args:
        request: The request.

    Returns:
        The environ; ``wsgi.errors`` is ``sys.stderr``.
    """
    root = request.root_path.encode("utf-8")
    path = request.path_bytes
    query = request.query_string.decode("latin-1")
    body = request.body
    environ: dict[str, Any] = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": root.decode("latin-1"),
        "PATH_INFO": path[len(root) :].decode("latin-1"),
        "QUERY_STRING": query,
        # What gunicorn calls the request target as sent, still percent-encoded.
        "RAW_URI": request.raw_path + (f"?{query}" if query else ""),
        "SERVER_NAME": request.host,
        "SERVER_PORT": str(request.port),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": request.scheme,
        "wsgi.input": io.BytesIO(body)
        if isinstance(body, bytes)
        else io.BufferedReader(_ChunkReader(body)),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        # A streamed body has no length: reading wsgi.input to its end is safe.
        "wsgi.input_terminated": True,
    }
    if request.remote_addr is not None:
        environ["REMOTE_ADDR"] = request.remote_addr
    for name, value in request.headers.items():
        key = _UNPREFIXED.get(name) or "HTTP_" + name.upper().replace("-", "_")
        if key in environ:
            # RFC 9110 §5.3 joins repeated fields with commas; RFC 6265 §5.4
            # joins cookies with "; ".
            value = environ[key] + ("; " if name == "cookie" else ", ") + value
        environ[key] = value
    return environ


class _Exchange:
    """One call of a WSGI application, with its start_response and write."""

    def __init__(self, app: WSGIApp, request: ClientRequest, *, raise_errors: bool) -> None:
        self.app = app
        self.request = request
        self.raise_errors = raise_errors
        self.status: str | None = None
        self.headers: list[tuple[str, str]] = []
        self.headers_sent = False
        self.written: list[bytes] = []
        self.result: Iterable[bytes] = ()

    def start_response(
        self, status: str, headers: list[tuple[str, str]], exc_info: ExcInfo | None = None
    ) -> Callable[[bytes], object]:
        # NOTE: exc_info may come by keyword, as gunicorn, wsgiref, the
        # development server and the WSGI-in-ASGI bridge take it.
        if exc_info is not None:
            # PEP 3333: once the headers went out, the error can only propagate.
            if self.headers_sent:
                raise exc_info[1].with_traceback(exc_info[2])
        elif self.status is not None:
            raise RuntimeError("start_response() was called twice without exc_info")
        self.status = status
        self.headers = list(headers)
        return self.write

    def write(self, data: bytes) -> None:
        if self.status is None:
            raise RuntimeError("write() was called before start_response()")
        self.written.append(data)

    def _flush(self) -> Iterator[bytes]:
        while self.written:
            chunk = self.written.pop(0)
            if chunk:
                self.headers_sent = True
                yield chunk

    def _body(self, iterator: Iterator[bytes], pending: list[bytes]) -> Iterator[bytes]:
        yield from pending
        try:
            for chunk in iterator:
                yield from self._flush()
                if chunk:
                    self.headers_sent = True
                    yield chunk
            yield from self._flush()
        except Exception:
            # A server cuts the connection: the client sees the body end here.
            if self.raise_errors:
                raise

    def close(self) -> None:
        close = getattr(self.result, "close", None)
        if close is not None:
            close()

    def run(self) -> ClientResponse:
        environ = build_environ(self.request)
        if self.raise_errors:
            environ[RAISE_EXCEPTIONS] = True
        pending: list[bytes] = []
        try:
            self.result = self.app(environ, self.start_response)
            iterator = iter(self.result)
            # PEP 3333: the headers go out with the first non-empty chunk (or
            # at the end of an empty body); until then the application may
            # call start_response again with exc_info, and replace them.
            while not pending:
                chunk = next(iterator, None)
                pending.extend(self._flush())
                if chunk is None:
                    break
                if chunk:
                    if self.status is None:
                        raise RuntimeError(
                            "the application sent a body without calling start_response()"
                        )
                    pending.append(chunk)
            if self.status is None:
                raise RuntimeError("the application returned without calling start_response()")
        except Exception:
            self.close()
            if self.raise_errors:
                raise
            return _server_error(self.request)
        self.headers_sent = True
        status = self.status
        chunks = self._body(iterator, pending)
        code = int(status[:3])
        if self.request.method == "HEAD" or not has_content(code):
            # RFC 9110 §9.3.2, §15.3.5, §15.4.5: a client reads no content in
            # answer to HEAD, or in a 1xx, 204 or 304, whatever was sent.
            chunks = (b"" for _ in chunks)
        return ClientResponse(
            code,
            Headers(self.headers),
            request=self.request,
            chunks=chunks,
            close=self.close,
            reason=status[4:].strip() or None,
        )


def _server_error(request: ClientRequest) -> ClientResponse:
    """Answer as a server does when the application failed before responding."""
    body = b"Internal Server Error"
    headers = Headers([(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"21")])
    return ClientResponse(500, headers, request=request, chunks=iter([body]))


def run_wsgi(app: WSGIApp, request: ClientRequest, *, raise_errors: bool = True) -> ClientResponse:
    """Call a WSGI application and return its response, body unread.

    Args:
        app: The application.
        request: The request.
        raise_errors: Re-raise what the application raises; otherwise
            answer 500 before the response started, and end the body after.

    Returns:
        The response; reading its body pulls the application's iterable,
        and closing it calls the iterable's ``close()``.
    """
    return _Exchange(app, request, raise_errors=raise_errors).run()
