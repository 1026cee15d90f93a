"""Sending a core ``Response`` through ``start_response`` and the WSGI iterable.

:func:`send_response` turns the response's values into what PEP 3333 asks
for: a status line and latin-1 ``str`` header pairs for ``start_response``,
then an iterable of ``bytes``. A ``bytes`` body is one item; a sync iterable
is streamed with its ``close()`` passed through; an async iterable is driven
on an event loop of its own; a :class:`~sansio_http.FileBody` is read from
the file, only its regions, through ``wsgi.file_wrapper`` when the server
offers one. A HEAD request, and a 1xx, 204 or 304 response, get the headers
only, the body closed unread.

A chunk may be ``str``, encoded with the response's charset. A body that asks
for idle chunks (``messages._chunks.KeepAliveStream``) is pulled by a helper:
a thread for a sync producer, which may run a few items ahead (the items
waiting go out joined as one chunk), or an event loop of the body's own for
an async one, which the server's thread runs while it waits. When the
interval passes without an item, the iterable yields the idle chunk and waits
again for the same item. The iterable's ``close()``, which
the server calls after the last byte or when the client is gone, closes the
body exactly once (``aclose()`` for an async one), ends the helper, runs the
work of ``Response.call_on_close`` and releases the request, in that order
on every path, as under ASGI: the work comes after the producer's
``finally``. A sync producer still inside ``next()`` when the client leaves
cannot be interrupted: the helper thread closes it when that ``next()``
returns and then runs the work and releases the request, while the server's
thread, which does not wait for it, goes on to its next request.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import io
import os
import sys
from collections.abc import (
    AsyncIterable,
    Callable,
    Iterable,
    Iterator,
)
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Final, Protocol

from sansio_http.app._context import request_var
from sansio_http.messages._chunks import ChunkEncoder, idle_plan
from sansio_http.messages._errors import InternalServerError
from sansio_http.messages._files import FileBody, FileRegion
from sansio_http.messages._request import RAISE_EXCEPTIONS
from sansio_http.messages._response import Response

from ._pull import (
    _batched_idle_chunks,
    _close_all,
    _idle_chunks,
    _LoopPuller,
    _pulled_chunks,
    _run_aclose,
    _ThreadPuller,
    logger,
)

if TYPE_CHECKING:
    from ._request import WSGIRequest

__all__ = ["HOP_BY_HOP", "RAISE_EXCEPTIONS", "StartResponse", "send_response", "wsgi_headers"]


#: What ``sys.exc_info()`` returns, the form ``start_response`` takes it in.
ExcInfo = tuple[type[BaseException], BaseException, TracebackType] | tuple[None, None, None]


class StartResponse(Protocol):
    """The ``start_response`` callable a WSGI server passes (PEP 3333)."""

    def __call__(
        self,
        status: str,
        headers: list[tuple[str, str]],
        exc_info: ExcInfo | None = ...,
        /,
    ) -> Callable[[bytes], object]:
        """Begin the response; return the legacy ``write`` callable."""


# PEP 3333 forbids an application to send hop-by-hop headers: the server
# owns the connection. RFC 9110 §7.6.1 lists them; "trailers" is RFC 2616's
# spelling, which PEP 3333 (and wsgiref) still check.
HOP_BY_HOP: Final = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"trailers",
        b"transfer-encoding",
        b"upgrade",
    }
)
# RFC 9110 §15.3.5, §15.4.5: a 204 or 304 has no content, so no Content-Type
# (wsgiref.validate refuses it); a 1xx or 204 has no Content-Length (§8.6).
# NOTE: §8.6 lets a 304 keep the Content-Length of the 200 it stands for, but
# the one a response holds is that of its own body, rarely the 200's, and
# some servers (uvicorn's httptools mode) then wait for that much content.
# The core's make_conditional() drops it from a 304 too.
_NO_BODY_DROPPED: Final = HOP_BY_HOP | {b"content-type", b"content-length"}
# PERF: the text of each field name sent, decoded once. Only names that are
# not hop-by-hop enter it, and it stops growing at a bound, so an application
# that makes up names cannot grow it without limit.
#: What ``_in_request`` gets from ``next()`` at the end of the chunks.
_DONE: Final = object()

_NAMES: dict[bytes, str] = {}
_MAX_NAMES: Final = 256

# PERF: 64 KiB per file read, as CPython's shutil and wsgiref use.
_FILE_BLOCK: Final = 64 * 1024


def wsgi_headers(response: Response) -> list[tuple[str, str]]:
    """Return the response's header fields as ``start_response`` wants them.

    Hop-by-hop fields are left out (PEP 3333), and so are Content-Type and
    Content-Length from a 1xx, 204 or 304 response, which has no content.

    Args:
        response: The response to send.

    Returns:
        ``(name, value)`` pairs of latin-1 ``str``, names lower-case.
    """
    return _fields(response, response.status)


def _fields(response: Response, status: int) -> list[tuple[str, str]]:
    """Return ``wsgi_headers(response)`` for the status already read."""
    if status < 200 or status == 204 or status == 304:
        dropped = _NO_BODY_DROPPED
        return [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in response.raw_headers()
            if name not in dropped
        ]
    headers = []
    names = _NAMES
    for name, value in response.raw_headers():
        text = names.get(name)
        if text is None:
            if name in HOP_BY_HOP:
                continue
            text = name.decode("latin-1")
            if len(names) < _MAX_NAMES:
                names[name] = text
        headers.append((text, value.decode("latin-1")))
    return headers


class _StreamedBody:
    """The WSGI iterable of a streamed body: its ``close()`` reaches the source.

    An error before the first non-empty chunk becomes a 500 through
    ``start_response(..., exc_info)``, which PEP 3333 allows as long as the
    server has not sent the headers, and it has not: a server sends them
    with the first non-empty chunk (unless the environ holds
    :data:`RAISE_EXCEPTIONS`: then it propagates). A later error propagates,
    and the server aborts the response.
    """

    __slots__ = ("_chunks", "_closed", "_closers", "_encode", "_request", "_start_response")

    def __init__(
        self,
        chunks: Iterator[object],
        closers: list[Callable[[], object]],
        start_response: StartResponse,
        request: WSGIRequest,
        encode: Callable[[object], bytes],
    ) -> None:
        self._chunks = chunks
        self._closers = closers
        self._start_response = start_response
        self._request = request
        self._encode = encode
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        chunks = _in_request(self._chunks, self._request)
        encode = self._encode
        try:
            for chunk in chunks:
                if type(chunk) is not bytes:
                    chunk = encode(chunk)
                if chunk:
                    break
                # An empty chunk sends nothing: the headers stay unsent.
            else:
                return
        except Exception:
            if self._request.propagate_exceptions:
                raise
            yield from self._fail()
            return
        yield chunk
        for chunk in chunks:
            yield chunk if type(chunk) is bytes else encode(chunk)

    def _fail(self) -> Iterator[bytes]:
        exc_info = sys.exc_info()
        request = self._request
        logger.exception(
            "Exception before the first chunk of the response to %s %s",
            request.method,
            request.full_path,
        )
        response = InternalServerError().to_response(request)
        # PEP 3333: start_response may be called again with exc_info until
        # the headers are sent; a server that did send them re-raises.
        _start(self._start_response, response, exc_info)
        if isinstance(response.body, bytes) and response.body:
            yield response.body

    def close(self) -> None:
        """Close the body's source and release the request's resources (once)."""
        if self._closed:
            return
        self._closed = True
        # The producer's finally runs in the request's context, as its items do.
        context = request_var.set(self._request)
        try:
            _close_all(self._closers)
        finally:
            request_var.reset(context)


def _in_request(chunks: Iterator[object], request: WSGIRequest) -> Iterator[object]:
    """Yield what ``chunks`` yields, each made in the request's context.

    The server iterates the body after the dispatch's context ended; a
    producer calling ``url_for`` or ``current_request`` finds its request.
    """
    set_request, reset_request = request_var.set, request_var.reset
    while True:
        context = set_request(request)
        try:
            chunk = next(chunks, _DONE)
        finally:
            reset_request(context)
        if chunk is _DONE:
            return
        yield chunk


def run_close_work(response: Response, request: WSGIRequest) -> None:
    """Run the work registered with ``response.call_on_close``, in order.

    Called from the iterable's ``close()``, which PEP 3333 servers call
    after the last byte, once the body is closed; or, when a sync producer
    of idle chunks was inside ``next()`` then, from the helper thread that
    runs it, once it has returned and the producer has been closed. A
    coroutine function runs on an event loop of its own.
    An exception is logged with the request line, and the next function
    still runs.
    """
    # In the request's context: url_for and current_request work there as in
    # the view (the dispatch's own context has ended).
    context = request_var.set(request)
    try:
        _run_each(response, request)
    finally:
        request_var.reset(context)


def _run_each(response: Response, request: WSGIRequest) -> None:
    for func in getattr(response, "_close_work", None) or ():
        try:
            if inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
                getattr(func, "__call__", None)  # noqa: B004 (the method itself is inspected)
            ):
                loop = asyncio.new_event_loop()
                try:
                    loop.run_until_complete(func())
                finally:
                    loop.close()
            else:
                func()
        except Exception:
            logger.exception(
                "Error in work after the response to %s %s", request.method, request.full_path
            )


class _Closing(list[bytes]):
    """A body in memory whose ``close()`` runs the response's work after it."""

    __slots__ = ("_closers",)

    def __init__(self, chunks: list[bytes], closers: list[Callable[[], object]]) -> None:
        super().__init__(chunks)
        self._closers = closers

    def close(self) -> None:
        """Run the work after the response and release the request, once."""
        closers, self._closers = self._closers, []
        _close_all(closers)


