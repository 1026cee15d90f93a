"""``WSGIRequest``: a core ``Request`` read from a WSGI environ, with its body.

The request's head comes from the environ without copying: paths are
decoded as PEP 3333 asks, and the headers are a view over the environ's
keys. The body is read from ``wsgi.input`` only when asked for, through the
body API of :class:`~sansio_http.BodyRequest`, within the request's limits.
The blocking reads are native here; the awaited ones read the same input,
blocking the worker thread, as WSGI does. Uploaded files go to spooled
temporary files that :meth:`~WSGIRequest.close` releases.
"""

from __future__ import annotations

import asyncio
import os
import select
import socket
import tempfile
from collections.abc import AsyncIterator, Callable, Collection, Iterator
from types import TracebackType
from typing import Any, BinaryIO, Final, overload

from typing_extensions import Self

from sansio_http.bodies._body import ALREADY_STREAMED, EMPTY_FORM, BodyRequest
from sansio_http.bodies._formdata import FormData, FormLimits, SpoolFile
from sansio_http.bodies._forms import FormDecoder
from sansio_http.messages._request import RAISE_EXCEPTIONS, TransportValue, _cached
from sansio_http.messages._request import _normalize_root_path as normalize_root_path

from ._environ import EnvironHeaders, decode_path, query_bytes, server_address
from ._input import InputStream

__all__ = ["DEFAULT_SPOOL_MEMORY", "RAISE_EXCEPTIONS", "WSGIRequest"]

# An upload stays in memory up to this size, then moves to a temporary file.
# Starlette also rolls over at 1 MiB and Werkzeug at 500 KiB: a typical form
# upload (an avatar, a small document) never touches the disk, a large one
# never holds more than this in memory.
DEFAULT_SPOOL_MEMORY: Final = 1024 * 1024


def _open_for_writing(path: str | os.PathLike[str]) -> BinaryIO:
    # The opener of UploadedFile.save(path): the core opens no file itself.
    return open(path, "wb")


# PERF: a form is read 256 KiB at a time: the multipart parser and the spool
# file cost per call, and in measurements on a 10 MiB upload 256 KiB reads
# took a fifth less time than 64 KiB ones, while 512 KiB gained nothing more.
_FORM_CHUNK_SIZE: Final = 256 * 1024

_DEFAULT_FORM_LIMITS: Final = FormLimits()


class _EnvironContentType(_cached["str | None"]):
    """``WSGIRequest.content_type``: read from the environ on first access, then kept.

    PERF: in one call, where ``_cached`` calls the method from its own; a
    JSON view's request reads it for every body it decodes.
    """

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type[Any] | None = None) -> str | None: ...

    def __get__(self, instance: object | None, owner: type[Any] | None = None) -> str | Self | None:
        if instance is None:
            return self
        environ: dict[str, Any] = instance.environ  # type: ignore[attr-defined]
        value = environ.get("CONTENT_TYPE")
        if not value or not isinstance(value, str):
            value = None
        instance.__dict__["content_type"] = value
        return value


def _root_path(request: WSGIRequest) -> str:
    root_path = decode_path(request.environ.get("SCRIPT_NAME") or "")
    return normalize_root_path(root_path) if root_path else ""


