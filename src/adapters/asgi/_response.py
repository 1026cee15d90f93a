"""Sending a core ``Response`` through ASGI ``send()``.

A response becomes ``http.response.start`` and then body messages with
``more_body``. Bytes go in one message. Other bodies are streamed, and
while they are, a task listens for ``http.disconnect`` so that a client that
leaves stops the stream instead of leaving it running. The head of a streamed
body waits for its first non-empty chunk, as a WSGI server's does, so that a
body failing before it is still a 500 under both adapters. Work that may block
runs in the App's thread pools (:class:`~._threads.ThreadPools`), one chunk at
a time, never on the event loop nor in its default executor: a sync iterator's
``next()`` and ``close()`` in the ``streams`` pool, file reads in the ``io``
pool, plain functions of the work after the response in the ``requests`` pool.

A chunk may be ``str``, encoded with the response's charset. A body that asks
for idle chunks (``messages._chunks.KeepAliveStream``) is pulled as any other,
and one timer task per stream sends the idle chunk when an interval passes
without a chunk, while the same pending item is still awaited. Every body is
closed once, ``aclose()`` for an async one and ``close()`` for a sync one, on
every path; a sync producer blocked in a thread when the client leaves is
closed as soon as its pending ``next()`` returns, since a thread cannot be
interrupted. Work registered with ``Response.call_on_close`` runs after the
last message (:func:`run_close_work`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
import os
import stat
import time
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterable,
    Iterator,
)
from typing import IO, Any, Final, cast

from sansio_http.messages._chunks import ChunkEncoder, IdlePlan, idle_plan
from sansio_http.messages._files import FileBody, FileRegion
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

from ._close import close_body, close_both, close_pulled, close_sync, finish
from ._idle import _IdleTimer
from ._receive import Receiver
from ._threads import DEFAULT_POOLS, ThreadPool, ThreadPools
from ._types import Message, Send

__all__ = ["READ_SIZE", "ResponseSender", "run_close_work"]

logger: Final = logging.getLogger("sansio_http.asgi")

# PERF: 256 KiB per read and per message: large enough that the thread hop
# and the message cost little against the copy, small enough to keep the
# memory of a slow download bounded (uvicorn pauses at 64 KiB of writes).
READ_SIZE: Final = 256 * 1024
# PERF: a file region up to this size is read whole, in one call in the thread
# pool: the icons, scripts and style sheets of a site, mostly.
SMALL_FILE_SIZE: Final = 64 * 1024

_END: Final = object()

# The framing fields a 1xx or 204 must not carry (RFC 9110 §8.6, RFC 9112 §6.1).
# NOTE: a 304 may keep the Content-Length of the 200 it stands for, but the one
# a response holds is that of its own body, rarely the 200's, and uvicorn's
# httptools mode then waits for that much content and fails the response. The
# core's make_conditional() drops it from a 304 too.
NO_LENGTH_FIELDS: Final = frozenset({b"content-length", b"transfer-encoding"})


class _FileShrank(Exception):
    """The file ended before the length promised in the response head."""


class ResponseSender:
    """Send one response, remembering whether its head has gone out.

    Args:
        send: The server's ``send`` callable.
        receiver: The request's receiver, to watch for a disconnect while a
            body is streamed; None to stream without watching.
        extensions: The scope's ``extensions``; ``http.response.pathsend``
            lets whole files be sent by the server.
        start_type: The type of the head message.
        body_type: The type of the body messages.
        threads: The pools that pull sync bodies and read files; the
            shared default pools when None.
    """

    __slots__ = (
        "_body_type",
        "_extensions",
        "_io",
        "_receiver",
        "_send",
        "_start_type",
        "_streams",
        "client_gone",
        "started",
    )

    def __init__(
        self,
        send: Send,
        receiver: Receiver | None = None,
        extensions: dict[str, Any] | None = None,
        *,
        start_type: str = "http.response.start",
        body_type: str = "http.response.body",
        threads: ThreadPools | None = None,
    ) -> None:
        pools = DEFAULT_POOLS if threads is None else threads
        self._streams = pools.streams
        self._io = pools.io
        self._send = send
        self._receiver = receiver
        self._extensions = extensions or {}
        self._start_type = start_type
        self._body_type = body_type
        #: True once the head message was sent: an error now cannot become
        #: an error response, only a closed connection.
        self.started = False
        #: True once ``send()`` raised OSError: the client is gone (ASGI 2.4).
        self.client_gone = False

    @property
    def disconnected(self) -> bool:
        """Whether the client is known to have gone."""
        return self.client_gone or (self._receiver is not None and self._receiver.disconnected)

    async def _emit(self, message: Message) -> None:
        try:
            await self._send(message)
        except OSError:
            self.client_gone = True
            raise

    async def send(self, response: Response, *, head: bool = False) -> None:
        """Send the response's head and body.

        Args:
            response: The response to send.
            head: Send the head only (a response to HEAD); the body is
                closed unread.

        Raises:
            Exception: Whatever reading the body raised. A body that fails
                before the head was sent can still be answered with a 500;
                after it, the caller must let the connection close.
        """
        body = response.body
        status = response.status
        start = {
            "type": self._start_type,
            "status": status,
            "headers": response.raw_headers(),
        }
        if status < 200 or status == 204 or status == 304:
            # RFC 9110 §15.3.5, §15.4.5: no content, whatever body the response
            # holds. A server would refuse it or read it as the start of the
            # next response on the connection.
            await self._send_no_content(start, body)
        elif isinstance(body, bytes):
            # PERF: the usual case inline, two sends and no helper coroutines;
            # as _start and _emit would, it marks the head sent, or the client gone.
            self.started = True
            send = self._send
            try:
                await send(start)
                await send(
                    {"type": self._body_type, "body": b"" if head else body, "more_body": False}
                )
            except OSError:
                self.client_gone = True
                raise
        elif head:
            await close_body(body, self._streams)
            await self._start(start)
            await self._send_body(b"", more=False)
        elif isinstance(body, FileBody):
            await self._send_file(start, body)
        else:
            plan = idle_plan(body, response)
            if plan is None:
                chunks, other = _chunks(body, self._streams)
                await self._stream(self._copy(start, chunks, ChunkEncoder(response), other))
            else:
                await self._stream(self._copy_idle(start, plan, body))

    async def _send_no_content(self, start: Message, body: object) -> None:
        """Send the head of a 1xx, 204 or 304, and close the body unread."""
        start["headers"] = [
            (name, value) for name, value in start["headers"] if name not in NO_LENGTH_FIELDS
        ]
        if not isinstance(body, bytes):
            await close_body(body, self._streams)
        await self._start(start)
        await self._send_body(b"", more=False)

    async def _start(self, message: Message) -> None:
        self.started = True
        await self._emit(message)

    async def _send_body(self, chunk: bytes, *, more: bool) -> None:
        await self._emit({"type": self._body_type, "body": chunk, "more_body": more})

    async def _stream(self, copy: Coroutine[Any, Any, None]) -> None:
        if self._receiver is None:
            await copy
            return
        copying = asyncio.ensure_future(copy)
        listening = asyncio.ensure_future(self._receiver.wait_disconnect())
        try:
            await asyncio.wait((copying, listening), return_when=asyncio.FIRST_COMPLETED)
        finally:
            # Whichever is left is of no more use: a finished body needs no
            # listener, and a gone client no more chunks.
            for task in (copying, listening):
                task.cancel()
            await asyncio.wait((copying, listening))
        if not copying.cancelled():
            copying.result()  # raises what the body raised

    async def _copy(
        self,
        start: Message,
        chunks: AsyncIterator[bytes | str],
        encode: Callable[[object], bytes],
        other: object = None,
    ) -> None:
        # The head waits for the first non-empty chunk: until then, an error
        # can still become a 500 (a WSGI server does the same). ``other`` is
        # an async body whose iterator is another object: both are closed.
        waiting = True
        try:
            async for chunk in chunks:
                # PERF: the type check inline; a call per chunk costs ~10%.
                data = chunk if type(chunk) is bytes else encode(chunk)
                if not data:
                    continue
                # The listener may have seen the disconnect while this chunk
                # was being made: nothing more is sent to a gone client.
                if self.disconnected:
                    return
                if waiting:
                    waiting = False
                    await self._start(start)
                await self._send_body(data, more=True)
        finally:
            await finish(close_both(chunks, other, self._streams))
        if not self.disconnected:
            if waiting:
                await self._start(start)
            await self._send_body(b"", more=False)

    async def _copy_idle(self, start: Message, plan: IdlePlan, body: object) -> None:
        """Stream a body that asks for idle chunks (see ``KeepAliveStream``).

        The producer is pulled as a plain stream is: its ``__anext__()``
        awaited here, or a sync one's ``next()`` in the streams pool. One
        timer task (:class:`_IdleTimer`) sends the idle chunk when an
        interval passes without a chunk; the producer's pending item is never
        cancelled for it. The head goes out with the first chunk, idle or not.
        """
        streams = self._streams
        # NOTE: the producer's steps run in one copy of this context, as an
        # async producer runs in this task's: it sees the request's context
        # (url_for), and what it sets stays from one item to the next.
        context = contextvars.copy_context()
        source: Any = plan.source
        pulled_async = isinstance(source, AsyncIterable)
        iterator: Any = None
        pending: asyncio.Future[Any] | None = None
        timer = _IdleTimer(self, start, plan)
        # PERF: what each item needs, in locals.
        feed = plan.feed
        plain = plan.plain
        send = self._send
        body_type = self._body_type
        receiver = self._receiver
        clock = time.monotonic
        try:
            iterator = aiter(source) if pulled_async else iter(source)
            timer.start()
            try:
                if pulled_async:
                    get = iterator.__anext__
                else:
                    step = functools.partial(context.run, next, iterator, _END)
                while True:
                    if pulled_async:
                        try:
                            # NOTE: awaited here, not in a task of its own: a
                            # disconnect cancels this task, which raises
                            # CancelledError where the producer waits, so that
                            # its ``finally`` runs.
                            item = await get()
                        except StopAsyncIteration:
                            break
                    else:
                        # NOTE: the thread cannot be interrupted: the future
                        # stays pending for _close_pulled to wait for.
                        pending = streams.submit(step)
                        item = await asyncio.shield(pending)
                        pending = None
                        if item is _END:
                            break
                    if timer.sending is not None:
                        # An idle chunk is on its way: this item's bytes go after it.
                        await timer.sending
                    # PERF: no await between feed() and the send below but the
                    # send itself, during which ``busy`` keeps the timer away.
                    data = item if plain and type(item) is bytes else feed(item)
                    if data:
                        # The listener may have seen the disconnect meanwhile.
                        if self.client_gone or (receiver is not None and receiver.disconnected):
                            return
                        timer.busy = True
                        if timer.waiting:
                            timer.waiting = False
                            await self._start(start)
                        # PERF: _send_body inline, without two coroutines per item.
                        try:
                            await send({"type": body_type, "body": data, "more_body": True})
                        except OSError:
                            self.client_gone = True
                            raise
                        timer.busy = False
                    timer.last = clock()
                await timer.stop()
            except asyncio.CancelledError:
                timer.raise_failure()
                raise
            data = plan.end()
        finally:
            # Cancelled at once, so that the timer can send nothing more.
            timer.cancel()
            await finish(
                close_pulled(streams, context, pending, iterator, source, body, timer.task)
            )
        if not self.disconnected:
            if timer.waiting:
                await self._start(start)
            await self._send_body(data, more=False)

    async def _send_file(self, start: Message, body: FileBody) -> None:
        segments = body.segments
        io = self._io
        if "http.response.pathsend" in self._extensions and await _is_whole_file(body, io):
            await self._start(start)
            await self._emit({"type": "http.response.pathsend", "path": os.path.abspath(body.path)})
            return
        if len(segments) == 1:
            region = segments[0]
            if isinstance(region, FileRegion) and region.length is not None:
                if region.length <= SMALL_FILE_SIZE:
                    await self._send_small_file(start, body.path, region.offset, region.length)
                    return
        # Opened before the head is sent, so that a missing file is still a 500.
        file = await io.submit(_open_binary, body.path)
        try:
            await self._stream(self._copy(start, _file_chunks(file, segments, io), _not_bytes))
        finally:
            await io.submit(file.close)

    async def _send_small_file(
        self,
        start: Message,
        path: str,
        offset: int,
        length: int,
    ) -> None:
        # PERF: a region that fits one read is opened, read and closed in one
        # call in the io pool instead of four (open, seek, read, close).
        # As on the general path, an error before the head is still a 500.
        data = await self._io.submit(_read_region, path, offset, length)
        if len(data) < length:
            # The file shrank: the general path's chunks, and then its error.
            await self._stream(self._copy(start, _short_file(path, data), _not_bytes))
            return
        if self.disconnected:
            return  # as on the general path: nothing more for a gone client
        await self._start(start)
        await self._send_body(data, more=False)


def _open_binary(path: str) -> IO[bytes]:
    return open(path, "rb")


def _read_region(path: str, offset: int, length: int) -> bytes:
    """Return ``length`` bytes of ``path`` from ``offset``, fewer if the file is shorter."""
    with open(path, "rb") as file:
        if offset:
            file.seek(offset)
        return file.read(length)


async def _short_file(path: str, data: bytes) -> AsyncIterator[bytes]:
    # What _file_chunks yields for a file that shrank after its size was read.
    if data:
        yield data
    raise _FileShrank(f"{path!r} shrank while it was being sent")


async def _is_whole_file(body: FileBody, io: ThreadPool) -> bool:
    """Return whether the body is one region covering the whole of a regular file.

    NOTE: anything else (a directory, a missing file) takes the general
    path, whose open fails before the head: a 500, as without pathsend.
    A server handed the path would fail after the head, or not at all.
    """
    segments = body.segments
    if len(segments) != 1 or not isinstance(segments[0], FileRegion):
        return False
    offset, length = segments[0]
    if offset != 0:
        return False
    size = await io.submit(_regular_file_size, body.path)
    return size is not None and (length is None or size == length)


def _regular_file_size(path: str) -> int | None:
    """Return the size of the regular file at ``path``, None for anything else."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _not_bytes(chunk: object) -> bytes:
    raise TypeError(f"a file body yields bytes, not {type(chunk).__name__}")