class FileShrankError(RuntimeError):
    """A file ended before the length its response head promised.

    NOTE: not an ``OSError``: gunicorn (and other servers) read an
    ``OSError`` from the application's iterable as a socket error and drop
    the connection without an answer, even before the head was sent. This
    one is an application error: before the first byte the server answers
    500 (this adapter does the same on its own path), after it the server
    closes the connection, as for any stream that fails.
    """


def _shrank(path: object) -> FileShrankError:
    """Log that ``path`` shrank while it was sent; return the error to raise."""
    logger.error("%r shrank while it was being sent: the response ends short", path)
    return FileShrankError(f"{path!r} shrank while it was being sent")


class _FileRange(io.RawIOBase):
    """A file narrowed to one region, for ``wsgi.file_wrapper``.

    Reads stop at the region's end. ``fileno()`` is offered only when the
    region runs to the end of the file, so that a server that sends with
    ``sendfile`` from the current position (gunicorn does, then seeks back)
    can never send bytes past the region; ``seek`` and ``tell`` use the
    file's own positions for that reason.
    """

    def __init__(
        self,
        file: IO[bytes],
        start: int,
        end: int | None,
        to_end: bool,
        closers: list[Callable[[], object]],
    ) -> None:
        super().__init__()
        file.seek(start)
        self._file = file
        self._position = start
        self._end = end
        self._to_end = to_end
        self._closers = closers

    def readable(self) -> bool:
        """Return True: the region can be read."""
        return True

    def seekable(self) -> bool:
        """Return True: the file's positions can be set."""
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move to a position of the file (not of the region); return it."""
        self._position = self._file.seek(offset, whence)
        return self._position

    def tell(self) -> int:
        """Return the current position in the file."""
        return self._position

    def read(self, size: int | None = -1) -> bytes:
        """Read up to ``size`` bytes of the region; ``b""`` at its end."""
        end = self._end
        if end is None:
            data = self._file.read(-1 if size is None else size)
        else:
            remaining = end - self._position
            if size is None or size < 0 or size > remaining:
                size = remaining
            if size <= 0:
                return b""
            data = self._file.read(size)
            if not data:
                # The Content-Length sent promised more: abort rather than pad.
                raise _shrank(self._file.name)
        self._position += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        """Read into a writable buffer; return the byte count."""
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def fileno(self) -> int:
        """Return the file's descriptor when the region runs to its end."""
        if not self._to_end:
            raise io.UnsupportedOperation("the region ends before the end of the file")
        return self._file.fileno()

    def close(self) -> None:
        """Close the file and release the request's resources."""
        if self.closed:
            return
        super().close()
        _close_all([self._file.close, *self._closers])


