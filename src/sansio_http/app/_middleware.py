"""The middleware model of the App, and helpers that middleware share.

A middleware is an object with up to two hooks, each a plain function or a
coroutine function:

- ``process_request(request)`` runs before routing; returning anything but
  ``None`` answers the request at once (it may return whatever a view may);
- ``process_response(request, response)`` runs on every response, the
  view's, an error handler's or an earlier middleware's answer, and returns
  the response to send (the same one, changed, or another).

The App runs the hooks inside its dispatch generator, so a middleware is
written once for ``to_wsgi`` and ``to_asgi``. Nothing here streams: a
middleware that rewrites a streamed body wraps it with :func:`transform_body`,
which keeps the body's kind (bytes, iterable or async iterable) and hands
each chunk to a :class:`ChunkTransform` as the adapter sends it.
"""

from __future__ import annotations

from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    Coroutine,
    Generator,
    Iterable,
)
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from sansio_http.messages._chunks import encode_chunk
from sansio_http.messages._files import FileBody
from sansio_http.messages._response_fields import length_field

if TYPE_CHECKING:
    from sansio_http.http._headers import MutableHeaders
    from sansio_http.messages._request import Request
    from sansio_http.messages._response import Body, Response

__all__ = [
    "ChunkTransform",
    "Middleware",
    "add_checked_fields",
    "add_vary",
    "add_vary_field",
    "is_untouched",
    "set_bytes_body",
    "transform_body",
]


class Middleware:
    """A base for middleware: hooks that do nothing, and the blocking flag.

    Subclass it and override either hook, as ``def`` or ``async def``; a
    hook left as inherited is not called at all. Register an instance with
    :meth:`App.add_middleware <sansio_http.App.add_middleware>`. Any object
    with one of the two methods works too; the base is a convenience.

    Attributes:
        blocking: Whether the plain (``def``) hooks may block. ``True``, the
            default, runs them like plain views under ASGI: in the App's
            thread pool. A middleware whose plain hooks only compute (no
            I/O, no locks, no sleeping) sets ``False`` so that they run
            inline on the event loop; the built-in middleware do.
    """

    blocking: ClassVar[bool] = True

    def process_request(self, request: Request) -> Any:
        """Look at a request before routing; return a response to answer it.

        Args:
            request: The request, as the view will see it; set values on
                ``request.state`` for the view and the later hooks.

        Returns:
            ``None`` to go on, or anything a view may return to answer now.
        """
        return None

    def process_response(self, request: Request, response: Response) -> Any:
        """Change or replace the response to a request.

        Args:
            request: The request being answered.
            response: The response so far.

        Returns:
            The response to send: ``response`` itself, or another one (an
            ``async def`` override returns it from a coroutine, hence the
            loose annotation here).
        """
        return response


class ChunkTransform(Protocol):
    """A push transform of a body: fed chunks, closed once at the end."""

    def feed(self, chunk: bytes) -> bytes:
        """Take the next chunk and return the output it makes ready (maybe ``b""``)."""

    def close(self) -> bytes:
        """End the input and return the rest of the output."""


def transform_body(body: Body, transform: ChunkTransform, *, charset: str = "utf-8") -> Body:
    """Return ``body`` passed through ``transform``, of the same kind.

    ``bytes`` are transformed at once. An iterable becomes a generator and
    an async iterable an async generator that transform each chunk while the
    adapter sends it, so nothing is buffered; closing the wrapper closes the
    wrapped body (``close()`` or ``aclose()``) exactly once, as the adapters
    do for any body, even when the wrapper was never iterated (an answer to
    ``HEAD``). Text chunks are encoded with ``charset`` before the transform
    sees them. A body that asks for idle chunks (``idle_interval`` and
    ``idle_chunk``, see :doc:`/response`) still gets them, passed through
    the transform in their place among the chunks.

    Args:
        body: A response body, not a :class:`~sansio_http.FileBody`.
        transform: A fresh transform, used for this body only.
        charset: The charset of the text chunks the body may yield: the
            one the response's Content-Type names, UTF-8 by default.

    Raises:
        TypeError: ``body`` is a FileBody, which the adapter reads itself.
    """
    if isinstance(body, bytes):
        return transform.feed(body) + transform.close()
    if isinstance(body, FileBody):
        raise TypeError("a FileBody is read by the adapter and cannot be transformed")
    if isinstance(body, AsyncIterable):
        return _ClosingAsyncChunks(body, transform, _transform_async(body, transform, charset))
    return _ClosingChunks(body, transform, _transform_sync(body, transform, charset))