def _chunks(
    body: Iterable[bytes | str] | AsyncIterable[bytes | str], streams: ThreadPool
) -> tuple[AsyncIterator[bytes | str], object]:
    """Return the chunks of a body, and the body when it must be closed apart."""
    if isinstance(body, AsyncIterable):
        iterator = aiter(body)
        # An async iterable whose iterator is another object: its aclose()
        # is the body's, and must run too.
        return iterator, (None if iterator is body else body)
    if isinstance(body, (list, tuple)):
        # PERF: items already in memory cannot block; no thread needed.
        return _from_sequence(body), None
    return _from_thread(body, streams), None


async def _from_sequence(items: Iterable[bytes | str]) -> AsyncIterator[bytes | str]:
    for item in items:
        yield item


async def _from_thread(
    body: Iterable[bytes | str], streams: ThreadPool
) -> AsyncIterator[bytes | str]:
    """Run each ``next()`` of a sync iterable, and its close, in the streams pool.

    They run in one copy of this context, as ``_copy_idle``'s do.
    """
    iterator: Iterator[bytes | str] | None = None
    context = contextvars.copy_context()
    try:
        iterator = iter(body)
        step = functools.partial(context.run, next, iterator, _END)
        while True:
            future = streams.submit(step)
            try:
                chunk = await asyncio.shield(future)
            except asyncio.CancelledError:
                # NOTE: the thread cannot be interrupted; wait for it before
                # close() runs, or the generator would be "already executing".
                await asyncio.wait((future,))
                raise
            if chunk is _END:
                return
            yield cast("bytes | str", chunk)
    finally:
        # NOTE: the body's own close(), and its iterator's when that is
        # another object (a class whose __iter__ is a generator): PEP 3333's
        # promise to a producer, kept under ASGI too.
        await finish(streams.submit(context.run, close_sync, iterator, body))