def _file_chunks(file: IO[bytes], body: FileBody) -> Iterator[bytes]:
    """Yield the segments of ``body``, reading only its regions of ``file``."""
    for segment in body.segments:
        if isinstance(segment, bytes):
            if segment:
                yield segment
            continue
        file.seek(segment.offset)
        remaining = segment.length
        while remaining is None or remaining > 0:
            size = _FILE_BLOCK if remaining is None else min(_FILE_BLOCK, remaining)
            data = file.read(size)
            if not data:
                break
            yield data
            if remaining is not None:
                remaining -= len(data)
        if remaining:
            # The Content-Length sent promised more: abort rather than pad.
            raise _shrank(body.path)


def _file_length(body: FileBody, size: int) -> int:
    """Return the byte count of ``body`` when its last region runs to EOF."""
    total = 0
    for segment in body.segments:
        if isinstance(segment, bytes):
            total += len(segment)
        elif segment.length is None:
            total += max(size - segment.offset, 0)
        else:
            total += segment.length
    return total


def _start(
    start_response: StartResponse,
    response: Response,
    exc_info: ExcInfo | None,
    content_length: int | None = None,
) -> int:
    # Returns the status sent. PERF: read once (a property, which a subclass may compute).
    status = response.status
    headers = _fields(response, status)
    if content_length is not None:
        headers.append(("content-length", str(content_length)))
    if exc_info is None:
        start_response(response.status_line, headers)
    else:
        start_response(response.status_line, headers, exc_info)
    return status