def _transform_sync(
    body: Iterable[bytes | str], transform: ChunkTransform, charset: str
) -> Generator[bytes, None, None]:
    try:
        for chunk in body:
            # PERF: bytes, the usual chunk, pass without a call.
            output = transform.feed(chunk if type(chunk) is bytes else encode_chunk(chunk, charset))
            if output:
                yield output
        output = transform.close()
        if output:
            yield output
    finally:
        close = getattr(body, "close", None)
        if close is not None:
            close()


async def _transform_async(
    body: AsyncIterable[bytes | str], transform: ChunkTransform, charset: str
) -> AsyncGenerator[bytes, None]:
    try:
        async for chunk in body:
            output = transform.feed(chunk if type(chunk) is bytes else encode_chunk(chunk, charset))
            if output:
                yield output
        output = transform.close()
        if output:
            yield output
    finally:
        aclose = getattr(body, "aclose", None)
        if aclose is not None:
            await aclose()


def add_checked_fields(response: Response, fields: list[tuple[bytes, bytes]]) -> None:
    """Set header fields that were checked already, without a second check.

    Fields of the same names already on the response are replaced, as
    ``response.headers[name] = value`` would.

    PERF: the built-in middleware encode and check their constant fields once,
    when they are built, and their variable values (an origin, a signed
    cookie) by construction; checking them again on every response would cost
    about a microsecond per field. Only for lower-case names and values
    without CR, LF or NUL, which the caller guarantees.

    Args:
        response: The response to add to.
        fields: ``(name, value)`` pairs, encoded, names lower-case.
    """
    headers = response._headers
    if headers is None:
        # The Response fast path keeps its few fields (content type and
        # length) encoded until ``headers`` is first read.
        own = response._fields
        if own:
            names = {name for name, _ in fields}
            own[:] = [field for field in own if field[0] not in names]
        own.extend(fields)
        return
    # Like ``headers[name] = value``: fields of the same names are replaced.
    names = {name for name, _ in fields}
    kept = [field for field in headers._fields if field[0] not in names]
    headers._fields[:] = [*kept, *fields]
    headers._changed()


def is_untouched(response: Response) -> bool:
    """Tell whether a response holds only the fields its constructor made.

    PERF: such a response (``Response(text)``, ``Response(data)``,
    ``JSONResponse(value)``) has a content type and a length at most, so a
    middleware can skip looking for the other fields.
    """
    return response._headers is None


def set_bytes_body(response: Response, data: bytes) -> None:
    """Replace a response's bytes body with ``data``, updating Content-Length.

    The same as ``response.body = data`` for a response that has a body
    (not a 1xx, 204 or 304), without checking the new length field again.
    """
    response._body = data
    add_checked_fields(response, [length_field(len(data))])


def add_vary_field(response: Response, name: bytes) -> None:
    """Add ``name`` to the response's Vary, cheaply when it has no headers object yet.

    Args:
        response: The response to add to.
        name: The field name, encoded, such as ``b"Origin"``.
    """
    headers = response._headers
    if headers is None:
        fields = response._fields
        if all(field[0] != b"vary" for field in fields):
            fields.append((b"vary", name))
            return
        headers = response.headers
    if "vary" not in headers:
        headers._fields.append((b"vary", name))
        headers._changed()
    else:
        add_vary(headers, name.decode("latin-1"))


