"""``ASGIRequest``: a core ``Request`` read from a scope, with its body.

The request's head comes from the scope without copying (the raw header
pairs are kept by reference); the body is read from ``receive()`` only when
asked for, through the body API of :class:`~sansio_http.BodyRequest`, with
``max_content_length`` enforced as the bytes arrive. The awaited reads are
native here; the blocking ones, for ``def`` views running in a worker
thread, hand each read over to the event loop and wait for it.
"""

from __future__ import annotations

import asyncio
import functools
import os
import tempfile
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Coroutine, Iterator
from typing import Any, BinaryIO, Final, Generic, TypeVar

from sansio_http.bodies._body import ALREADY_STREAMED, EMPTY_FORM, BodyRequest
from sansio_http.bodies._formdata import FormData, FormLimits, SpoolFactory
from sansio_http.bodies._forms import FormCollector, FormEventDecoder
from sansio_http.http._headers import Headers
from sansio_http.messages._errors import ClientDisconnected, RequestEntityTooLarge
from sansio_http.messages._request import RAISE_EXCEPTIONS, TransportValue
from sansio_http.messages._state import State

from ._receive import Receiver
from ._scope import origin_path, server_address, split_path
from ._spool import SpoolWriter
from ._threads import DEFAULT_POOLS, ThreadPools
from ._types import Message, Receive, Scope

__all__ = [
    "DEFAULT_SPOOL_MEMORY",
    "FORM_BATCH_PIECES",
    "FORM_BATCH_SIZE",
    "RAISE_EXCEPTIONS",
    "ASGIRequest",
    "default_spool",
]

# Uploads stay in memory up to 1 MiB per file, as Starlette's do (Werkzeug
# keeps 500 KiB), then roll over to a temporary file on disk.
DEFAULT_SPOOL_MEMORY: Final = 1024 * 1024

# PERF: a form body is decoded in batches of this size: the chunks of
# ``receive()`` (64 KiB from uvicorn) are joined, parsed at once, and each
# file's share of the batch is written with one call. Past
# DEFAULT_SPOOL_MEMORY the writes go to the thread pool, a batch at a time:
# one batch is written while the next is received and parsed, so the loop
# never waits on a disk write, and a request holds at most two batches of
# the body (one being written, one waiting for it; a batch's chunks are held
# twice for the moment they are joined).
FORM_BATCH_SIZE: Final = 1024 * 1024

# A batch also ends at this many chunks, so that a body sent in tiny chunks
# is joined and parsed in pieces of at most this many, as it arrives.
FORM_BATCH_PIECES: Final = 64


def default_spool() -> tempfile.SpooledTemporaryFile[bytes]:
    """Return an empty file kept in memory up to ``DEFAULT_SPOOL_MEMORY`` bytes."""
    return tempfile.SpooledTemporaryFile(max_size=DEFAULT_SPOOL_MEMORY)


def _open_for_writing(path: str | os.PathLike[str]) -> BinaryIO:
    # The opener of UploadedFile.save(path): the core opens no file itself.
    return open(path, "wb")


T = TypeVar("T")

#: Why an awaitable of the request refuses to run on another event loop.
FOREIGN_LOOP: Final = (
    "the request's body arrives through the server's event loop, and this read runs on "
    "another event loop (asyncio.run() in a def view?), where it would wait forever: "
    "in a def view use the blocking methods, request.get_data(), get_form(), get_files(), "
    "get_json(), iter_data() and check_disconnected(), or make the view async def and "
    "await request.body()"
)

# The states of the body.
_UNREAD, _STREAMING, _READ, _CACHED = range(4)


def _remote_addr(request: ASGIRequest) -> str | None:
    client = request.scope.get("client")
    return client[0] if client else None


def _headers(request: ASGIRequest) -> Headers:
    return Headers(request.scope["headers"])


def _server(request: ASGIRequest) -> tuple[str, int | None] | None:
    server = request.scope.get("server")
    # PERF: servers give (host, port) tuples; anything else is converted.
    return server if server.__class__ is tuple else server_address(server)