def send_response(
    response: Response,
    request: WSGIRequest,
    start_response: StartResponse,
    exc_info: ExcInfo | None = None,
) -> Iterable[bytes]:
    """Start ``response`` and return the WSGI iterable of its body.

    Everything that may fail before the response starts (opening a file)
    happens before ``start_response`` is called, so the caller can still
    answer with an error instead. The request is closed once the server is
    done with the body: at once when the body is in memory, else through
    the iterable's ``close()``.

    Args:
        response: The response to send.
        request: The request it answers: its environ gives the method and
            ``wsgi.file_wrapper``, when the server offers one.
        start_response: The server's ``start_response``.
        exc_info: Passed to ``start_response`` (PEP 3333) when ``response``
            answers an exception.

    Returns:
        The iterable the WSGI application returns to the server.
    """
    body = response.body
    environ = request.environ
    if isinstance(body, bytes):
        # PERF: the common case; nothing to stream, nothing to close later.
        status = _start(start_response, response, exc_info)
        content: list[bytes] = [body]
        if (
            not body
            or environ.get("REQUEST_METHOD") == "HEAD"
            or status < 200
            or status == 204
            or status == 304
        ):
            # RFC 9110 §9.3.2, §15.3.5, §15.4.5: no content in answer to HEAD
            # or in a 1xx, 204 or 304, whatever body the response holds. Sent,
            # it would be read as the start of the next response on the
            # connection (gunicorn drops it with a warning; others do not).
            content = []
        if Response._close_work_used and getattr(response, "_close_work", None):
            # The work runs from close(), which the server calls after the last byte.
            return _Closing(
                content, [functools.partial(run_close_work, response, request), request.close]
            )
        if request.has_resources:
            request.close()
        return content
    status = response.status
    # The head only: in answer to HEAD, or for a 1xx, 204 or 304 (see above).
    head_only = (
        environ.get("REQUEST_METHOD") == "HEAD" or status < 200 or status == 204 or status == 304
    )
    closers: list[Callable[[], object]] = [request.close]
    work = Response._close_work_used and bool(getattr(response, "_close_work", None))
    if work:
        # After the body's close, before the request's files are released.
        closers.insert(0, functools.partial(run_close_work, response, request))
    if isinstance(body, FileBody):
        return _send_file(response, body, request, start_response, closers, exc_info, head_only)
    if head_only:
        # Never iterated, but closed all the same: a sync body like any other,
        # an async one (its aclose(), not close()) on an event loop of its own.
        closer = (
            functools.partial(_run_aclose, body)
            if isinstance(body, AsyncIterable)
            else getattr(body, "close", None)
        )
        if closer is not None:
            closers.insert(0, closer)
        _start(start_response, response, exc_info)
        if work:
            # The work runs from close(), once the server sent the head.
            return _Closing([], closers)
        _close_all(closers)
        return []
    plan = idle_plan(body, response)
    if plan is not None:
        # The source is pulled; the body given is what is closed: a
        # transform's wrapper closes its source.
        source = plan.source
        if isinstance(source, AsyncIterable):
            puller = _LoopPuller(source, body)
            generator = _idle_chunks(puller, plan)
            # The producer's finally runs within puller.close().
            closers[:0] = [generator.close, puller.close]
        else:
            thread_puller = _ThreadPuller(source, body)
            generator = _batched_idle_chunks(thread_puller, plan)
            # NOTE: the closers after the producer's go with it: a producer
            # inside next() is closed later, on the helper thread, and the
            # work after the response must not run before its finally.
            closers = [generator.close, functools.partial(thread_puller.close, closers)]
        _start(start_response, response, exc_info)
        return _StreamedBody(generator, closers, start_response, request, _not_text)
    chunks: Iterator[Any]
    if isinstance(body, AsyncIterable):
        async_puller = _LoopPuller(body, body)
        chunks = _pulled_chunks(async_puller)
        closers.insert(0, async_puller.close)
    else:
        chunks = iter(body)
        # The body's close(), and its iterator's first when that is another
        # object (a class whose __iter__ is a generator): PEP 3333.
        source_close = getattr(body, "close", None)
        if source_close is not None:
            closers.insert(0, source_close)
        if chunks is not body:
            iterator_close = getattr(chunks, "close", None)
            if iterator_close is not None:
                closers.insert(0, iterator_close)
    _start(start_response, response, exc_info)
    return _StreamedBody(chunks, closers, start_response, request, ChunkEncoder(response))


