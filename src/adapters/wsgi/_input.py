"""The request body: ``wsgi.input`` read within its length and the limits.

PEP 3333 lets a server hand over a raw socket file: reading past
CONTENT_LENGTH may block forever, and a body without a length can only be
read when the server says it ends the stream itself
(``wsgi.input_terminated``). :class:`InputStream` decides once, from the
environ, how much may be read, and every read goes through it.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from typing import Any, Final, Protocol

from sansio_http.messages._errors import (
    BadRequest,
    ClientDisconnected,
    HTTPError,
    LengthRequired,
    RequestEntityTooLarge,
)
from sansio_http.messages._length import TOO_LARGE, parse_content_length

__all__ = ["DEFAULT_CHUNK_SIZE", "InputStream", "content_length"]

# PERF: 64 KiB per read is the size CPython's own buffered readers and
# shutil.copyfileobj settled on: large enough that the per-call cost of
# wsgi.input.read disappears, small enough to bound the memory of a stream.
DEFAULT_CHUNK_SIZE: Final = 64 * 1024


class _Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


def content_length(environ: Mapping[str, Any]) -> int | None:
    """Return CONTENT_LENGTH as a number, None when absent or empty.

    Args:
        environ: The WSGI environ.

    Returns:
        The announced body length, or None; ``TOO_LARGE`` (2**63) for any
        value of 2**63 or more.

    Raises:
        BadRequest: CONTENT_LENGTH is not a decimal number (RFC 9110 §8.6).
    """
    value = environ.get("CONTENT_LENGTH")
    if not value:
        return None
    if not isinstance(value, str):
        raise BadRequest("Invalid Content-Length header")
    # The core's parser: 1*DIGIT (RFC 9110 §8.6), never int() on thousands
    # of digits; 2**63 and more read as TOO_LARGE, which exceeds any limit.
    return parse_content_length((value,))


class InputStream:
    """The request body of one WSGI request, read once, within its limits.

    ``read`` and iteration raise :class:`~sansio_http.messages._errors.HTTPError`
    subclasses, so that the adapter answers with the right status: 400
    (:class:`ClientDisconnected`) when the client sent less than its
    Content-Length, 413 beyond ``max_content_length``, 411 for a chunked
    body the server does not terminate.

    Args:
        environ: The WSGI environ; ``wsgi.input`` is read, never closed.
        max_content_length: The most bytes accepted, or None for no limit.
        chunk_size: The size of each ``wsgi.input.read`` while iterating.

    Raises:
        BadRequest: CONTENT_LENGTH is not a number.
        LengthRequired: The body is chunked and the server does not say
            where it ends (no ``wsgi.input_terminated``).
        RequestEntityTooLarge: CONTENT_LENGTH exceeds ``max_content_length``;
            raised before anything is read.
    """

    __slots__ = ("_count", "_eof", "_error", "_input", "_limit", "_remaining", "chunk_size")

    def __init__(
        self,
        environ: Mapping[str, Any],
        *,
        max_content_length: int | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> None:
        self.chunk_size = chunk_size
        self._input: _Readable = environ["wsgi.input"]
        self._limit = max_content_length
        self._count = 0
        self._eof = False
        self._error: HTTPError | None = None
        terminated = bool(environ.get("wsgi.input_terminated"))
        # RFC 9112 §6.3: Transfer-Encoding overrides Content-Length; only a
        # server that decodes the chunks and marks the end can pass it on.
        if environ.get("HTTP_TRANSFER_ENCODING"):
            if not terminated:
                # Reading would either hang on the socket or see the raw
                # chunk framing; an empty body would silently lose data.
                raise LengthRequired("Chunked request bodies are not supported by this server")
            self._remaining: int | None = None
            return
        length = content_length(environ)
        if length is None:
            # RFC 9112 §6.3: a request without Content-Length or
            # Transfer-Encoding has no body, unless the server (say, over
            # HTTP/2) frames it and marks its end.
            self._remaining = None
            self._eof = not terminated
            return
        if max_content_length is not None and length > max_content_length:
            raise RequestEntityTooLarge(
                f"The body is larger than the limit of {max_content_length} bytes"
            )
        if length == TOO_LARGE:
            # Without a limit too: no body can be that long.
            raise RequestEntityTooLarge("The body is larger than any this server accepts")
        self._remaining = length

    @classmethod
    def over(cls, data: bytes) -> InputStream:
        """Return a stream that reads ``data``, as a body already in memory.

        Args:
            data: The whole body.

        Returns:
            A new stream at the start of ``data``.
        """
        return cls(
            {"wsgi.input": io.BytesIO(data), "CONTENT_LENGTH": str(len(data))},
        )

    @property
    def content_length(self) -> int | None:
        """The announced length of the body, None when it is not known."""
        if self._remaining is None:
            return None
        return self._count + self._remaining

    @property
    def disconnected(self) -> bool:
        """Whether a read saw the client go away before the end of the body."""
        return isinstance(self._error, ClientDisconnected)

    @property
    def bytes_read(self) -> int:
        """How many body bytes were read so far."""
        return self._count

    def _source_read(self, size: int) -> bytes:
        try:
            return self._input.read(size)
        except OSError as exc:
            # gunicorn raises IOError subclasses (NoMoreData) and sockets
            # ConnectionResetError when the peer goes away mid-body.
            self._error = ClientDisconnected("The client closed the connection mid-body")
            raise self._error from exc

    def read1(self, size: int = DEFAULT_CHUNK_SIZE, /) -> bytes:
        """Read at most ``size`` bytes with one read of ``wsgi.input``.

        Args:
            size: The most bytes to return; at least 1.

        Returns:
            Some bytes; ``b""`` only at the end of the body.
        """
        if size < 1:
            raise ValueError(f"read1() needs a size of at least 1, got {size}")
        return self._read_some(size)

    def _read_some(self, size: int) -> bytes:
        """Read at most ``size`` (> 0) bytes: b"" only at the end of the body."""
        if self._error is not None:
            raise self._error
        remaining = self._remaining
        if remaining is not None:
            if remaining == 0:
                return b""
            data = self._source_read(size if size < remaining else remaining)
            if not data:
                self._error = ClientDisconnected(
                    f"The body ended after {self._count} of the"
                    f" {self._count + remaining} bytes announced"
                )
                raise self._error
            self._remaining = remaining - len(data)
            self._count += len(data)
            return data
        if self._eof:
            return b""
        limit = self._limit
        if limit is not None:
            # Read one byte past the limit at most: enough to know that the
            # body is too large without buffering more of it.
            size = min(size, limit - self._count + 1)
        data = self._source_read(size)
        if not data:
            self._eof = True
            return data
        self._count += len(data)
        if limit is not None and self._count > limit:
            self._error = RequestEntityTooLarge(
                f"The body is larger than the limit of {limit} bytes"
            )
            raise self._error
        return data

    def read(self, size: int | None = -1, /) -> bytes:
        """Read and return up to ``size`` bytes, or the rest of the body.

        Like a buffered file, the result is shorter than ``size`` only at the
        end of the body.

        Args:
            size: How many bytes to read; negative or None for all of them.

        Returns:
            The bytes read; ``b""`` at the end of the body.
        """
        if size is None or size < 0:
            return b"".join(self)
        if size == 0:
            return b""
        data = self._read_some(size)
        if len(data) == size or not data:
            return data
        parts = [data]
        missing = size - len(data)
        while missing:
            data = self._read_some(missing)
            if not data:
                break
            parts.append(data)
            missing -= len(data)
        return b"".join(parts)

    def readable(self) -> bool:
        """Return True: the stream can be read (the file-object protocol)."""
        return True

    def __iter__(self) -> Iterator[bytes]:
        """Yield the rest of the body in chunks of at most ``chunk_size``."""
        read = self._read_some
        size = self.chunk_size
        while data := read(size):
            yield data

    def __repr__(self) -> str:
        return f"<InputStream read={self._count} length={self.content_length}>"