class ASGIRequest(BodyRequest):
    """A :class:`~sansio_http.BodyRequest` read from an ASGI scope.

    ``path`` and ``root_path`` mean what they mean under WSGI whether or not
    the server includes ``root_path`` in the scope's ``path``.

    Args:
        scope: The ``http`` (or ``websocket``) connection scope.
        receive: The server's ``receive`` callable, or a shared
            :class:`~sansio_http.asgi._receive.Receiver` over it.
        max_content_length: The most body bytes accepted, or None for no
            limit; checked against Content-Length and while streaming, so
            it also holds for chunked bodies.
        form_limits: The limits the form readers enforce; the
            :class:`~sansio_http.FormLimits` defaults when None.
        spool: Makes the file each upload is written to; by default one
            kept in memory up to 1 MiB, then on disk.
        state: The lifespan state, when the server does not put one in the
            scope itself; :attr:`state` starts as a shallow copy of it.
        trusted_hosts: As for :class:`~sansio_http.Request`.
    """

    #: The connection scope, as the server passed it.
    scope: Scope
    #: The most body bytes accepted, or None for no limit.
    max_content_length: int | None = None
    #: The limits the form readers enforce; None for the defaults.
    form_limits: FormLimits | None = None
    #: Makes the file each upload is written to.
    spool: SpoolFactory = staticmethod(default_spool)
    #: The thread pools that write uploads to their spool and close them:
    #: the application's (``asgi_app``, ``to_asgi``), else shared defaults.
    threads: ThreadPools = DEFAULT_POOLS

    _running_loop = staticmethod(asyncio._get_running_loop)

    # The constructor values of the core request, read on first access.
    remote_addr = TransportValue["ASGIRequest", "str | None"](_remote_addr)
    #: Set by the constructor when the scope has a root path.
    root_path = ""
    server = TransportValue["ASGIRequest", "tuple[str, int | None] | None"](_server)
    # PERF: a request that never reads its headers never wraps them (the head
    # checks read the scope's fields, and record the length and the type).
    headers = TransportValue["ASGIRequest", Headers](_headers)
    propagate_exceptions = TransportValue["ASGIRequest", bool](
        lambda request: RAISE_EXCEPTIONS in (request.scope.get("extensions") or ())
    )

    # PERF: the body's state lives in class defaults until it changes, so
    # that building a request sets as few attributes as possible.
    _state: dict[str, Any] | None = None
    _body_state = _UNREAD
    _body: bytes | None = None
    _form: FormData | None = None
    _received = 0
    # PERF: a request that never reads its body nor polls for a disconnect
    # never makes its Receiver (see _receiver).
    _made_receiver: Receiver | None = None
    _receive: Receive

    def __init__(
        self,
        scope: Scope,
        receive: Receive | Receiver,
        *,
        max_content_length: int | None = None,
        form_limits: FormLimits | None = None,
        spool: SpoolFactory | None = None,
        state: dict[str, Any] | None = None,
        trusted_hosts: Collection[str] | None = None,
    ) -> None:
        # PERF: what nearly every request reads (routing: the method, the path
        # and the scheme; views: the query) is read here, as Request.__init__
        # would, without calling it; the other constructor values, the headers
        # among them, are read from the scope on first access (TransportValue).
        self.scope = scope
        method = scope.get("method", "GET")
        self.method = method if method.isupper() else method.upper()
        path = scope["path"]
        root_path = scope.get("root_path")
        if root_path:
            path, self.root_path = split_path(path, root_path)
        if path[:1] != "/":
            # An absolute-form target left as the path (uvicorn's h11 mode).
            # PERF: the usual path, starting with "/", is checked once.
            path = origin_path(path)
            if path[:1] != "/":
                path = "/" + path
        self.path = path
        self.scheme = scope.get("scheme") or ("ws" if scope["type"] == "websocket" else "http")
        self.query_string = scope.get("query_string", b"")
        if trusted_hosts is not None:
            self.trusted_hosts = trusted_hosts
        # PERF: what is usually left at its default stays a class attribute.
        if max_content_length is not None:
            self.max_content_length = max_content_length
        if form_limits is not None:
            self.form_limits = form_limits
        if spool is not None:
            self.spool = spool
        if state is not None:
            self._state = state
        if isinstance(receive, Receiver):
            self._made_receiver = receive
        else:
            self._receive = receive
        # The loop the body arrives through, for the blocking reads of def
        # views, which run on other threads.
        self._loop = asyncio._get_running_loop()

    @property
    def raw_path(self) -> bytes | None:
        """The request target's path as sent, before decoding, if known."""
        raw: bytes | None = self.scope.get("raw_path")
        return raw

    @property
    def http_version(self) -> str:
        """The HTTP version, such as ``"1.1"`` or ``"2"``."""
        version: str = self.scope.get("http_version", "1.1")
        return version

    @property
    def bytes_read(self) -> int:
        """How many body bytes were received so far."""
        if self._body is not None:
            return len(self._body)
        return self._received

    @functools.cached_property
    def state(self) -> State:
        """This request's own scratch space, seeded with the lifespan state.

        It starts as a shallow copy of what the startup hooks stored (the
        ASGI lifespan state), so a request can read those values, and set
        its own without changing what other requests see.
        """
        lifespan = self.scope.get("state")
        if lifespan is None:
            lifespan = self._state
        return State(lifespan)

    async def body(self) -> bytes:
        """Read the whole body once and keep it.

        Returns:
            The body's bytes.

        Raises:
            RequestEntityTooLarge: The body exceeds ``max_content_length``.
            ClientDisconnected: The client went away before the end.
            RuntimeError: :meth:`stream` already consumed the body.
        """
        if self._body is None:
            if self._body_state != _UNREAD:
                raise RuntimeError(ALREADY_STREAMED)
            # Taken first: awaited on a foreign loop, it raises with the body unread.
            receive = self._reading_receiver().receive
            # PERF: the messages are read here, as _chunks reads them, rather
            # than through it: an async generator costs its creation, its
            # registration with the loop and a step per chunk.
            self._body_state = _STREAMING
            chunks: list[bytes] = []
            try:
                self._check_declared_length()
                while True:
                    chunk, more = self._take(await receive())
                    if chunk:
                        chunks.append(chunk)
                    if not more:
                        break
            finally:
                self._body_state = _READ
            # PERF: join returns a lone bytes chunk itself, without a copy.
            self._body = b"".join(chunks)
            self._body_state = _CACHED
        return self._body

    def stream(self) -> AsyncIterator[bytes]:
        """Return the body as an async iterator of chunks, read as they arrive.

        The body can be streamed once; after :meth:`body` the kept bytes are
        streamed again. Empty chunks are skipped.

        Returns:
            An async iterator of non-empty ``bytes`` chunks.

        Raises:
            RuntimeError: The body was already streamed (raised here, at the
                call, not at the first iteration).
        """
        if self._body is not None:
            return _once(self._body)
        if self._body_state != _UNREAD:
            raise RuntimeError(ALREADY_STREAMED)
        receive = self._reading_receiver().receive
        self._body_state = _STREAMING
        return self._chunks(receive)

    async def _chunks(self, receive: Callable[[], Awaitable[Message]]) -> AsyncIterator[bytes]:
        try:
            self._check_declared_length()
            while True:
                chunk, more = self._take(await receive())
                if chunk:
                    yield chunk
                if not more:
                    return
        finally:
            self._body_state = _READ

    def _check_declared_length(self) -> None:
        """Refuse a body whose Content-Length is over the limit, before reading it."""
        limit = self.max_content_length
        if limit is not None:
            declared = self.content_length
            if declared is not None and declared > limit:
                raise RequestEntityTooLarge(f"The body is larger than the limit of {limit} bytes")

    def _take(self, message: Message) -> tuple[bytes, bool]:
        """Return the body bytes of one message, and whether more may follow.

        The bytes are counted against the limit; a message of another type
        than these two carries none.

        Raises:
            ClientDisconnected: The message says the client went away.
            RequestEntityTooLarge: The bytes received pass the limit.
        """
        kind = message["type"]
        if kind == "http.request":
            chunk: bytes = message.get("body", b"")
            if chunk:
                received = self._received = self._received + len(chunk)
                # Counted as the bytes arrive: a chunked body has no
                # Content-Length to check up front.
                limit = self.max_content_length
                if limit is not None and received > limit:
                    raise RequestEntityTooLarge(
                        f"The body is larger than the limit of {limit} bytes"
                    )
            return chunk, message.get("more_body", False)
        if kind == "http.disconnect":
            raise ClientDisconnected("The client disconnected before the body ended")
        return b"", True

    async def _decode_form(self) -> FormData:
        if self._form is not None:
            return self._form
        if not FormEventDecoder.supports(self.mimetype):
            self._form = EMPTY_FORM
            return EMPTY_FORM
        # The core's decoder in its two halves: parsing runs here, on the
        # loop (pure computation), and the collector writes the files: here
        # while the body fed stays within DEFAULT_SPOOL_MEMORY, so that no
        # default spool can reach the disk on the loop, and past that on the
        # io pool, through a SpoolWriter (see _spool for why it hands
        # over the way it does).
        decoder = FormEventDecoder(
            self.mimetype,
            self.mimetype_params,
            content_length=self.content_length,
            limits=self.form_limits,
        )
        collector = FormCollector(self.spool, _open_for_writing)
        writer: SpoolWriter | None = None
        fed = 0
        try:
            async for batch in self._form_batches():
                events = decoder.feed(batch)
                fed += len(batch)
                if writer is None and fed <= DEFAULT_SPOOL_MEMORY:
                    # No file can outgrow a memory spool yet: no disk write.
                    collector.send(events)
                    continue
                if writer is None:
                    writer = SpoolWriter(asyncio.get_running_loop(), collector, self.threads.io)
                await writer.send(events)
            events = decoder.close()
            if writer is None:
                collector.send(events)
            else:
                await writer.finish(events)
        except BaseException:
            if writer is not None:
                await writer.stop()
            collector.discard()
            raise
        self._form = collector.result()
        return self._form

    async def _form_batches(self) -> AsyncIterator[bytes]:
        """Return the body in batches of about ``FORM_BATCH_SIZE``, as it arrives.

        A batch is the chunks of successive messages joined, up to the first
        that brings it to ``FORM_BATCH_SIZE`` bytes or ``FORM_BATCH_PIECES``
        chunks: less than ``FORM_BATCH_SIZE`` plus one chunk, and a body of
        tiny chunks is never held as many small objects. The last batch may
        be shorter. A body kept by :meth:`body` is one batch.
        """
        if self._body is not None:
            if self._body:
                yield self._body
            return
        if self._body_state != _UNREAD:
            raise RuntimeError(ALREADY_STREAMED)
        receive = self._reading_receiver().receive
        # PERF: the messages are read here, as _chunks reads them, rather than
        # through stream(): one async generator per form instead of two.
        self._body_state = _STREAMING
        try:
            self._check_declared_length()
            pieces: list[bytes] = []
            size = 0
            more = True
            while more:
                chunk, more = self._take(await receive())
                if chunk:
                    pieces.append(chunk)
                    size += len(chunk)
                if pieces and (
                    not more or size >= FORM_BATCH_SIZE or len(pieces) >= FORM_BATCH_PIECES
                ):
                    # PERF: join returns a lone bytes chunk itself, without a
                    # copy. The pieces are let go before the batch is decoded.
                    batch = b"".join(pieces)
                    pieces = []
                    size = 0
                    yield batch
        finally:
            self._body_state = _READ

    async def is_disconnected(self) -> bool:
        """Return whether the client is known to have gone, without waiting.

        Returns:
            True once the server reported ``http.disconnect``.
        """
        return await self._reading_receiver().poll()

    # -- blocking reads: each one handed over to the event loop ----------

    def _bridge(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the request's event loop; wait for its result."""
        loop = self._loop
        if loop is None or loop.is_closed():
            coroutine.close()
            raise RuntimeError(
                "this request has no running event loop to read its body through; "
                "build it inside the ASGI application"
            )
        # NOTE: the calling thread is not the loop's (BodyRequest checks
        # that first), so waiting here cannot deadlock the loop.
        # PERF: a task whose done callback releases a plain lock is a third
        # cheaper than run_coroutine_threadsafe, whose concurrent Future
        # waits on a Condition and is chained through one more callback.
        handoff = _Handoff(coroutine)
        try:
            loop.call_soon_threadsafe(handoff.start)
        except RuntimeError:
            coroutine.close()
            raise
        return handoff.wait()

    def _read_body(self) -> bytes:
        return self._bridge(self.body())

    def _read_chunks(self) -> Iterator[bytes]:
        if self._body is not None:
            return iter((self._body,) if self._body else ())
        # Called here, not in the generator: a consumed body fails at once.
        chunks = self.stream()
        return self._bridged_chunks(chunks)

    def _bridged_chunks(self, chunks: AsyncIterator[bytes]) -> Iterator[bytes]:
        while (chunk := self._bridge(_next_chunk(chunks))) is not None:
            yield chunk

    def _read_form(self) -> FormData:
        if self._form is not None:
            return self._form
        return self._bridge(self._decode_form())

    def _poll_disconnect(self) -> bool:
        return self._bridge(self.is_disconnected())

    @property
    def _receiver(self) -> Receiver:
        """The receiver of the request's messages, made when first needed."""
        receiver = self._made_receiver
        if receiver is None:
            receiver = self._made_receiver = Receiver(self._receive)
        return receiver

    def _reading_receiver(self) -> Receiver:
        """The receiver, for a read awaited by the application.

        Raises:
            RuntimeError: Awaited on an event loop other than the one the
                request was built on (``asyncio.run(request.body())`` in a
                ``def`` view), whose awaits on the server's ``receive()``
                would never wake up.
        """
        # PERF: checked once per read the application awaits, not at each
        # of the adapter's own uses of the receiver, which run on its loop.
        loop = self._loop
        if loop is not None:
            running = self._running_loop()
            if running is not None and running is not loop:
                raise RuntimeError(FOREIGN_LOOP)
        return self._receiver

    @property
    def has_resources(self) -> bool:
        """Whether :meth:`close` has anything to release."""
        receiver = self._made_receiver
        return self._form is not None or (receiver is not None and receiver.receiving)

    async def close(self) -> None:
        """Release what the request holds: a pending ``receive()``, uploads."""
        await self._receiver.close()
        form, self._form = self._form, None
        if form is not None and form.files:
            if all(_in_memory(upload.stream) for _, upload in form.files.items(multi=True)):
                # PERF: closing a file that never left memory frees a buffer;
                # a thread hop would cost more than the close.
                form.close()
            else:
                await self.threads.io.submit(form.close)


def _in_memory(file: object) -> bool:
    """Return whether ``file`` is a default spool that never rolled to disk."""
    # NOTE: _rolled is how SpooledTemporaryFile tells itself where it is;
    # a file without it counts as on disk, and is closed off the loop.
    return isinstance(file, tempfile.SpooledTemporaryFile) and not getattr(file, "_rolled", True)


class _Handoff(Generic[T]):
    """One coroutine run on the event loop for a thread that waits for it."""

    __slots__ = ("_coroutine", "_done", "_error", "_task")

    def __init__(self, coroutine: Coroutine[Any, Any, T]) -> None:
        self._coroutine = coroutine
        self._done = threading.Lock()
        self._done.acquire()
        self._task: asyncio.Task[T] | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        """Start the task, on the loop's thread, in the caller's context."""
        try:
            task = self._task = asyncio.get_running_loop().create_task(self._coroutine)
        except BaseException as exc:
            # A closing loop: tell the thread rather than leave it waiting.
            self._coroutine.close()
            self._error = exc
            self._done.release()
            raise
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[T]) -> None:
        self._done.release()

    def wait(self) -> T:
        """Block until the task is done; return its result or raise its error."""
        self._done.acquire()
        if self._task is None:
            raise RuntimeError("the event loop could not run the read") from self._error
        return self._task.result()


async def _next_chunk(chunks: AsyncIterator[bytes]) -> bytes | None:
    try:
        return await chunks.__anext__()
    except StopAsyncIteration:
        return None


async def _once(data: bytes) -> AsyncIterator[bytes]:
    if data:
        yield data