def add_vary(headers: MutableHeaders, name: str) -> None:
    """Add a field name to the Vary header unless it is already covered.

    Args:
        headers: A response's header fields.
        name: The request field the response depends on, such as ``"Origin"``.
    """
    values = headers.getlist("vary")
    if not values:
        headers["vary"] = name
        return
    lowered = name.lower()
    for value in values:
        for item in value.split(","):
            item = item.strip().lower()
            # RFC 9110 §12.5.5: "*" already says the response varies on anything.
            if item == lowered or item == "*":
                return
    headers["vary"] = ", ".join([*values, name])


# NOTE: a generator closed before its first next() never enters its body, so
# the ``finally`` of _transform_sync and _transform_async, which closes the
# wrapped body, does not run. An adapter closes a body unread when it answers
# HEAD (or a status without content); these wrappers close the wrapped body
# themselves until the first chunk is asked for, and leave it to the
# generator's ``finally`` from then on, so that it is closed exactly once.


class _ClosingChunks(Generator[bytes, None, None]):
    """A transform generator that closes its source even if never started."""

    __slots__ = ("_chunks", "_source", "transformed")

    def __init__(
        self,
        source: Iterable[bytes | str],
        transform: ChunkTransform,
        chunks: Generator[bytes, None, None],
    ) -> None:
        # The source while the generator has not started, then None.
        self._source: Iterable[bytes | str] | None = source
        self._chunks = chunks
        #: The source and the transform, for an adapter that pulls the
        #: source itself to send idle chunks (``_chunks.idle_plan``).
        self.transformed = (source, transform)

    @property
    def idle_interval(self) -> float | None:
        """The source's ``idle_interval``: the wrapper keeps its idle chunks."""
        return getattr(self.transformed[0], "idle_interval", None)

    def __next__(self) -> bytes:
        self._source = None
        return next(self._chunks)

    def send(self, value: None) -> bytes:
        """Resume the transform, as ``next()`` does."""
        self._source = None
        return self._chunks.send(value)

    def throw(self, typ: Any, value: Any = None, traceback: Any = None, /) -> bytes:
        """Raise an exception inside the transform, closing the source."""
        self._close_unstarted()
        if value is None and traceback is None:
            return self._chunks.throw(typ)
        return self._chunks.throw(typ, value, traceback)  # pragma: no cover - deprecated form

    def close(self) -> None:
        """Stop the transform and close the source once."""
        self._close_unstarted()
        self._chunks.close()

    def _close_unstarted(self) -> None:
        source = self._source
        if source is not None:
            self._source = None
            close = getattr(source, "close", None)
            if close is not None:
                close()


class _ClosingAsyncChunks(AsyncGenerator[bytes, None]):
    """An async transform generator that closes its source even if never started."""

    __slots__ = ("_chunks", "_source", "transformed")

    def __init__(
        self,
        source: AsyncIterable[bytes | str],
        transform: ChunkTransform,
        chunks: AsyncGenerator[bytes, None],
    ) -> None:
        self._source: AsyncIterable[bytes | str] | None = source
        self._chunks = chunks
        #: The source and the transform (see ``_ClosingChunks``).
        self.transformed = (source, transform)

    @property
    def idle_interval(self) -> float | None:
        """The source's ``idle_interval``: the wrapper keeps its idle chunks."""
        return getattr(self.transformed[0], "idle_interval", None)

    def __anext__(self) -> Coroutine[Any, Any, bytes]:
        # PERF: the generator's own awaitable, without a coroutine around it.
        self._source = None
        return self._chunks.__anext__()

    def asend(self, value: None) -> Coroutine[Any, Any, bytes]:
        """Resume the transform, as ``__anext__()`` does."""
        self._source = None
        return self._chunks.asend(value)

    async def athrow(self, typ: Any, value: Any = None, traceback: Any = None, /) -> bytes:
        """Raise an exception inside the transform, closing the source."""
        await self._close_unstarted()
        if value is None and traceback is None:
            return await self._chunks.athrow(typ)
        return await self._chunks.athrow(typ, value, traceback)  # pragma: no cover - deprecated

    async def aclose(self) -> None:
        """Stop the transform and close the source once."""
        await self._close_unstarted()
        await self._chunks.aclose()

    async def _close_unstarted(self) -> None:
        source = self._source
        if source is not None:
            self._source = None
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                await aclose()