def _not_text(chunk: object) -> bytes:  # pragma: no cover - an IdlePlan yields bytes
    raise TypeError(f"expected bytes, not {type(chunk).__name__}")


def _send_file(
    response: Response,
    body: FileBody,
    request: WSGIRequest,
    start_response: StartResponse,
    closers: list[Callable[[], object]],
    exc_info: ExcInfo | None,
    head: bool,
) -> Iterable[bytes]:
    length = body.content_length
    extra_length: int | None = None
    if head:
        status = response.status
        if (
            length is None
            and status >= 200
            and status != 204
            and status != 304
            and "content-length" not in response.headers
        ):
            # HEAD: the length a GET would send (RFC 9110 §9.3.2).
            extra_length = _file_length(body, os.stat(body.path).st_size)
        _start(start_response, response, exc_info, extra_length)
        _close_all(closers)
        return []
    # Closed by the iterable's close(), or below if the response cannot start.
    # Unbuffered: reads are large anyway, and a server that takes fileno()
    # then finds the descriptor at the position the region starts.
    file = open(body.path, "rb", buffering=0)
    try:
        size = os.fstat(file.fileno()).st_size
        if length is None and "content-length" not in response.headers:
            extra_length = _file_length(body, size)
        segments = body.segments
        wrapper = request.environ.get("wsgi.file_wrapper")
        if wrapper is not None and len(segments) == 1 and isinstance(segments[0], FileRegion):
            offset, region_length = segments[0]
            end = None if region_length is None else offset + region_length
            ranged = _FileRange(file, offset, end, end is None or end >= size, closers)
            _start(start_response, response, exc_info, extra_length)
            result: Iterable[bytes] = wrapper(ranged, _FILE_BLOCK)
            return result
    except BaseException:
        file.close()
        raise
    _start(start_response, response, exc_info, extra_length)
    return _StreamedBody(
        _file_chunks(file, body), [file.close, *closers], start_response, request, _not_text
    )
