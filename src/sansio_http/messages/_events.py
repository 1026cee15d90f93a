"""Server-sent events: :class:`EventStream` and the :class:`ServerSentEvent` it sends.

An event stream (WHATWG HTML, "Server-sent events", §9.2) is a
``text/event-stream`` body of UTF-8 lines. An event is a few ``field: value``
lines ended by a blank line: ``data`` lines, which the browser joins with LF;
``event``, the event's type; ``id``, which the browser sends back as
``Last-Event-ID`` when it reconnects; ``retry``, the reconnection delay in
milliseconds. A line that starts with ``:`` is a comment, which the browser
ignores.

This module formats events as values. :class:`ServerSentEvent` encodes one
event to bytes; :class:`EventStream` is a response whose body formats a
producer's items as it is read, one chunk per item, so that an adapter sends
each event the moment it is made. Nothing here waits or reads a clock: the
keep-alive comments sent while the producer is idle are the adapters' work,
asked for by the body's ``idle_interval`` and ``idle_chunk`` attributes. The
request side, :func:`parse_last_event_id`, is what
:attr:`Request.last_event_id <sansio_http.Request.last_event_id>` reads.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from sansio_http.messages._json_response import _dump_json
from sansio_http.messages._response import HeadersInput, Response

__all__ = [
    "EVENT_STREAM",
    "KEEPALIVE_CHUNK",
    "MAX_LAST_EVENT_ID",
    "EventStream",
    "ServerSentEvent",
    "encode_item",
    "parse_last_event_id",
]

#: The Content-Type of an event stream. WHATWG HTML §9.2.5: the stream is
#: always UTF-8; the charset says so to tools that read the header.
EVENT_STREAM: Final = "text/event-stream; charset=utf-8"
#: A comment line and the blank line that ends it: the browser ignores it,
#: but it keeps proxies and load balancers from closing an idle connection.
KEEPALIVE_CHUNK: Final = b": keep-alive\n\n"
#: The longest ``Last-Event-ID`` value read, and the longest event id sent,
#: in bytes of UTF-8.
MAX_LAST_EVENT_ID: Final = 1024

# WHATWG HTML §9.2.6: a line ends with CRLF, a lone CR or a lone LF, and
# nothing else (not the other breaks str.splitlines knows, such as U+2028).
_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")
# The ASCII control characters (HTAB, which is one, too): none comes back in a
# header field as sent.
_ID_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")
# The JSON types the standard library writes; with a ``dumps`` of the caller's,
# anything not text or an event goes to it.
_JSON_TYPES: Final = (dict, list, tuple, int, float, bool)
_ITEM_TYPES: Final = "str, ServerSentEvent or a JSON value (dict, list, number, bool)"

#: A JSON serialiser: a value in, JSON text out.
Dumps = Callable[[Any], str | bytes]


def _lines(prefix: str, text: str) -> str:
    """Return ``text`` as lines that start with ``prefix``, each ended by LF."""
    if "\n" not in text and "\r" not in text:
        return prefix + text + "\n"  # PERF: one line, the usual token or JSON
    return "".join([prefix + line + "\n" for line in _LINE_BREAK.split(text)])


def _utf8(text: str) -> bytes:
    try:
        return text.encode()
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"an event cannot hold {text[exc.start]!r}, a lone surrogate, which UTF-8 cannot"
            " encode: fix the text, or send it as JSON, which escapes it"
        ) from exc


def _json_text(value: object, dumps: Dumps | None) -> str:
    """Return ``value`` as JSON text, for a ``data`` field."""
    if dumps is None:
        if not isinstance(value, _JSON_TYPES):
            raise TypeError(
                f"an event stream item is a {_ITEM_TYPES}, not {type(value).__name__}:"
                " convert it first, or pass dumps= that serialises it"
            )
        data: str | bytes = _dump_json(value)
    else:
        data = dumps(value)
    return data.decode() if isinstance(data, bytes) else data


def _check_id(text: str) -> None:
    """Refuse an event id that would not come back as it is in ``Last-Event-ID``."""
    control = _ID_CONTROL.search(text)
    if control is not None:
        char = control.group()
        # WHATWG HTML §9.2.6: an id holding NUL is ignored by the browser, and CR
        # or LF would end the line; RFC 9110 §5.5: a field value holds no other
        # control character either, and servers answer 400 to the reconnect.
        why = (
            "it would break the stream"
            if char in "\0\r\n"
            else "servers answer 400 to a Last-Event-ID holding it (RFC 9110 §5.5)"
        )
        raise ValueError(f"an event id cannot hold the control character {char!r}: {why}: {text!r}")
    if text != text.strip(" \t"):
        # RFC 9110 §5.5: a field value's leading and trailing spaces are not
        # part of it; the browser's reconnect would resume after another id.
        raise ValueError(
            f"an event id cannot start or end with a space: Last-Event-ID would bring it"
            f" back stripped, {text.strip(' ')!r}, not {text!r}"
        )


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    r"""One event of an event stream, its fields checked when it is made.

    Every field is optional; the ones given are sent in the order comment,
    event, id, retry, data. An event with ``data`` (or an ``event`` type)
    is delivered to the page; one with only an ``id``, a ``retry`` or a
    ``comment`` changes what the browser remembers, or nothing, and
    delivers no event.

    Args:
        data: The payload. A ``str`` is sent as it is, split into one
            ``data:`` line per line (CR, LF and CRLF all break a line; the
            browser joins them with LF). ``None`` sends no data, except
            that an event with an ``event`` type gets empty data, since a
            browser drops an event without any. Anything else is sent as
            JSON (compact, UTF-8), which the page reads with
            ``JSON.parse(event.data)``.
        event: The event's type, the name of the page's
            ``addEventListener``; without one it is a ``message``.
        id: The event's id (a ``str``, or an ``int`` sent as its digits):
            the browser sends the last one back as ``Last-Event-ID`` when
            it reconnects, so that the stream can resume after it.
        retry: The delay in milliseconds before the browser reconnects,
            from now on.
        comment: A comment, which the browser ignores; several lines make
            several comment lines.

    Raises:
        TypeError: A field has the wrong type (``data`` as ``bytes``: decode
            it; ``retry`` as a float or a bool).
        ValueError: ``event`` holds CR or LF, ``id`` could not come back
            as it is in ``Last-Event-ID`` (it holds an ASCII control
            character, NUL, CR, LF or TAB among them; it starts or ends with
            a space, which the header would lose; or it is longer than
            :data:`MAX_LAST_EVENT_ID` bytes), or ``retry`` is negative.

    Example:
        >>> ServerSentEvent({"token": "Hi"}, event="token", id=1).encode()
        b'event: token\nid: 1\ndata: {"token":"Hi"}\n\n'
    """

    data: Any = None
    event: str | None = None
    id: str | int | None = None
    retry: int | None = None
    comment: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.data, (bytes, bytearray, memoryview)):
            raise TypeError("event data is text or a JSON value, not bytes: decode it first")
        event = self.event
        if event is not None:
            if not isinstance(event, str):
                raise TypeError(f"an event type is a str, not {type(event).__name__}")
            # WHATWG HTML §9.2.6: CR or LF would end the field's line, and the rest
            # would be read as another field.
            if "\r" in event or "\n" in event:
                raise ValueError(f"an event type cannot hold CR or LF: {event!r}")
        ident = self.id
        if ident is not None:
            if isinstance(ident, bool) or not isinstance(ident, (str, int)):
                raise TypeError(f"an event id is a str or an int, not {type(ident).__name__}")
            text = str(ident)
            _check_id(text)
            if len(_utf8(text)) > MAX_LAST_EVENT_ID:
                raise ValueError(
                    f"an event id is at most {MAX_LAST_EVENT_ID} bytes of UTF-8: a longer"
                    " one would not be read back from Last-Event-ID"
                )
        retry = self.retry
        if retry is not None:
            if isinstance(retry, bool) or not isinstance(retry, int):
                raise TypeError(f"retry is an int of milliseconds, not {type(retry).__name__}")
            # WHATWG HTML §9.2.6: only ASCII digits set the reconnection time.
            if retry < 0:
                raise ValueError(f"retry is a number of milliseconds, 0 or more, not {retry}")
        comment = self.comment
        if comment is not None and not isinstance(comment, str):
            raise TypeError(f"a comment is a str, not {type(comment).__name__}")

    def encode(self, dumps: Dumps | None = None) -> bytes:
        """Return the event as the bytes of an event stream, blank line included.

        Args:
            dumps: Serialises a ``data`` that is not a ``str`` to JSON text
                (``str`` or ``bytes``), such as ``orjson.dumps``; by default
                the standard library's, compact, refusing NaN.

        Raises:
            TypeError: ``data`` is not JSON-serialisable.
            ValueError: ``data`` holds a lone surrogate (as ``str``), or
                NaN or an infinity (as JSON).
        """
        parts = []
        if self.comment is not None:
            parts.append(_lines(": ", self.comment))
        if self.event is not None:
            parts.append(f"event: {self.event}\n")
        if self.id is not None:
            parts.append(f"id: {self.id}\n")
        if self.retry is not None:
            parts.append(f"retry: {self.retry}\n")
        data = self.data
        if isinstance(data, str):
            parts.append(_lines("data: ", data))
        elif data is not None:
            parts.append(_lines("data: ", _json_text(data, dumps)))
        elif self.event is not None:
            parts.append("data: \n")
        parts.append("\n")
        return _utf8("".join(parts))


def encode_item(item: object, dumps: Dumps | None = None) -> bytes:
    """Return one item of an event stream's producer as the bytes of its event.

    Args:
        item: A ``str`` (the data), a :class:`ServerSentEvent`, or a JSON
            value (sent as JSON data). A ``dict`` is data like any other
            JSON value: its keys are never read as event fields.
        dumps: Serialises JSON values; see :meth:`ServerSentEvent.encode`.

    Raises:
        TypeError: The item is of another type (``bytes``, ``None``, an
            object the JSON encoder does not know), named in the message.
        ValueError: As for :meth:`ServerSentEvent.encode`.
    """
    if type(item) is str:
        # PERF: the usual token, without building an event.
        if "\n" not in item and "\r" not in item:
            return _utf8("data: " + item + "\n\n")
        return _utf8(_lines("data: ", item) + "\n")
    if isinstance(item, ServerSentEvent):
        return item.encode(dumps)
    if isinstance(item, str):
        return _utf8(_lines("data: ", item) + "\n")
    if dumps is None and isinstance(item, _JSON_TYPES):
        # PERF: compact JSON has no line break (the encoder escapes CR and LF).
        return b"data: " + _dump_json(item) + b"\n\n"
    if item is None or isinstance(item, (bytes, bytearray, memoryview)):
        # None is most often a value a producer forgot to compute; bytes might be
        # taken for data or for a formatted event: either guess would be wrong.
        raise TypeError(
            f"an event stream item is a {_ITEM_TYPES}, not {type(item).__name__}: yield"
            " text as str, and null as ServerSentEvent(data='null')"
        )
    return _utf8(_lines("data: ", _json_text(item, dumps)) + "\n")


def parse_last_event_id(values: list[str]) -> str | None:
    """Return the id a reconnecting client resumes after, or None.

    Args:
        values: The ``Last-Event-ID`` field values, as latin-1 text (what
            :meth:`Headers.getlist <sansio_http.Headers.getlist>` returns).

    Returns:
        The id as the browser sent it (UTF-8, WHATWG HTML §9.2.4), or None
        when there is none to resume from: no field, an empty value, several
        fields, a value longer than :data:`MAX_LAST_EVENT_ID` bytes, one
        that is not UTF-8, or one holding NUL, CR or LF, which no event id
        can hold.
    """
    if len(values) != 1:
        return None
    value = values[0]
    # SECURITY: an application looks the id up (a database, a log), and may
    # write it to a log: a bounded value, never one that could split a line.
    if not value or len(value) > MAX_LAST_EVENT_ID:
        return None
    if "\0" in value or "\r" in value or "\n" in value:
        return None
    if value.isascii():
        return value  # PERF: the usual counter or UUID
    try:
        return value.encode("latin-1").decode()
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


class _EventChunks:
    """A sync producer's items, as the chunks of their events, one per item."""

    __slots__ = ("_closed", "_dumps", "_items", "_source", "idle_chunk", "idle_interval")

    def __init__(self, source: Iterable[Any], dumps: Dumps | None, idle: float | None) -> None:
        self._source = source
        self._items = iter(source)
        self._dumps = dumps
        self._closed = False
        #: Seconds without an item after which the adapter sends ``idle_chunk``.
        self.idle_interval = idle
        #: What the adapter sends while the producer is idle.
        self.idle_chunk = KEEPALIVE_CHUNK

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        return encode_item(next(self._items), self._dumps)

    def close(self) -> None:
        """Close the producer (once), so that its ``finally`` runs."""
        if self._closed:
            return
        self._closed = True
        close = getattr(self._source, "close", None)
        if close is not None:
            close()
        if self._items is not self._source:
            close = getattr(self._items, "close", None)
            if close is not None:
                close()


