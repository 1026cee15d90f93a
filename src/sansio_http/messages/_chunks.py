"""The chunks of a streamed body: text, and keep-alive chunks while idle.

What both adapters need to send a streamed body the same way lives here, as
values and pure functions:

- **Text chunks.** A streamed body may yield ``str`` as well as ``bytes``
  (or a ``bytearray`` or ``memoryview``). :class:`ChunkEncoder` encodes text
  with the charset of the response's Content-Type, UTF-8 without one, read
  only when the first text chunk comes, so that a stream of bytes never
  pays for it. Anything else is a ``TypeError`` naming its type.
- **Idle keep-alive.** A streamed body may ask the adapter to send a chunk
  of its choosing while its producer is idle (:class:`KeepAliveStream`):
  the body has an attribute ``idle_interval``, a number of seconds or
  ``None``, and an attribute ``idle_chunk``, ``bytes`` (or ``str``, encoded
  like any chunk). When ``idle_interval`` is a number and the producer has
  produced nothing for that long, the adapter sends ``idle_chunk`` and
  keeps waiting for the same item: the producer's pending ``next()`` or
  ``__anext__()`` is never cancelled for it, and its items keep their
  order. A body without the attribute, or with ``None``, is streamed as
  any other. An :class:`~sansio_http.EventStream` is such a body, with a
  comment line as its idle chunk.

A body wrapped by :func:`~sansio_http.transform_body` (gzip, say) keeps the
protocol: the wrapper has the source's ``idle_interval`` and names the
source and its transform in ``transformed``. :func:`idle_plan` follows
those to the producer, which the adapter pulls while it waits, and applies
the transforms to each item, idle chunks included, in the order sent: the
transform sees one ordered input, as without the wait.

Nothing here waits or reads a clock: the waiting is the adapters' work.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from sansio_http.http import parse_options_header

if TYPE_CHECKING:
    from sansio_http.http._headers import MutableHeaders

__all__ = ["ChunkEncoder", "IdlePlan", "KeepAliveStream", "charset_of", "idle_plan"]


class KeepAliveStream(Protocol):
    """A streamed body that asks for a chunk to be sent while it is idle.

    Attributes:
        idle_interval: Seconds without a chunk from the producer after
            which the adapter sends :attr:`idle_chunk`, again after each
            further interval; ``None`` sends none.
        idle_chunk: What the adapter sends then, such as an event stream's
            comment line, a colon and a blank line.
    """

    idle_interval: float | None
    idle_chunk: bytes | str


class _HasHeaders(Protocol):
    @property
    def headers(self) -> MutableHeaders: ...


class _Feeder(Protocol):
    def feed(self, chunk: bytes) -> bytes: ...

    def close(self) -> bytes: ...


def charset_of(content_type: str | None) -> str:
    """Return the charset a Content-Type names, ``"utf-8"`` without one."""
    if content_type is None:
        return "utf-8"
    return parse_options_header(content_type)[1].get("charset") or "utf-8"


class ChunkEncoder:
    """Turn the chunks of one response's body into ``bytes``.

    Call it for a chunk that is not ``bytes`` (PERF: the caller checks
    ``type(chunk) is bytes`` first, so a bytes stream never calls it).

    Args:
        response: The response whose Content-Type names the charset; it is
            read at the first text chunk.
    """

    __slots__ = ("_charset", "_response")

    def __init__(self, response: _HasHeaders) -> None:
        self._response = response
        self._charset: str | None = None

    @property
    def charset(self) -> str:
        """The charset text chunks are encoded with."""
        charset = self._charset
        if charset is None:
            charset = self._charset = charset_of(self._response.headers.get("content-type"))
        return charset

    def __call__(self, chunk: object) -> bytes:
        """Return ``chunk`` as bytes.

        Raises:
            TypeError: The chunk is neither text nor bytes-like.
            UnicodeEncodeError: The charset cannot encode the text.
            LookupError: The Content-Type names an unknown charset.
        """
        if isinstance(chunk, str):
            return chunk.encode(self.charset)
        return encode_chunk(chunk, "utf-8")


def encode_chunk(chunk: object, charset: str) -> bytes:
    """Return one chunk as ``bytes``, text encoded with ``charset``.

    Raises:
        TypeError: The chunk is neither text nor bytes-like.
    """
    if type(chunk) is bytes:
        return chunk
    if isinstance(chunk, str):
        return chunk.encode(charset)
    if isinstance(chunk, (bytes, bytearray, memoryview)):
        return bytes(chunk)
    raise TypeError(
        f"a response body yields bytes or str, not {type(chunk).__name__}: "
        "encode the value first (JSON with json.dumps, say)"
    )


class IdlePlan:
    """How an adapter streams a body that asks for idle chunks.

    The adapter pulls :attr:`source` while it waits (in a thread for a sync
    one), passes each item to :meth:`feed` and sends what it returns; when
    :attr:`interval` seconds pass without an item it sends :meth:`idle`;
    at the end it sends :meth:`end`. It closes the body it was given, not
    the source: closing a transform's wrapper closes its source once.

    Attributes:
        interval: Seconds of silence before an idle chunk.
        source: The producer, a sync or async iterable.
        plain: True when no transform applies: a ``bytes`` item is sent as
            it is, and an adapter may skip :meth:`feed` for it (PERF).
    """

    __slots__ = ("_encode", "_idle_chunk", "_stages", "interval", "plain", "source")

    def __init__(
        self,
        interval: float,
        source: Iterable[Any] | AsyncIterable[Any],
        idle_chunk: object,
        stages: list[_Feeder],
        encode: ChunkEncoder,
    ) -> None:
        self.interval = interval
        self.source = source
        self._idle_chunk = idle_chunk
        self._stages = stages
        self._encode = encode
        self.plain = not stages

    def feed(self, item: object) -> bytes:
        """Return the bytes to send for one item of the source (maybe ``b""``)."""
        data = item if type(item) is bytes else self._encode(item)
        for stage in self._stages:
            if not data:
                break
            data = stage.feed(data)
        return data

    def idle(self) -> bytes:
        """Return the bytes to send for an idle interval."""
        return self.feed(self._idle_chunk)

    def end(self) -> bytes:
        """Return the last bytes, once the source has ended."""
        data = b""
        for stage in self._stages:
            data = (stage.feed(data) if data else b"") + stage.close()
        return data


def idle_plan(body: object, response: _HasHeaders) -> IdlePlan | None:
    """Return how to stream ``body`` with idle chunks, or None for a plain stream.

    Args:
        body: A streamed body.
        response: The response holding it; its Content-Type names the
            charset of text chunks.

    Raises:
        ValueError: ``idle_interval`` is not a positive number.
    """
    interval = getattr(body, "idle_interval", None)
    if interval is None:
        return None
    if isinstance(interval, bool) or not isinstance(interval, (int, float)) or interval <= 0:
        raise ValueError(
            f"a body's idle_interval is a number of seconds above 0 or None, not {interval!r}"
        )
    stages: list[_Feeder] = []
    source: Any = body
    while True:
        transformed = getattr(source, "transformed", None)
        if transformed is None:
            break
        source, transform = transformed
        stages.append(transform)
    stages.reverse()  # the innermost transform first
    return IdlePlan(float(interval), source, source.idle_chunk, stages, ChunkEncoder(response))