async def _file_chunks(
    file: IO[bytes], segments: tuple[bytes | FileRegion, ...], io: ThreadPool
) -> AsyncIterator[bytes]:
    for segment in segments:
        if isinstance(segment, bytes):
            yield segment
            continue
        offset, remaining = segment
        await io.submit(file.seek, offset)
        while remaining is None or remaining > 0:
            size = READ_SIZE if remaining is None else min(READ_SIZE, remaining)
            chunk = await io.submit(file.read, size)
            if not chunk:
                break
            if remaining is not None:
                remaining -= len(chunk)
            yield chunk
        if remaining:
            # The head promised more bytes than the file now holds: padding or
            # a short body would corrupt it, so the connection must close.
            raise _FileShrank(f"{file.name!r} shrank while it was being sent")


async def run_close_work(
    response: Response,
    request: Request,
    thread_runner: Callable[..., Awaitable[Any]] | None = None,
) -> None:
    """Run the work registered with ``response.call_on_close``, in order.

    Coroutine functions are awaited here; plain functions run off the event
    loop, in ``thread_runner`` (an App's request pool), with the context
    copied. An exception is logged with the request line and the next
    function still runs: the response is sent, and nothing can answer it
    any more.

    Args:
        response: The response sent.
        request: The request it answered, named in the log.
        thread_runner: ``await thread_runner(func)`` runs a plain function
            in a thread; the shared default request pool when None.
    """
    work = getattr(response, "_close_work", None)
    if not work:
        return
    run = DEFAULT_POOLS.requests if thread_runner is None else thread_runner
    for func in work:
        try:
            if inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
                getattr(func, "__call__", None)  # noqa: B004 (the method itself is inspected)
            ):
                await func()
            else:
                await run(func)
        except Exception:
            logger.exception(
                "Error in work after the response to %s %s", request.method, request.full_path
            )