class WSGIRequest(BodyRequest):
    """A :class:`~sansio_http.BodyRequest` read from a WSGI environ.

    Constructing one reads nothing from ``wsgi.input`` and copies nothing
    from the environ; each attribute is computed on first access.

    Args:
        environ: The WSGI environ, as the server passed it.
        max_content_length: The most body bytes accepted, or None for no
            limit; a larger Content-Length is refused with 413 before
            anything is read, and a chunked body is cut off after it.
        form_limits: The limits of the form readers; the
            :class:`~sansio_http.FormLimits` defaults when omitted.
        spool: Makes the file that holds one uploaded file; by default a
            :class:`tempfile.SpooledTemporaryFile` that keeps up to
            1 MiB in memory before it moves to disk.
        trusted_hosts: As for :class:`~sansio_http.Request`.
    """

    #: The WSGI environ, as the server passed it.
    environ: dict[str, Any]
    #: The most body bytes accepted, or None for no limit.
    max_content_length: int | None = None
    #: The limits of the form readers.
    form_limits: FormLimits = _DEFAULT_FORM_LIMITS

    _running_loop = staticmethod(asyncio._get_running_loop)

    # The constructor values of the core request, read on first access.
    remote_addr = TransportValue["WSGIRequest", "str | None"](
        lambda request: request.environ.get("REMOTE_ADDR") or None
    )
    root_path = TransportValue["WSGIRequest", str](_root_path)
    propagate_exceptions = TransportValue["WSGIRequest", bool](
        lambda request: bool(request.environ.get(RAISE_EXCEPTIONS))
    )
    server = TransportValue["WSGIRequest", "tuple[str, int | None] | None"](
        lambda request: server_address(request.environ)
    )
    # PERF: a request that never reads its headers never makes their view.
    headers = TransportValue["WSGIRequest", EnvironHeaders](
        lambda request: EnvironHeaders(request.environ)
    )

    # PERF: the body state lives in class defaults until it is first needed,
    # so that building a request sets as few attributes as possible.
    _spool_factory: Callable[[], SpoolFile] | None = None
    _spools: list[SpoolFile] | None = None
    _stream: InputStream | None = None
    _data: bytes | None = None
    _form_data: FormData | None = None
    _streamed = False

    def __init__(
        self,
        environ: dict[str, Any],
        *,
        max_content_length: int | None = None,
        form_limits: FormLimits | None = None,
        spool: Callable[[], SpoolFile] | None = None,
        trusted_hosts: Collection[str] | None = None,
    ) -> None:
        # PERF: what nearly every request reads (routing: the method, the path
        # and the scheme; views: the query) is read here, as Request.__init__
        # would, without calling it; the other constructor values, the headers
        # among them, are read from the environ on first access (TransportValue).
        self.environ = environ
        method = environ.get("REQUEST_METHOD") or "GET"
        self.method = method if method.isupper() else method.upper()
        path = environ.get("PATH_INFO") or "/"
        if not path.isascii():
            path = decode_path(path)
        self.path = path if path[:1] == "/" else "/" + path
        self.scheme = environ.get("wsgi.url_scheme") or "http"
        self.query_string = query_bytes(environ.get("QUERY_STRING") or "")
        if trusted_hosts is not None:
            self.trusted_hosts = trusted_hosts
        if max_content_length is not None:
            self.max_content_length = max_content_length
        if form_limits is not None:
            self.form_limits = form_limits
        if spool is not None:
            self._spool_factory = spool

    # -- facts that are not I/O ------------------------------------------

    @_EnvironContentType
    def content_type(self) -> str | None:
        """The Content-Type header as sent, or None."""
        # PERF: PEP 3333's CONTENT_TYPE, read without the headers' mapping (the
        # descriptor reads it itself; this is the method's documentation).
        value = self.environ.get("CONTENT_TYPE")
        return value if value and isinstance(value, str) else None

    @property
    def http_version(self) -> str:
        """The HTTP version of SERVER_PROTOCOL, such as ``"1.1"`` or ``"2"``."""
        protocol: str = self.environ.get("SERVER_PROTOCOL") or "HTTP/1.0"
        return protocol.partition("/")[2] or protocol

    @property
    def raw_path(self) -> bytes | None:
        """The request target's path as sent, when the server passes it on.

        gunicorn (``RAW_URI``), uWSGI and Apache (``REQUEST_URI``) do; PEP 3333
        does not ask for it, so it is None under other servers.
        """
        target = self.environ.get("RAW_URI") or self.environ.get("REQUEST_URI")
        if not target:
            return None
        return str(target).partition("?")[0].encode("latin-1", "replace")

    @property
    def bytes_read(self) -> int:
        """How many body bytes were read from ``wsgi.input`` so far."""
        stream = self._stream
        if stream is not None:
            return stream.bytes_read
        return len(self._data) if self._data is not None else 0

    @property
    def input_stream(self) -> InputStream:
        """The body as a file-like object, within the limits, for WSGI libraries.

        Reading from it consumes the body that the body API reads; views
        use that API instead, which works under both adapters.

        Raises:
            BadRequest: CONTENT_LENGTH is not a number.
            LengthRequired: The body is chunked and the server does not end
                ``wsgi.input`` itself (``wsgi.input_terminated``).
            RequestEntityTooLarge: CONTENT_LENGTH exceeds
                :attr:`max_content_length`.
        """
        if self._data is not None:
            return InputStream.over(self._data)
        stream = self._stream
        if stream is None:
            stream = self._stream = InputStream(
                self.environ, max_content_length=self.max_content_length
            )
        return stream

    @property
    def has_resources(self) -> bool:
        """Whether :meth:`close` has files to release."""
        return bool(self._spools)

    # -- the body: blocking reads are native -----------------------------

    def _consume(self) -> InputStream:
        """Return the input for the one read that consumes it."""
        stream = self.input_stream
        # Also refused after reads through input_stream itself.
        if self._streamed or stream.bytes_read:
            raise RuntimeError(ALREADY_STREAMED)
        self._streamed = True
        return stream

    def _read_body(self) -> bytes:
        data = self._data
        if data is None:
            data = self._data = self._consume().read()
        return data

    def _read_chunks(self) -> Iterator[bytes]:
        data = self._data
        if data is not None:
            return iter((data,) if data else ())
        return iter(self._consume())

    def _read_form(self) -> FormData:
        form_data = self._form_data
        if form_data is not None:
            return form_data
        mimetype = self.mimetype
        if not FormDecoder.supports(mimetype):
            form_data = self._form_data = EMPTY_FORM
            return form_data
        stream = self._consume() if self._data is None else InputStream.over(self._data)
        decoder = FormDecoder(
            mimetype,
            self.mimetype_params,
            content_length=stream.content_length,
            limits=self.form_limits,
            spool=self._spool,
            opener=_open_for_writing,
        )
        read = stream.read1
        while chunk := read(_FORM_CHUNK_SIZE):
            decoder.feed(chunk)
        form_data = self._form_data = decoder.close()
        return form_data

    def _poll_disconnect(self) -> bool:
        stream = self._stream
        if stream is not None and stream.disconnected:
            return True
        # PEP 3333 gives no way to ask; gunicorn passes the client socket,
        # which tells once the body has been read (else its bytes are next).
        sock = self.environ.get("gunicorn.socket")
        if not isinstance(sock, socket.socket) or not self._body_done():
            return False
        return _socket_closed(sock)

    def _body_done(self) -> bool:
        if self._data is not None or self.content_length is None:
            return True
        stream = self._stream
        return stream is not None and stream.content_length == stream.bytes_read

    # -- the body: awaited reads block the worker thread, as WSGI does ---

    async def body(self) -> bytes:
        """Read the whole body once and keep it (see :meth:`get_data`)."""
        return self._read_body()

    def stream(self) -> AsyncIterator[bytes]:
        """Return the body as an async iterator (see :meth:`iter_data`)."""
        return _aiter(self._read_chunks())

    async def _decode_form(self) -> FormData:
        return self._read_form()

    async def is_disconnected(self) -> bool:
        """Return whether the client is known to be gone (see :meth:`check_disconnected`)."""
        return self._poll_disconnect()

    def _spool(self) -> SpoolFile:
        factory = self._spool_factory
        if factory is None:
            file: SpoolFile = tempfile.SpooledTemporaryFile(max_size=DEFAULT_SPOOL_MEMORY)
        else:
            file = factory()
        # Kept so that close() releases it even if decoding fails halfway.
        spools = self._spools
        if spools is None:
            spools = self._spools = []
        spools.append(file)
        return file

    # -- resources ------------------------------------------------------------

    def close(self) -> None:
        """Release the spool files of uploaded files; safe to call twice.

        The WSGI adapter calls it when the response is finished, so an
        application only needs to call it to release them earlier.
        """
        spools = self._spools
        if spools:
            self._spools = None
            for file in spools:
                file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


async def _aiter(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _socket_closed(sock: socket.socket) -> bool:
    """Return whether the peer closed ``sock``, without blocking or reading."""
    if sock.fileno() < 0:
        # The server closed it: the connection is over.
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except ValueError:
        # A TLS socket takes no flags: nothing can be told.
        return False
    except OSError:
        # A reset connection, or a socket already closed.
        return True