class _AsyncEventChunks:
    """An async producer's items, as the chunks of their events, one per item."""

    __slots__ = ("_closed", "_dumps", "_items", "idle_chunk", "idle_interval")

    def __init__(self, source: AsyncIterable[Any], dumps: Dumps | None, idle: float | None) -> None:
        self._items: AsyncIterator[Any] = source.__aiter__()
        self._dumps = dumps
        self._closed = False
        #: Seconds without an item after which the adapter sends ``idle_chunk``.
        self.idle_interval = idle
        #: What the adapter sends while the producer is idle.
        self.idle_chunk = KEEPALIVE_CHUNK

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        return encode_item(await self._items.__anext__(), self._dumps)

    async def aclose(self) -> None:
        """Close the producer (once), so that its ``finally`` runs."""
        if self._closed:
            return
        self._closed = True
        aclose = getattr(self._items, "aclose", None)
        if aclose is not None:
            await aclose()


class EventStream(Response):
    r"""A response that sends a producer's items as server-sent events.

    The producer is a ``def`` generator (or any iterable) or an ``async
    def`` generator (or any async iterable). Each item becomes one event,
    formatted when the adapter asks for it and sent at once as a chunk of
    its own (see :func:`encode_item`): a ``str`` is the event's data, a
    :class:`ServerSentEvent` sets any field, and any other JSON value is
    sent as JSON data. Under either adapter, a client that goes away gets
    the producer closed, which runs its ``finally``.

    The response carries ``Content-Type: text/event-stream;
    charset=utf-8``, ``Cache-Control: no-cache, no-transform`` (no cache
    keeps a copy, and no proxy or middleware compresses or buffers the
    stream; :class:`~sansio_http.GZipMiddleware` leaves it alone) and
    ``X-Accel-Buffering: no`` (nginx passes each event on as it comes);
    ``headers`` given with the same names replace them.

    Args:
        events: The producer, called already: ``EventStream(tokens())``.
        status: The status code.
        headers: More header fields.
        keepalive_interval: Seconds without an event after which the adapter
            sends a comment (``: keep-alive``), and again after as many,
            while the producer stays idle; ``None`` sends none. 15 seconds,
            as WHATWG HTML §9.2.7 advises against proxies that drop idle
            connections.
        dumps: Serialises the items (and ``ServerSentEvent.data``) that are
            not text, such as ``orjson.dumps``; then any type it knows is an
            item.

    Raises:
        TypeError: ``events`` is not an iterable of items (a ``str``, a
            ``dict``, or a generator function not called).
        ValueError: ``keepalive_interval`` is not positive.

    Example:
        >>> def tokens():
        ...     yield "Hello"
        ...     yield ServerSentEvent({"done": True}, event="end")
        >>> response = EventStream(tokens())
        >>> response.headers["content-type"]
        'text/event-stream; charset=utf-8'
        >>> b"".join(response.body)
        b'data: Hello\n\nevent: end\ndata: {"done":true}\n\n'
    """

    __slots__ = ()

    def __init__(
        self,
        events: Iterable[Any] | AsyncIterable[Any],
        status: int = 200,
        headers: HeadersInput | None = None,
        *,
        keepalive_interval: float | None = 15.0,
        dumps: Dumps | None = None,
    ) -> None:
        if keepalive_interval is not None:
            if isinstance(keepalive_interval, bool) or not isinstance(
                keepalive_interval, (int, float)
            ):
                raise TypeError("keepalive_interval is a number of seconds, or None for none")
            if not keepalive_interval > 0:
                raise ValueError(
                    f"keepalive_interval is a number of seconds above 0, not"
                    f" {keepalive_interval!r}; None sends no keep-alives"
                )
        body: _EventChunks | _AsyncEventChunks
        producer: object = events
        if isinstance(producer, (str, bytes, bytearray, memoryview, Mapping)):
            raise TypeError(
                f"an EventStream takes an iterable of items, not {type(producer).__name__}:"
                " for a single event, pass a list of one"
            )
        if isinstance(producer, AsyncIterable):
            body = _AsyncEventChunks(producer, dumps, keepalive_interval)
        elif isinstance(producer, Iterable):
            body = _EventChunks(producer, dumps, keepalive_interval)
        elif callable(producer):
            raise TypeError(
                "an EventStream takes the producer, not the function that makes it: call"
                " it, EventStream(events())"
            )
        else:
            raise TypeError(
                f"an EventStream takes an iterable or an async iterable, not"
                f" {type(producer).__name__}"
            )
        super().__init__(body, status, headers, EVENT_STREAM)
        fields = self.headers
        # NOTE: no-transform (RFC 9111 §5.2.2.6) keeps compressing proxies and
        # GZipMiddleware off: a transform holds no keep-alive, and some buffer.
        if "cache-control" not in fields:
            fields["cache-control"] = "no-cache, no-transform"
        if "x-accel-buffering" not in fields:
            fields["x-accel-buffering"] = "no"
