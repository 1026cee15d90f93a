"""``ClientResponse``: what the application answered, read whole or streamed.

A response holds its status and header fields as soon as the application
started it; the body arrives from the driver chunk by chunk. ``content``,
``text`` and ``json()`` read it all, while ``iter_bytes()`` hands the chunks
over as the application produces them (after ``Client.stream()``). All of
them undo the ``Content-Encoding`` (gzip, deflate), as httpx does;
``raw_content`` and ``iter_raw()`` give the bytes as they were sent.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any

from sansio_http.http import parse_options_header
from sansio_http.http._headers import Headers
from sansio_http.http._status import reason_phrase

from ._codings import body_decoder
from ._cookies import parse_set_cookie
from ._request import ClientRequest

__all__ = ["ClientResponse", "has_content"]

# RFC 9110 §15.4: the redirections that carry a Location to follow.
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def has_content(status: int) -> bool:
    """Return whether a response of this status may carry content.

    Args:
        status: The status code.

    Returns:
        False for a 1xx, 204 or 304 (RFC 9110 §15.2, §15.3.5, §15.4.5):
        a client reads no body after their head, whatever headers it has.
    """
    return status >= 200 and status != 204 and status != 304


class ClientResponse:
    """A response from the application under test.

    Args:
        status_code: The status code.
        headers: The header fields.
        request: The request this response answers.
        chunks: The body chunks, pulled as they are read.
        close: Called once when the response is closed: it finishes the
            application's side of the exchange.
        reason: The reason phrase; our RFC 9110 table's by default.
    """

    def __init__(
        self,
        status_code: int,
        headers: Headers,
        *,
        request: ClientRequest,
        chunks: Iterable[bytes] = (),
        close: Callable[[], None] | None = None,
        reason: str | None = None,
    ) -> None:
        #: The status code, such as 200.
        self.status_code = status_code
        #: The reason phrase, such as ``"OK"``.
        self.reason = reason or reason_phrase(status_code)
        #: The header fields, in the order the application sent them.
        self.headers = headers
        #: The request this response answers.
        self.request = request
        #: The responses of the redirects followed to get here, oldest first.
        self.history: list[ClientResponse] = []
        self._chunks = iter(chunks)
        self._on_close = close
        self._raw: bytes | None = None
        self._content: bytes | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"<ClientResponse [{self.status_code} {self.reason}]>"

    def __enter__(self) -> ClientResponse:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The URL that was requested."""
        return self.request.url

    @property
    def is_closed(self) -> bool:
        """Whether the exchange with the application is over."""
        return self._closed

    @property
    def is_redirect(self) -> bool:
        """Whether this is a redirection with a Location to follow."""
        return self.status_code in REDIRECT_STATUSES and "location" in self.headers

    def close(self) -> None:
        """End the exchange; an unread body is abandoned (a disconnect)."""
        if not self._closed:
            self._closed = True
            if self._on_close is not None:
                self._on_close()

    def iter_raw(self) -> Iterator[bytes]:
        """Yield the body chunks as the application sends them, still encoded.

        Yields:
            Each non-empty chunk; the whole body if it was read already.

        Raises:
            RuntimeError: The response was closed before its body was read.
        """
        if self._raw is not None:
            if self._raw:
                yield self._raw
            return
        if self._closed:
            raise RuntimeError("the response was closed before its body was read")
        received = []
        try:
            for chunk in self._chunks:
                if chunk:
                    received.append(chunk)
                    yield chunk
        except GeneratorExit:
            # An abandoned iterator: closing the response is the caller's
            # business (a with block), never the garbage collector's.
            raise
        except BaseException:
            self.close()
            raise
        self._raw = b"".join(received)
        self.close()

    def iter_bytes(self) -> Iterator[bytes]:
        """Yield the body chunks as the application sends them, decoded.

        The ``Content-Encoding`` is undone chunk by chunk (see ``content``).

        Yields:
            Each non-empty decoded piece; the whole content if it was read already.

        Raises:
            RuntimeError: The response was closed before its body was read.
            DecodingError: The body does not decode with its Content-Encoding.
        """
        if self._raw is not None:
            if content := self.content:
                yield content
            return
        decoder = body_decoder(self.headers.getlist("content-encoding"))
        for chunk in self.iter_raw():
            if data := decoder.feed(chunk):
                yield data
        if data := decoder.close():
            yield data

    def iter_text(self) -> Iterator[str]:
        """Yield the body as text, decoded incrementally with ``encoding``.

        Yields:
            Text pieces; a character split between chunks is kept whole.
        """
        decoder = codecs.getincrementaldecoder(self.encoding)(errors="replace")
        for chunk in self.iter_bytes():
            if text := decoder.decode(chunk):
                yield text
        if text := decoder.decode(b"", final=True):
            yield text

    def _read_raw(self) -> bytes:
        """Read the rest of the body, still encoded, and close the response."""
        if self._raw is None:
            return b"".join(self.iter_raw())
        return self._raw

    def read(self) -> bytes:
        """Read the rest of the body and close the response.

        Returns:
            The whole body, its ``Content-Encoding`` undone.

        Raises:
            DecodingError: The body does not decode with its Content-Encoding.
        """
        if self._content is None:
            decoder = body_decoder(self.headers.getlist("content-encoding"))
            self._content = decoder.feed(self._read_raw()) + decoder.close()
        return self._content

    @property
    def content(self) -> bytes:
        """The body, read whole, its ``Content-Encoding`` undone.

        ``gzip``, ``x-gzip`` and ``deflate`` (zlib-wrapped or raw) are
        decoded, the last coding listed first; decoding stops at a coding
        it does not know (``br``, ``zstd``), whose bytes are left as sent.
        The ``Content-Encoding`` and ``Content-Length`` fields stay as the
        application sent them.

        Raises:
            DecodingError: The body does not decode with its Content-Encoding.
        """
        return self.read()

    @property
    def raw_content(self) -> bytes:
        """The body, read whole, as the application sent it (still encoded)."""
        return self._read_raw()

    @property
    def encoding(self) -> str:
        """The Content-Type charset if Python knows it, else UTF-8."""
        charset = parse_options_header(self.headers.get("content-type"))[1].get("charset")
        if charset:
            try:
                return codecs.lookup(charset).name
            except LookupError:
                pass
        return "utf-8"

    @property
    def text(self) -> str:
        """The body decoded with ``encoding``; invalid bytes become U+FFFD."""
        return self.content.decode(self.encoding, errors="replace")

    def json(self, **options: Any) -> Any:
        """Decode the body as JSON.

        Args:
            options: Passed to ``json.loads``.

        Returns:
            The decoded value.

        Raises:
            json.JSONDecodeError: The body is not JSON.
        """
        return json.loads(self.content, **options)

    @property
    def cookies(self) -> dict[str, str]:
        """The cookies this response set, by name, with decoded values."""
        found: dict[str, str] = {}
        for field in self.headers.getlist("set-cookie"):
            cookie = parse_set_cookie(field)
            if cookie is not None:
                found[cookie.name] = cookie.value
        return found
