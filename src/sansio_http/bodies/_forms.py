"""Form bodies decoded as they arrive: the event decoder, the collector and ``FormDecoder``.

:class:`FormEventDecoder` turns the chunks of an ``application/x-www-form-urlencoded`` or
``multipart/form-data`` body into events (``_formdata``); :class:`FormCollector` turns
events into :class:`FormData`, writing uploads to files the adapter's ``spool`` factory
makes; :class:`FormDecoder` does both. All of them enforce :class:`FormLimits` while being
fed. Nothing here performs I/O: the adapter reads the body and hands over the chunks.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping
from typing import Final

from sansio_http.bodies._formdata import (
    EndOfForm,
    Field,
    FileData,
    FileEnd,
    FileStart,
    FormData,
    FormEvent,
    FormLimits,
    Opener,
    SpoolFactory,
    SpoolFile,
    UploadedFile,
)
from sansio_http.bodies._multipart import MultipartDecoder
from sansio_http.http._multidict import ImmutableMultiDict
from sansio_http.http._parsers.options import Parameters, parse_options_header
from sansio_http.http._urlencoded import parse_urlencoded
from sansio_http.messages._errors import (
    BadRequest,
    ClientDisconnected,
    RequestEntityTooLarge,
    UnsupportedMediaType,
)

__all__ = ["FormCollector", "FormDecoder", "FormEventDecoder"]

URLENCODED: Final = "application/x-www-form-urlencoded"
MULTIPART: Final = "multipart/form-data"
_DEFAULT_LIMITS: Final = FormLimits()


# A urlencoded field: a non-empty piece between "&" separators (empty pieces are skipped).
_FIELD: Final = re.compile(b"[^&]+")


def _has_more_fields(data: bytes, room: int) -> bool:
    """Tell whether urlencoded data holds more than ``room`` fields."""
    # PERF: looks at no more than room + 1 fields, and keeps none of them.
    return any(count > room for count, _ in enumerate(_FIELD.finditer(data), 1))


class _UrlencodedDecoder:
    """Decode a urlencoded body field by field, across chunk boundaries."""

    __slots__ = (
        "_memory",
        "_memory_limit",
        "_parts",
        "_parts_limit",
        "_pending",
        "_pending_size",
        "pairs",
    )

    def __init__(self, limits: FormLimits) -> None:
        self._memory_limit = limits.max_form_memory_size
        self._parts_limit = limits.max_form_parts
        self._memory = 0
        self._parts = 0
        # The bytes after the last "&" seen so far: a field that may continue. A list, so
        # that a long value fed in small chunks is joined once rather than copied per chunk.
        self._pending: list[bytes] = []
        self._pending_size = 0
        #: Where fields go as pairs instead of Field events, when set (see MultipartDecoder).
        self.pairs: list[tuple[str, str]] | None = None

    def feed(self, chunk: bytes, events: list[FormEvent]) -> None:
        cut = chunk.rfind(b"&")
        if cut == -1:
            self._pending.append(chunk)
            self._pending_size += len(chunk)
            self._check_memory(self._memory + self._pending_size)
            return
        if self._pending:
            self._pending.append(chunk[:cut])
            complete = b"".join(self._pending)
        else:
            complete = chunk[:cut]
        rest = chunk[cut + 1 :]
        self._pending = [rest] if rest else []
        self._pending_size = len(rest)
        self._decode(complete, events)
        self._check_memory(self._memory + self._pending_size)

    def close(self, events: list[FormEvent]) -> None:
        if self._pending:
            self._decode(b"".join(self._pending), events)
            self._pending = []

    def _decode(self, data: bytes, events: list[FormEvent]) -> None:
        separators = data.count(b"&")
        # The separators cost no memory once decoded: a body of a million "&" holds nothing.
        self._memory += len(data) - separators
        self._check_memory(self._memory)
        limit = self._parts_limit
        # SECURITY: every limit is checked before the data is decoded. Decoding builds a
        # pair per field: a 2 MB chunk of "a&a&..." would cost 170 MiB of pairs before a
        # count after decoding could refuse it. When the separators say the limit may be
        # broken, the fields are counted first, up to one past the room left.
        if (
            limit is not None
            and self._parts + separators + 1 > limit
            and _has_more_fields(data, limit - self._parts)
        ):
            raise RequestEntityTooLarge(
                f"The form breaks max_form_parts: it has more than {limit} fields."
            )
        pairs = parse_urlencoded(data)
        self._parts += len(pairs)
        if self.pairs is None:
            events.extend([Field(name, value) for name, value in pairs])
        else:
            self.pairs.extend(pairs)

    def _check_memory(self, size: int) -> None:
        if self._memory_limit is not None and size > self._memory_limit:
            raise RequestEntityTooLarge(
                "The form breaks max_form_memory_size: "
                f"its fields take more than {self._memory_limit} bytes."
            )


class FormEventDecoder:
    """A push decoder that turns the chunks of a form body into events.

    Feed it the body in chunks of any size, then close it. ``feed`` returns
    the events the chunk completed: a :class:`~sansio_http.Field` for each
    complete text field, and for each file a
    :class:`~sansio_http.FileStart`, its :class:`~sansio_http.FileData` and
    a :class:`~sansio_http.FileEnd`. ``close`` returns the last events and
    then :class:`~sansio_http.EndOfForm`. Nothing is emitted for a field
    before it is complete, so a truncated body never yields a half field.

    Decoding errors are the client's: :class:`~sansio_http.BadRequest` (400)
    for a malformed or truncated body, :class:`~sansio_http.ClientDisconnected`
    (a 400) for a body shorter than its Content-Length, and
    :class:`~sansio_http.RequestEntityTooLarge` (413) for a broken limit,
    its detail naming the limit. After an error the decoder is closed.

    The answer, events or error, never depends on how the body is cut into
    chunks: a body longer than its Content-Length or than
    ``limits.max_content_length`` is decoded up to that length first, so a
    fault before it is the error whichever chunk crossed it.

    Args:
        content_type: The Content-Type header value; or, with ``params``, the
            media type alone (such as ``Request.mimetype``).
        params: The media type parameters (such as
            ``Request.mimetype_params``); None to parse them from
            ``content_type``. The parameters that ``Request`` and
            :func:`~sansio_http.http.parse_options_header` return remember
            the names given twice, so a multipart type that repeats one is
            refused; a plain mapping cannot say so.
        content_length: The Content-Length, if the request has one. A body
            that announces more than ``limits.max_content_length`` is refused
            at once, before any of it is read.
        limits: The limits to enforce; :class:`~sansio_http.FormLimits`
            defaults if None.

    Raises:
        UnsupportedMediaType: The media type is neither urlencoded nor
            multipart/form-data (415).
        BadRequest: A multipart type without a usable boundary, or with a
            repeated parameter.
        RequestEntityTooLarge: ``content_length`` is over the limit.
        ValueError: ``content_length`` is negative.
    """

    __slots__ = ("_closed", "_content_length", "_decoder", "_received", "_stop")

    def __init__(
        self,
        content_type: str,
        params: Mapping[str, str] | None = None,
        *,
        content_length: int | None = None,
        limits: FormLimits | None = None,
    ) -> None:
        if params is None:
            mimetype, params = parse_options_header(content_type)
        else:
            mimetype = content_type.strip().lower()
        if limits is None:
            limits = _DEFAULT_LIMITS
        if content_length is not None and content_length < 0:
            raise ValueError(f"content_length must be >= 0, not {content_length}")
        max_length = limits.max_content_length
        self._content_length = content_length
        self._received = 0
        self._closed = False
        if content_length is not None and max_length is not None and content_length > max_length:
            raise _too_long(max_length)
        # Where the body must end: its Content-Length (a 400 beyond it), else the limit (413).
        self._stop = max_length if content_length is None else content_length
        self._decoder: _UrlencodedDecoder | MultipartDecoder
        if mimetype == URLENCODED:
            self._decoder = _UrlencodedDecoder(limits)
        elif mimetype == MULTIPART:
            _check_multipart_params(params)
            boundary = params.get("boundary")
            if not boundary:
                raise BadRequest("The multipart/form-data body has no boundary parameter.")
            self._decoder = MultipartDecoder(boundary, limits)
        else:
            raise UnsupportedMediaType(
                f"Expected a form ({URLENCODED} or {MULTIPART}), not {mimetype or 'nothing'}."
            )

    @staticmethod
    def supports(mimetype: str) -> bool:
        """Tell whether a media type is a form body this decoder reads.

        Args:
            mimetype: A lower-cased media type without parameters.
        """
        return mimetype in (URLENCODED, MULTIPART)

    @property
    def received(self) -> int:
        """The number of body bytes fed so far."""
        return self._received

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[FormEvent]:
        """Decode the next chunk of the body and return the events it completes.

        An empty chunk is not the end of the body (ASGI servers send empty
        bodies); only :meth:`close` is.

        Args:
            chunk: Any number of bytes, even none.

        Returns:
            The events, possibly none.

        Raises:
            BadRequest: The body is malformed, or longer than its
                Content-Length.
            RequestEntityTooLarge: The body breaks a limit.
            ValueError: The decoder is closed.
        """
        if self._closed:
            raise ValueError("feed() on a closed FormEventDecoder")
        if not chunk:
            return []
        data = chunk if isinstance(chunk, bytes) else bytes(chunk)
        received = self._received
        self._received = received + len(data)
        events: list[FormEvent] = []
        try:
            stop = self._stop
            if stop is not None and self._received > stop:
                # NOTE: the bytes up to the limit are decoded first, so that a fault in them
                # is the answer whether or not the chunk that crossed the limit held them.
                if stop > received:
                    self._decoder.feed(data[: stop - received], events)
                if self._content_length == stop:
                    raise BadRequest("The body is longer than its Content-Length.")
                raise _too_long(stop)
            self._decoder.feed(data, events)
        except BaseException:
            self._closed = True
            raise
        return events

    def close(self) -> list[FormEvent]:
        """Finish decoding and return the last events, ending with ``EndOfForm``.

        Returns:
            The events the end of the body completed, then ``EndOfForm``.

        Raises:
            ClientDisconnected: The body is shorter than its Content-Length.
            BadRequest: The body was cut off before its end.
            RequestEntityTooLarge: The last field breaks a limit.
            ValueError: The decoder is already closed.
        """
        if self._closed:
            raise ValueError("close() on a closed FormEventDecoder")
        self._closed = True
        if self._content_length is not None and self._received < self._content_length:
            raise ClientDisconnected(
                f"The body ended after {self._received} of its {self._content_length} bytes."
            )
        events: list[FormEvent] = []
        self._decoder.close(events)
        events.append(EndOfForm())
        return events


class FormCollector:
    """Turn form events into :class:`~sansio_http.FormData`.

    Text fields are kept in memory; each file's bytes go to a new file object
    made by ``spool``. The collector holds no limits: the event decoder
    enforces them before an event exists.

    Args:
        spool: A callable returning an empty, writable, readable and seekable
            binary file object, called once per uploaded file. The adapters
            pass a ``tempfile.SpooledTemporaryFile`` factory; the default,
            ``io.BytesIO``, keeps uploads in memory.
        opener: Opens a path for writing, for :meth:`UploadedFile.save`;
            the adapters pass one. Without it, ``save`` takes only a file.
    """

    __slots__ = ("_fields", "_file", "_files", "_opener", "_spool", "_start")

    def __init__(self, spool: SpoolFactory | None = None, opener: Opener | None = None) -> None:
        self._spool: SpoolFactory = io.BytesIO if spool is None else spool
        self._opener = opener
        self._fields: list[tuple[str, str]] = []
        self._files: list[tuple[str, UploadedFile]] = []
        self._start: FileStart | None = None
        self._file: SpoolFile | None = None

    def send(self, events: Iterable[FormEvent]) -> None:
        """Take events in the order a decoder emitted them.

        Args:
            events: The events from ``FormEventDecoder.feed`` or ``close``.

        Raises:
            ValueError: The events are out of order, such as ``FileData``
                outside a file.
        """
        for event in events:
            if isinstance(event, Field):
                self._fields.append((event.name, event.value))
            elif isinstance(event, FileData) and self._file is not None:
                self._file.write(event.data)
            elif isinstance(event, FileStart) and self._start is None:
                self._file = self._spool()
                self._start = event
            elif isinstance(event, FileEnd) and self._start and self._file is not None:
                self._finish(self._start, self._file, event.size)
            elif not isinstance(event, EndOfForm):
                raise ValueError(f"{type(event).__name__} event out of order")

    def _finish(self, start: FileStart, stream: SpoolFile, size: int) -> None:
        stream.seek(0)
        upload = UploadedFile(
            start.name,
            start.filename,
            start.content_type,
            start.headers,
            stream,
            size,
            opener=self._opener,
        )
        self._files.append((start.name, upload))
        self._start = self._file = None

    def result(self) -> FormData:
        """Return the form collected so far, each file rewound to its start."""
        return FormData(ImmutableMultiDict(self._fields), ImmutableMultiDict(self._files))

    def discard(self) -> None:
        """Close every file collected, and the one being written, if any."""
        if self._file is not None:
            self._file.close()
            self._start = self._file = None
        for _, upload in self._files:
            upload.close()
        self._files = []


class FormDecoder:
    """Decode a form body fed in chunks into :class:`~sansio_http.FormData`.

    A :class:`FormEventDecoder` and a :class:`FormCollector` in one; the
    arguments and errors are theirs. On any error the files collected so far
    are closed before the error propagates.

    Example:
        >>> decoder = FormDecoder("application/x-www-form-urlencoded")
        >>> decoder.feed(b"name=caf%C3%A9&tag=a&ta")
        >>> decoder.feed(b"g=b")
        >>> form, files = decoder.close()
        >>> form.getlist("tag"), form["name"]
        (['a', 'b'], 'café')
    """

    __slots__ = ("_closed", "_collector", "_events")

    def __init__(
        self,
        content_type: str,
        params: Mapping[str, str] | None = None,
        *,
        content_length: int | None = None,
        limits: FormLimits | None = None,
        spool: SpoolFactory | None = None,
        opener: Opener | None = None,
    ) -> None:
        self._events = FormEventDecoder(
            content_type, params, content_length=content_length, limits=limits
        )
        self._collector = FormCollector(spool, opener)
        self._closed = False
        # PERF: text fields skip the Field events and go straight into the collector.
        self._events._decoder.pairs = self._collector._fields

    supports = staticmethod(FormEventDecoder.supports)

    def feed(self, chunk: bytes | bytearray | memoryview) -> None:
        """Decode the next chunk of the body; an empty chunk is not the end.

        Raises:
            BadRequest: The body is malformed (400).
            RequestEntityTooLarge: The body breaks a limit (413).
            ValueError: The decoder is closed.
        """
        if self._closed:
            raise ValueError("feed() on a closed FormDecoder")
        try:
            self._collector.send(self._events.feed(chunk))
        except BaseException:
            self._closed = True
            self._collector.discard()
            raise

    def close(self) -> FormData:
        """Finish decoding and return the form; the caller closes its files.

        Raises:
            BadRequest: The body was cut off, or is shorter than its
                Content-Length (:class:`~sansio_http.ClientDisconnected`).
            RequestEntityTooLarge: The last field breaks a limit.
            ValueError: The decoder is already closed.
        """
        if self._closed:
            raise ValueError("close() on a closed FormDecoder")
        self._closed = True
        try:
            self._collector.send(self._events.close())
        except BaseException:
            self._collector.discard()
            raise
        return self._collector.result()


def _check_multipart_params(params: Mapping[str, str]) -> None:
    """Refuse a multipart Content-Type whose boundary could be read two ways."""
    # SECURITY: with a parameter given twice, we would read the first boundary and
    # Werkzeug or multipart (a proxy, a firewall) the last: the parts each side sees would
    # differ. RFC 6838 §4.3 makes the repeat an error; RFC 2046 §5.1.1 defines no
    # "boundary*" form, which Werkzeug would still read.
    repeated = params.repeated if isinstance(params, Parameters) else frozenset()
    if repeated:
        names = ", ".join(sorted(repeated))
        raise BadRequest(f"The multipart/form-data Content-Type repeats a parameter: {names}.")
    if "boundary*" in params:
        raise BadRequest("The multipart/form-data boundary must be a plain parameter.")


def _too_long(limit: int) -> RequestEntityTooLarge:
    return RequestEntityTooLarge(
        f"The body breaks max_content_length: it is longer than {limit} bytes."
    )
