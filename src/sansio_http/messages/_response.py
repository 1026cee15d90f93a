"""The sans-IO ``Response``, ``JSONResponse`` and ``make_conditional``.

A :class:`Response` is a status, header fields and a body held as values. It never
writes anything: an adapter reads :attr:`Response.status_line` (or
:attr:`~Response.status` and :attr:`~Response.reason`), :meth:`Response.raw_headers`
and :attr:`Response.body`, and sends them. The body is one of

- ``bytes`` (a ``str`` is encoded by the charset of the content type, UTF-8 by
  default), whose length goes into ``Content-Length``;
- a sync iterable or an async iterable of ``bytes``, streamed as it is;
- a :class:`~sansio_http.FileBody`, a path and regions the adapter opens and reads.

Cookie serialisation lives in :mod:`sansio_http.http._cookies` and the rules of
conditional requests in :mod:`sansio_http.messages._conditional`, below this module;
this module builds their answers. Responses for redirections and files are built
above it, in ``_redirect`` and ``_file_response``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Final, TypeAlias

from sansio_http.http import (
    DEFAULT_MAX_RANGES,
    http_date,
    parse_date,
    parse_options_header,
    quote_etag,
    unquote_etag,
)
from sansio_http.http._cookies import EPOCH, SameSite, dump_cookie
from sansio_http.http._headers import Headers, MutableHeaders
from sansio_http.http._status import PHRASES, reason_phrase
from sansio_http.messages._conditional import RequestHead, conditional_answer
from sansio_http.messages._files import FileBody

__all__ = [
    "Body",
    "HeadersInput",
    "JSONResponse",
    "Response",
    "body_chunk",
    "make_conditional",
]

#: What :attr:`Response.body` holds.
Body: TypeAlias = bytes | Iterable[bytes] | AsyncIterable[bytes] | FileBody
#: What a response's ``headers`` argument may be: anything ``Headers`` accepts.
HeadersInput: TypeAlias = (
    Headers | Iterable[tuple[bytes, bytes]] | Iterable[tuple[str, str]] | Mapping[str, str]
)

_TEXT_PLAIN: Final = "text/plain; charset=utf-8"
_TEXT_PLAIN_FIELD: Final = (b"content-type", b"text/plain; charset=utf-8")
_JSON_FIELD: Final = (b"content-type", b"application/json")
# PERF: the status lines of registered codes are built once.
_STATUS_LINES: Final = {code: f"{code} {phrase}" for code, phrase in PHRASES.items()}


def _checked_status(status: int) -> int:
    # bool is an int subclass, and Response(True) is a bug, not a 1xx.
    if not isinstance(status, int) or isinstance(status, bool):
        raise TypeError(f"status must be an int, not {type(status).__name__}")
    # RFC 9110 §15: a status code is three digits, 100 to 599.
    if not 100 <= status <= 599:
        raise ValueError(f"status must be between 100 and 599, got {status}")
    return int(status)


# PERF: the Content-Length fields of small bodies, made once; formatting one per
# response costs more than the rest of a small response's fields.
_SMALL_LENGTHS: Final = tuple((b"content-length", b"%d" % size) for size in range(1024))


def _length_field(size: int) -> tuple[bytes, bytes]:
    return _SMALL_LENGTHS[size] if size < 1024 else (b"content-length", b"%d" % size)


def _has_no_length(status: int) -> bool:
    # RFC 9110 §8.6: no Content-Length in a 1xx or 204; in a 304 it would have to be
    # the length of the 200 that was not sent, which only the caller knows.
    return status < 200 or status == 204 or status == 304


def _with_charset(content_type: str) -> str:
    if content_type[:5].lower() != "text/":
        return content_type  # PERF: only text types are parsed
    mimetype, params = parse_options_header(content_type)
    if mimetype.startswith("text/") and "charset" not in params:
        # A text type without a charset is read as US-ASCII or sniffed (RFC 2046 §4.1.2);
        # say that what we send is UTF-8.
        return content_type + "; charset=utf-8"
    return content_type


# The encoded Content-Type field and the charset of each content type given to a
# Response alone, so that each distinct value is checked and parsed once. Bounded:
# applications use a handful, and one that made them from input cannot grow it.
_CONTENT_TYPES: dict[str, tuple[tuple[bytes, bytes], str]] = {}
_MAX_CONTENT_TYPES: Final = 64


def _content_type_field(content_type: str) -> tuple[tuple[bytes, bytes], str]:
    """Return the encoded Content-Type field of ``content_type``, and its charset.

    Raises:
        TypeError: ``content_type`` is not a ``str``.
        HeaderValueError: It cannot be sent (CR, LF, NUL, or not latin-1).
    """
    value = _with_charset(content_type)
    checked = MutableHeaders()
    checked["content-type"] = value  # the checks of every header field
    charset = parse_options_header(value)[1].get("charset") or "utf-8"
    known = (checked.raw()[0], charset)
    if len(_CONTENT_TYPES) < _MAX_CONTENT_TYPES:
        _CONTENT_TYPES[content_type] = known
    return known


class Response:
    """A response as values: status, header fields and a body to send.

    Args:
        body: ``bytes``; a ``str``, encoded by the charset of the content type
            (UTF-8 by default); a sync or async iterable of ``bytes``; or a
            :class:`~sansio_http.FileBody`.
        status: The status code, 100 to 599.
        headers: Initial header fields, in any form
            :class:`~sansio_http.Headers` accepts; they are copied.
        content_type: The Content-Type; a ``text/*`` type without a charset
            gets ``; charset=utf-8``. A ``str`` body without one is sent as
            ``text/plain; charset=utf-8``.

    Raises:
        TypeError: The body or status has the wrong type.
        ValueError: The status is out of range, a header cannot be sent
            (:class:`~sansio_http.HeaderValueError`), or a ``str`` body cannot
            be encoded by its charset.

    Example:
        >>> response = Response("hello")
        >>> response.status_line, response.raw_headers()
        ('200 OK', [(b'content-type', b'text/plain; charset=utf-8'), (b'content-length', b'5')])
    """

    __slots__ = ("_body", "_fields", "_headers", "_status")

    _body: Body
    _status: int
    # PERF: a response built without headers keeps its few fields here, already
    # encoded, and builds its MutableHeaders only when ``headers`` is first read;
    # from then on ``_headers`` is the truth and ``_fields`` is unused.
    _fields: list[tuple[bytes, bytes]]
    _headers: MutableHeaders | None

    def __init__(
        self,
        body: Body | str = b"",
        status: int = 200,
        headers: HeadersInput | None = None,
        content_type: str | None = None,
    ) -> None:
        if type(status) is not int or not 100 <= status <= 599:
            status = _checked_status(status)
        self._status = status
        if headers is None and content_type is not None and type(body) in (str, bytes):
            # PERF: a content type given alone is checked and encoded once per distinct
            # value (the generic path parses it, and sets two fields, for each response).
            known = _CONTENT_TYPES.get(content_type)
            if known is None:
                known = _content_type_field(content_type)
            field, charset = known
            if type(body) is str:
                try:
                    data = body.encode(charset)
                except LookupError as exc:
                    raise ValueError(f"unknown charset {charset!r} in the content type") from exc
            else:
                data = body  # type: ignore[assignment]
            self._body = data
            self._headers = None
            self._fields = [field] if _has_no_length(status) else [field, _length_field(len(data))]
            return
        if headers is None and content_type is None:
            # PERF: the common Response("text") and Response(b"data") skip the generic
            # path: their fields are known to be valid, so they are stored encoded.
            if type(body) is str:
                data = body.encode()
                self._body = data
                self._headers = None
                self._fields = (
                    [_TEXT_PLAIN_FIELD, _length_field(len(data))]
                    if status == 200 or not _has_no_length(status)
                    else [_TEXT_PLAIN_FIELD]
                )
                return
            if type(body) is bytes:
                self._body = body
                self._headers = None
                self._fields = [] if _has_no_length(status) else [_length_field(len(body))]
                return
        self._fields = []
        self._headers = fields_ = MutableHeaders(headers)
        if content_type is not None:
            fields_["content-type"] = _with_charset(content_type)
        elif isinstance(body, str) and "content-type" not in fields_:
            fields_["content-type"] = _TEXT_PLAIN
        # A Content-Length the caller gave for a stream is kept: it knows the length.
        self._set_body(body, keep_length=True)

    # -- status -------------------------------------------------------------------------

    @property
    def status(self) -> int:
        """The status code, 100 to 599; setting it validates the new code."""
        return self._status

    @status.setter
    def status(self, status: int) -> None:
        self._status = _checked_status(status)

    @property
    def reason(self) -> str:
        """The reason phrase of :attr:`status`, from our RFC 9110 table."""
        return reason_phrase(self._status)

    @property
    def status_line(self) -> str:
        """The status as WSGI's ``start_response`` wants it, such as ``"200 OK"``."""
        line = _STATUS_LINES.get(self._status)
        return f"{self._status} {self.reason}" if line is None else line

    # -- headers ------------------------------------------------------------------------

    @property
    def headers(self) -> MutableHeaders:
        """The header fields; CR, LF and NUL are refused when a field is set."""
        headers = self._headers
        if headers is None:
            headers = self._headers = MutableHeaders(self._fields)
            self._fields = []
        return headers

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """Return the header fields to send, as lower-case bytes pairs.

        Returns:
            A new list of ``(name, value)`` pairs, ready for ASGI's
            ``headers``, h11 or an HTTP/1.1 writer.
        """
        headers = self._headers
        if headers is None:
            return self._fields.copy()  # PERF: no Headers object was ever needed
        return headers.raw()

    @property
    def content_type(self) -> str | None:
        """The Content-Type header, or ``None``; ``None`` removes it when set."""
        return self.headers.get("content-type")

    @content_type.setter
    def content_type(self, value: str | None) -> None:
        if value is None:
            self.headers.remove("content-type")
        else:
            self.headers["content-type"] = _with_charset(value)

    # -- body ---------------------------------------------------------------------------

    @property
    def body(self) -> Body:
        """The body: bytes, an iterable or async iterable of bytes, or a FileBody.

        Setting it accepts a ``str`` too (encoded by the charset of the content
        type) and updates Content-Length: to the new length when it is known,
        else by removing it.
        """
        return self._body

    @body.setter
    def body(self, body: Body | str) -> None:
        self._set_body(body, keep_length=False)

    def _charset(self) -> str:
        content_type = self.headers.get("content-type")
        if content_type is None:
            return "utf-8"
        return parse_options_header(content_type)[1].get("charset") or "utf-8"

    def _set_body(self, body: Body | str, *, keep_length: bool) -> None:
        data: Body
        length: int | None
        if isinstance(body, str):
            charset = self._charset()
            try:
                data = body.encode(charset)
            except LookupError as exc:
                raise ValueError(f"unknown charset {charset!r} in the content type") from exc
        elif isinstance(body, (bytearray, memoryview)):
            data = bytes(body)
        else:
            data = body
        if isinstance(data, bytes):
            length = len(data)
        elif isinstance(data, FileBody):
            length = data.content_length
        elif isinstance(data, (Iterable, AsyncIterable)):
            length = None
        else:
            raise TypeError(
                "a body is bytes, str, an iterable or async iterable of bytes, or a FileBody,"
                f" not {type(data).__name__}"
            )
        self._body = data
        headers = self.headers
        if length is not None and not _has_no_length(self._status):
            headers["content-length"] = str(length)
        elif not keep_length:
            headers.remove("content-length")

    # -- cookies ------------------------------------------------------------------------

    def set_cookie(
        self,
        key: str,
        value: str = "",
        *,
        max_age: int | timedelta | None = None,
        expires: datetime | float | None = None,
        path: str | None = "/",
        domain: str | None = None,
        secure: bool = False,
        httponly: bool = False,
        samesite: SameSite | None = None,
        partitioned: bool = False,
    ) -> None:
        """Add a Set-Cookie field; see :func:`~sansio_http.dump_cookie`.

        Args:
            key: The cookie name, an RFC 9110 token.
            value: The cookie value; quoted with escapes if it needs to be.
            max_age: Seconds until the cookie expires, sent as Max-Age only
                (an Expires date for it would need the current time).
            expires: When it expires: a ``datetime`` or a POSIX timestamp.
            path: The path it applies to; ``None`` omits the attribute.
            domain: The domain it applies to; ``None`` keeps it to this host.
            secure: Send it over HTTPS only.
            httponly: Hide it from scripts.
            samesite: ``"Strict"``, ``"Lax"`` or ``"None"`` (needs ``secure``).
            partitioned: Partition it by top-level site (needs ``secure``).

        Raises:
            ValueError: The cookie or an attribute is invalid.
        """
        self.headers.add(
            "set-cookie",
            dump_cookie(
                key,
                value,
                max_age=max_age,
                expires=expires,
                path=path,
                domain=domain,
                secure=secure,
                httponly=httponly,
                samesite=samesite,
                partitioned=partitioned,
            ),
        )

    def delete_cookie(
        self,
        key: str,
        *,
        path: str | None = "/",
        domain: str | None = None,
        secure: bool = False,
        httponly: bool = False,
        samesite: SameSite | None = None,
        partitioned: bool = False,
    ) -> None:
        """Add a Set-Cookie field that makes the client drop a cookie.

        A browser replaces a cookie only when name, path and domain (and the
        partition) match, so pass the values the cookie was set with.

        Args:
            key: The cookie name.
            path: The path the cookie was set for.
            domain: The domain the cookie was set for.
            secure: Whether the cookie was Secure (a ``__Secure-`` or
                ``__Host-`` cookie must be).
            httponly: Whether the cookie was HttpOnly.
            samesite: The cookie's SameSite value.
            partitioned: Whether the cookie was Partitioned.

        Raises:
            ValueError: The name or an attribute is invalid.
        """
        # Max-Age=0 expires it at once (RFC 6265 §5.2.2); Expires at the epoch does the
        # same for clients that predate Max-Age, without reading a clock.
        self.set_cookie(
            key,
            max_age=0,
            expires=EPOCH,
            path=path,
            domain=domain,
            secure=secure,
            httponly=httponly,
            samesite=samesite,
            partitioned=partitioned,
        )

    # -- validators ---------------------------------------------------------------------

    @property
    def etag(self) -> tuple[str | None, bool]:
        """The ETag as ``(tag, is_weak)``; ``(None, False)`` when there is none."""
        return unquote_etag(self.headers.get("etag"))

    def set_etag(self, etag: str, weak: bool = False) -> None:
        """Set the ETag header from an unquoted entity tag.

        Args:
            etag: The opaque tag, without quotes or ``W/``.
            weak: Mark the tag weak (RFC 9110 §8.8.1).

        Raises:
            ValueError: The tag holds a double quote, a space or a control
                character, which RFC 9110 §8.8.3 does not allow.
        """
        self.headers["etag"] = quote_etag(etag, weak)

    @property
    def last_modified(self) -> datetime | None:
        """The Last-Modified date, aware in UTC; set a datetime, timestamp or None.

        A naive datetime is taken as UTC; ``None`` removes the header, as does
        reading an unparsable date as ``None``.
        """
        value = self.headers.get("last-modified")
        return None if value is None else parse_date(value)

    @last_modified.setter
    def last_modified(self, value: datetime | float | None) -> None:
        if value is None:
            self.headers.remove("last-modified")
            return
        self.headers["last-modified"] = http_date(value)

    def make_conditional(self, request: RequestHead) -> Response:
        """Answer a conditional or range request from this response.

        Args:
            request: The request being answered; only its method and headers
                are read.

        Returns:
            ``self``, or a new 304, 412, 206 or 416 response (RFC 9110 §13);
            see :func:`~sansio_http.make_conditional`.
        """
        return make_conditional(self, request)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.status_line!r} {self.content_type!r}>"


# PERF: json.dumps builds a new encoder for every call that passes options; these two
# are built once. Compact separators and UTF-8 text, as RFC 8259 §8.1 asks of JSON
# exchanged between systems.
_JSON_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_ASCII_JSON_ENCODER: Final = json.JSONEncoder(separators=(",", ":"))


def _dump_json(data: Any) -> bytes:
    text = _JSON_ENCODER.encode(data)
    try:
        return text.encode()
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8; as an escape it is still valid JSON text.
        return _ASCII_JSON_ENCODER.encode(data).encode()


class JSONResponse(Response):
    """A response whose body is ``data`` as JSON, sent as application/json.

    Args:
        data: What to serialise.
        status: The status code.
        headers: Initial header fields.
        dumps: A function that serialises ``data`` to ``str`` or ``bytes``
            (for example ``orjson.dumps``); by default the standard library's
            ``json.dumps`` with compact separators, keeping non-ASCII text.

    Raises:
        TypeError: ``data`` cannot be serialised by the default ``dumps``.
    """

    __slots__ = ()

    def __init__(
        self,
        data: Any,
        status: int = 200,
        headers: HeadersInput | None = None,
        *,
        dumps: Callable[[Any], str | bytes] | None = None,
    ) -> None:
        if dumps is None:
            body = _dump_json(data)
        else:
            text = dumps(data)
            body = text.encode() if isinstance(text, str) else text
        if headers is not None or type(body) is not bytes:
            # RFC 8259 §11: application/json has no charset parameter; it is UTF-8.
            super().__init__(body, status, headers, "application/json")
            return
        # PERF: without headers, the fields are known to be valid: store them encoded, as
        # Response does for text.
        if type(status) is not int or not 100 <= status <= 599:
            status = _checked_status(status)
        self._status = status
        self._body = body
        self._headers = None
        self._fields = (
            [_JSON_FIELD] if _has_no_length(status) else [_JSON_FIELD, _length_field(len(body))]
        )


def make_conditional(
    response: Response, request: RequestHead, *, max_ranges: int = DEFAULT_MAX_RANGES
) -> Response:
    """Answer a conditional or range request from a response.

    The rules, in the order of RFC 9110 §13.2.2:

    1. A response other than 2xx is returned as it is (§13.2.1).
    2. ``If-Match`` (strong comparison) failing, or, without it,
       ``If-Unmodified-Since`` older than ``Last-Modified``: 412.
    3. ``If-None-Match`` (weak comparison) matching: 304 for GET and HEAD,
       412 for other methods. Without it, for GET and HEAD,
       ``If-Modified-Since`` not older than ``Last-Modified``: 304. This
       holds whether or not a ``Range`` header is present.
    4. A 200 to GET or HEAD whose body has a known length (``bytes`` or a
       :class:`~sansio_http.FileBody` with a ``content_length``) is range
       capable: it gets ``Accept-Ranges: bytes`` and ``Content-Length``.
       Then a ``Range`` gives 206 with ``Content-Range`` for one range, a
       ``multipart/byteranges`` 206 for several, and 416 with
       ``Content-Range: bytes */length`` when none is satisfiable. Ranges
       that overlap or touch are merged and sent in ascending order, as
       RFC 9110 §14.2 allows; a ``FileBody`` is narrowed, never read.

    The full 200 is sent instead of a 206 when ``If-Range`` does not match
    (a weak or different ETag, a date other than ``Last-Modified``), when
    ``Range`` is malformed or not in bytes, when the body is empty, when it
    asks for more than ``max_ranges`` ranges, or when its ranges add up to
    more bytes than the body (overlaps, as in CVE-2011-3192). Streamed
    bodies and responses with ``Accept-Ranges: none`` get no 206.

    A 304 keeps only :data:`NOT_MODIFIED_HEADERS`. A 412 or 416 keeps the
    same headers (416 adds ``Content-Range``) and has an empty body, typed
    ``text/plain; charset=utf-8`` so that it passes ``wsgiref.validate``; the
    client can refresh its validators. Validators are read from the
    response's ``ETag`` and ``Last-Modified`` headers. The answer depends
    on nothing else (no clock, no randomness): the same request gets the
    same bytes under every adapter.

    Args:
        response: The response the request would get unconditionally.
        request: The request; only ``method`` and ``headers`` are read.
        max_ranges: The most ranges one request may ask for.

    Returns:
        ``response`` itself when nothing changes, else a new response.
    """
    answer = conditional_answer(
        response.status, response.headers, response.body, request, max_ranges=max_ranges
    )
    if answer is None:
        return response
    # NOTE: a plain Response, whatever the class of the original: what is sent is
    # the same. Its constructor sets Content-Length from a sized body, none on a 304.
    status, body, fields = answer
    return Response(body, status, fields)


def body_chunk(chunk: object) -> bytes:
    """Return one chunk of a streamed body as ``bytes``, or say what is wrong.

    Both adapters check every chunk with this, so an application that yields
    text gets the same message under WSGI and ASGI.

    Raises:
        TypeError: The chunk is not bytes-like (a ``str``, say).
    """
    if isinstance(chunk, (bytes, bytearray, memoryview)):
        return bytes(chunk)
    raise TypeError(
        f"a response body yields bytes, not {type(chunk).__name__}: encode text "
        "before yielding it (chunk.encode())"
    )
