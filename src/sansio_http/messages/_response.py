"""The sans-IO ``Response`` and ``make_conditional``.

A :class:`Response` is a status, header fields and a body held as values. It never
writes anything: an adapter reads :attr:`Response.status_line` (or
:attr:`~Response.status` and :attr:`~Response.reason`), :meth:`Response.raw_headers`
and :attr:`Response.body`, and sends them. The body is one of

- ``bytes`` (a ``str`` is encoded by the charset of the content type, UTF-8 by
  default), whose length goes into ``Content-Length``;
- a sync iterable or an async iterable of ``bytes``, streamed as it is;
- a :class:`~sansio_http.FileBody`, a path and regions the adapter opens and reads.

A 1xx, 204 or 304 response has no content (RFC 9110 §15.2, §15.3.5, §15.4.5): its
body is always ``b""``, and a body given to one is refused, not dropped.
:meth:`Response.content_allowed` tells an adapter whether to send the body at all
(never in answer to HEAD).

Cookie serialisation lives in :mod:`sansio_http.http._cookies` and the rules of
conditional requests in :mod:`sansio_http.messages._conditional`, below this module;
this module builds their answers. Responses for redirections and files are built
above it, in ``_redirect`` and ``_file_response``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable, Mapping
from typing import ClassVar, Final, TypeAlias, TypeVar

from sansio_http.http import (
    DEFAULT_MAX_RANGES,
    parse_options_header,
)
from sansio_http.http._headers import Headers, MutableHeaders
from sansio_http.http._status import reason_phrase
from sansio_http.messages._conditional import RequestHead, conditional_answer
from sansio_http.messages._files import FileBody
from sansio_http.messages._response_fields import (
    CONTENT_TYPES,
    FRAMING_FIELDS,
    NO_BODY_FIX,
    SMALL_LENGTHS,
    STATUS_LINES,
    TEXT_PLAIN,
    TEXT_PLAIN_FIELD,
    VALID_STATUSES,
    body_refused,
    checked_status,
    content_allowed,
    content_refused,
    content_type_field,
    has_no_length,
    length_field,
    with_charset,
)
from sansio_http.messages._response_headers import _HeaderMethods

__all__ = [
    "Body",
    "HeadersInput",
    "Response",
    "body_chunk",
    "content_allowed",
    "make_conditional",
]

#: What :attr:`Response.body` holds.
Body: TypeAlias = bytes | Iterable[bytes | str] | AsyncIterable[bytes | str] | FileBody
#: Work to run after the response: a function of no arguments, plain or async.
CloseWork = TypeVar("CloseWork", bound=Callable[[], object])
#: What a response's ``headers`` argument may be: anything ``Headers`` accepts.
HeadersInput: TypeAlias = (
    Headers | Iterable[tuple[bytes, bytes]] | Iterable[tuple[str, str]] | Mapping[str, str]
)


# PERF: CPython 3.11 compiles a method call on a name bound by an import as an
# attribute load that makes a bound method each time (no LOAD_METHOD); the bound
# methods are taken once here.
_known_content_type: Final = CONTENT_TYPES.get
_status_line_of: Final = STATUS_LINES.get


class Response(_HeaderMethods):
    """A response as values: status, header fields and a body to send.

    Args:
        body: ``bytes``; a ``str``, encoded by the charset of the content type
            (UTF-8 by default); a sync or async iterable of ``bytes``; or a
            :class:`~sansio_http.FileBody`. A ``bytearray`` or ``memoryview``
            is copied to ``bytes``. A dict, or a list or tuple of values that
            are not chunks, is refused: it is meant for
            :class:`~sansio_http.JSONResponse`.
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

    # PERF: ``_close_work`` is left unset by the constructor, which stays as fast
    # as before. Reading an unset slot raises (getattr with a default costs
    # ~150 ns then), so adapters look first at ``_close_work_used``, which turns
    # True for good the first time any response gets work.
    __slots__ = ("_body", "_close_work", "_fields", "_headers", "_status")

    _close_work_used: ClassVar[bool] = False

    _body: Body
    _status: int
    _close_work: list[Callable[[], object]]
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
        if status.__class__ is not int or status not in VALID_STATUSES:
            status = checked_status(status)
        self._status = status
        if headers is None and content_type is not None and type(body) in (str, bytes):
            # PERF: a content type given alone is checked and encoded once per distinct
            # value (the generic path parses it, and sets two fields, for each response).
            known = _known_content_type(content_type)
            if known is None:
                known = content_type_field(content_type)
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
            if has_no_length(status):
                if data:
                    raise content_refused(status, NO_BODY_FIX)
                self._fields = [field]
            else:
                size = len(data)
                self._fields = [field, SMALL_LENGTHS[size] if size < 1024 else length_field(size)]
            return
        if headers is None and content_type is None:
            # PERF: the common Response("text") and Response(b"data") skip the generic
            # path: their fields are known to be valid, so they are stored encoded.
            if type(body) is str:
                data = body.encode()
                self._body = data
                self._headers = None
                if status == 200 or not has_no_length(status):
                    # PERF: length_field's table read inline.
                    size = len(data)
                    self._fields = [
                        TEXT_PLAIN_FIELD,
                        SMALL_LENGTHS[size] if size < 1024 else length_field(size),
                    ]
                elif data:
                    raise content_refused(status, NO_BODY_FIX)
                else:
                    self._fields = [TEXT_PLAIN_FIELD]
                return
            if type(body) is bytes:
                self._body = body
                self._headers = None
                if not has_no_length(status):
                    size = len(body)
                    self._fields = [SMALL_LENGTHS[size] if size < 1024 else length_field(size)]
                elif body:
                    raise content_refused(status, NO_BODY_FIX)
                else:
                    self._fields = []
                return
        self._fields = []
        self._headers = fields_ = MutableHeaders(headers)
        if content_type is not None:
            fields_["content-type"] = with_charset(content_type)
        elif isinstance(body, str) and "content-type" not in fields_:
            fields_["content-type"] = TEXT_PLAIN
        # A Content-Length the caller gave for a stream is kept: it knows the length.
        # So is one given for a 304: RFC 9110 §8.6 lets it state the length of the 200.
        self._set_body(body, keep_length=True)

    # -- status -------------------------------------------------------------------------

    @property
    def status(self) -> int:
        """The status code, 100 to 599; setting it validates the new code.

        Setting 1xx, 204 or 304 needs the body ``b""`` (a ``ValueError``
        otherwise) and removes Content-Length; setting another status on such
        a response adds ``Content-Length: 0``.
        """
        return self._status

    @status.setter
    def status(self, status: int) -> None:
        status = checked_status(status)
        body = self._body
        if has_no_length(status):
            if not isinstance(body, bytes) or body:
                raise content_refused(status, "set response.body = b'' before the status")
            if not has_no_length(self._status):
                # RFC 9110 §8.6: none in a 1xx or 204; in a 304 it would state the length
                # of the 200, not that of the empty body.
                self.headers.remove("content-length")
        elif has_no_length(self._status):
            # Back from a status without content, whose body is always b"": the empty
            # body has a length again.
            self.headers["content-length"] = "0"
        self._status = status

    @property
    def reason(self) -> str:
        """The reason phrase of :attr:`status`, from our RFC 9110 table."""
        return reason_phrase(self._status)

    @property
    def status_line(self) -> str:
        """The status as WSGI's ``start_response`` wants it, such as ``"200 OK"``."""
        line = _status_line_of(self._status)
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

        A 1xx or 204 response leaves out Content-Length and
        Transfer-Encoding even when they were set in :attr:`headers`: RFC 9110
        §8.6 and RFC 9112 §6.1 forbid them there.

        Returns:
            A new list of ``(name, value)`` pairs, ready for ASGI's
            ``headers``, h11 or an HTTP/1.1 writer.
        """
        headers = self._headers
        if headers is None:
            return self._fields.copy()  # PERF: no Headers object was ever needed
        fields = headers.raw()
        status = self._status
        if status < 200 or status == 204:
            # PERF: a loop that finds nothing costs less than a copy without them.
            for name, _ in fields:
                if name in FRAMING_FIELDS:
                    return [field for field in fields if field[0] not in FRAMING_FIELDS]
        return fields

    def content_allowed(self, method: str) -> bool:
        """Tell whether this response may carry content for a request method.

        False for a 1xx, 204 or 304, for any answer to ``HEAD`` and for a 2xx
        answer to ``CONNECT`` (RFC 9110 §6.4.1). Adapters send the header
        fields and skip the body when it is false. An adapter that holds only
        a status, not a Response, asks the function of the same name in this
        module: ``content_allowed(status, method)``.

        Args:
            method: The request method, such as ``request.method``.
        """
        return content_allowed(self._status, method)

    @property
    def content_type(self) -> str | None:
        """The Content-Type header, or ``None``; ``None`` removes it when set."""
        return self.headers.get("content-type")

    @content_type.setter
    def content_type(self, value: str | None) -> None:
        if value is None:
            self.headers.remove("content-type")
        else:
            self.headers["content-type"] = with_charset(value)

    # -- body ---------------------------------------------------------------------------

    @property
    def body(self) -> Body:
        """The body: bytes, an iterable or async iterable of bytes, or a FileBody.

        Setting it accepts a ``str`` too (encoded by the charset of the content
        type) and updates Content-Length: to the new length when it is known,
        else by removing it. A 1xx, 204 or 304 response takes only ``b""``
        (or ``""``); anything else raises ``ValueError``. What the constructor
        refuses (a dict, say) raises ``TypeError`` and leaves the body as it was.
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
        else:
            # NOTE: a dict, or a list of JSON values, is iterable too, yet no stream of
            # chunks: it is refused here, naming the fix, not when it is sent.
            refused = body_refused(data)
            if refused is not None:
                raise refused
            length = None
        status = self._status
        if has_no_length(status):
            if length != 0 or not isinstance(data, bytes):
                raise content_refused(status, NO_BODY_FIX)
            self._body = data
            # A 1xx or 204 never sends Content-Length (raw_headers leaves it out); a 304
            # keeps one the caller gave (RFC 9110 §8.6).
            if not keep_length:
                self.headers.remove("content-length")
            return
        self._body = data
        headers = self.headers
        if length is not None:
            headers["content-length"] = str(length)
        elif not keep_length:
            headers.remove("content-length")

    # -- work after the response ------------------------------------------------------

    def call_on_close(self, func: CloseWork) -> CloseWork:
        """Run ``func()`` once the response has been sent, whatever happened.

        Use it for work the client need not wait for: sending an e-mail,
        writing an audit record. Functions run in the order registered,
        after the last byte was handed to the server, and also after an
        answer to HEAD, after a failure once the head was sent, and after the
        client went away; on every path after the body is closed (a
        producer's ``finally`` has run). A ``def`` function runs in a worker
        thread under ASGI (the App's thread pool), from the WSGI iterable's
        ``close()`` under WSGI (or, when a ``def`` producer of keep-alives
        is inside a step as the client leaves, from the thread that runs
        it, once that step returned); an ``async def`` one is awaited on
        the event loop under ASGI, run on an event loop of its own under
        WSGI. An exception is logged with the request line on the adapter's
        logger (``sansio_http.wsgi`` or ``sansio_http.asgi``), and the next
        function still runs: the response is gone, nothing answers it again.

        The work belongs to this response: a middleware that replaces the
        response passes it on with ``new.call_on_close`` if it wants it run
        (:func:`make_conditional` passes it on to the answer it makes).

        Args:
            func: A function of no arguments, ``def`` or ``async def``
                (use :func:`functools.partial` to bind some).

        Returns:
            ``func``, so that the method can decorate a function.

        Example:
            >>> response = Response("saved")
            >>> @response.call_on_close
            ... def notify() -> None:
            ...     print("sent")
        """
        if not callable(func):
            raise TypeError(
                f"call_on_close() takes a function of no arguments, not {type(func).__name__}"
            )
        try:
            self._close_work.append(func)
        except AttributeError:
            self._close_work = [func]
            Response._close_work_used = True
        return func

    # -- cookies ------------------------------------------------------------------------

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
       Then a ``Range`` on a GET gives 206 with ``Content-Range`` for one range, a
       ``multipart/byteranges`` 206 for several, and 416 with
       ``Content-Range: bytes */length`` when none is satisfiable. Ranges
       that overlap or touch are merged and sent in ascending order, as
       RFC 9110 §14.2 allows; a ``FileBody`` is narrowed, never read. A
       HEAD ignores ``Range`` (§14.2: GET is the only method with range
       handling) and gets the fields of the 200.

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

    A new response carries the work of the original's
    :meth:`~Response.call_on_close`, in order, so it runs whichever of the
    two is sent (send one, not both). When the answer replaces a streamed
    body (a 304 or 412 to a stream), closing that body (``close()``, or
    ``aclose()`` for an async one) comes first in that work: it runs once,
    after the answer is sent, as the adapter runs any work after the
    response.

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
    answered = Response(body, status, fields)
    replaced = response.body
    if body is not replaced and not isinstance(replaced, (bytes, FileBody)):
        # A stream that a 304 or 412 replaces is never sent, yet must be closed
        # once. The core does no I/O: closing it is the answer's first work
        # after the response, which the adapter runs once the answer's own body
        # (b"") is closed, as it runs any work (a sync close in a thread under
        # ASGI, an async one on an event loop of its own under WSGI).
        closer = _closer_of(replaced)
        if closer is not None:
            answered.call_on_close(closer)
    if Response._close_work_used:
        # The original's work goes with the answer, in order: the answer is what
        # is sent. A copy, so that work added to either later stays its own.
        for func in getattr(response, "_close_work", None) or ():
            answered.call_on_close(func)
    return answered


def _closer_of(body: object) -> Callable[[], object] | None:
    """Return a function that closes ``body`` once, or None if it has no close."""
    aclose = getattr(body, "aclose", None)
    if aclose is not None:
        closed = False

        async def close_async_body() -> None:
            nonlocal closed
            if not closed:
                closed = True
                await aclose()

        return close_async_body
    close = getattr(body, "close", None)
    if close is None or not callable(close):
        return None
    closed = False

    def close_body() -> None:
        nonlocal closed
        if not closed:
            closed = True
            close()

    return close_body


def body_chunk(chunk: object) -> bytes:
    """Return one bytes-like chunk as ``bytes``, or say what is wrong.

    Text is refused here, where no charset is known: the adapters encode the
    ``str`` chunks of a streamed body themselves, with the response's
    charset (``messages._chunks.ChunkEncoder``).

    Raises:
        TypeError: The chunk is not bytes-like (a ``str``, say).
    """
    if isinstance(chunk, (bytes, bytearray, memoryview)):
        return bytes(chunk)
    raise TypeError(
        f"a response body yields bytes, not {type(chunk).__name__}, where no charset is "
        "known: return text in a response, whose adapter encodes it with the response's "
        "charset, and convert other values first (JSON with json.dumps, say)"
    )
