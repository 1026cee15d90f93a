"""Sending a core ``Response`` through ASGI ``send()``.

A response becomes ``http.response.start`` and then body messages with
``more_body``. Bytes go in one message. Other bodies are streamed, and
while they are, a task listens for ``http.disconnect`` so that a client that
leaves stops the stream instead of leaving it running. The head of a streamed
body waits for its first non-empty chunk, as a WSGI server's does, so that a
body failing before it is still a 500 under both adapters. Work that may block
(a sync iterator such as a generator, reading a file) runs in the default
thread pool, one chunk at a time, never on the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import IO, Any, Final

from sansio_http.messages._files import FileBody, FileRegion
from sansio_http.messages._response import Response, body_chunk

from ._receive import Receiver
from ._types import Message, Send

__all__ = ["READ_SIZE", "ResponseSender"]

# PERF: 256 KiB per read and per message: large enough that the thread hop
# and the message cost little against the copy, small enough to keep the
# memory of a slow download bounded (uvicorn pauses at 64 KiB of writes).
READ_SIZE: Final = 256 * 1024

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
    """

    __slots__ = (
        "_body_type",
        "_extensions",
        "_receiver",
        "_send",
        "_start_type",
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
    ) -> None:
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
            await _close_body(body)
            await self._start(start)
            await self._send_body(b"", more=False)
        elif isinstance(body, FileBody):
            await self._send_file(start, body)
        else:
            await self._stream(start, _chunks(body))

    async def _send_no_content(self, start: Message, body: object) -> None:
        """Send the head of a 1xx, 204 or 304, and close the body unread."""
        start["headers"] = [
            (name, value) for name, value in start["headers"] if name not in NO_LENGTH_FIELDS
        ]
        if not isinstance(body, bytes):
            await _close_body(body)
        await self._start(start)
        await self._send_body(b"", more=False)

    async def _start(self, message: Message) -> None:
        self.started = True
        await self._emit(message)

    async def _send_body(self, chunk: bytes, *, more: bool) -> None:
        await self._emit({"type": self._body_type, "body": chunk, "more_body": more})

    async def _stream(self, start: Message, chunks: AsyncIterator[bytes]) -> None:
        if self._receiver is None:
            await self._copy(start, chunks)
            return
        copying = asyncio.ensure_future(self._copy(start, chunks))
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

    async def _copy(self, start: Message, chunks: AsyncIterator[bytes]) -> None:
        # The head waits for the first non-empty chunk: until then, an error
        # can still become a 500 (a WSGI server does the same).
        waiting = True
        try:
            async for chunk in chunks:
                # PERF: the type check inline; a call per chunk costs ~10%.
                data = chunk if type(chunk) is bytes else body_chunk(chunk)
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
            await _close_body(chunks)
        if not self.disconnected:
            if waiting:
                await self._start(start)
            await self._send_body(b"", more=False)

    async def _send_file(self, start: Message, body: FileBody) -> None:
        segments = body.segments
        if "http.response.pathsend" in self._extensions and await _is_whole_file(body):
            await self._start(start)
            await self._emit({"type": "http.response.pathsend", "path": os.path.abspath(body.path)})
            return
        loop = asyncio.get_running_loop()
        # Opened before the head is sent, so that a missing file is still a 500.
        file = await loop.run_in_executor(None, open, body.path, "rb")
        try:
            await self._stream(start, _file_chunks(file, segments))
        finally:
            await loop.run_in_executor(None, file.close)


async def _is_whole_file(body: FileBody) -> bool:
    """Return whether the body is one region covering the whole file."""
    segments = body.segments
    if len(segments) != 1 or not isinstance(segments[0], FileRegion):
        return False
    offset, length = segments[0]
    if offset != 0:
        return False
    if length is None:
        return True
    size = await asyncio.get_running_loop().run_in_executor(None, os.path.getsize, body.path)
    return size == length


def _chunks(body: Iterable[bytes] | AsyncIterable[bytes]) -> AsyncIterator[bytes]:
    if isinstance(body, AsyncIterable):
        return aiter(body)
    if isinstance(body, (list, tuple)):
        # PERF: items already in memory cannot block; no thread needed.
        return _from_sequence(body)
    return _from_thread(iter(body))


async def _from_sequence(items: Iterable[bytes]) -> AsyncIterator[bytes]:
    for item in items:
        yield item


async def _from_thread(iterator: Iterator[bytes]) -> AsyncIterator[bytes]:
    """Run each ``next()`` of a sync iterator in the default thread pool."""
    loop = asyncio.get_running_loop()
    step = functools.partial(next, iterator, _END)
    try:
        while True:
            future = loop.run_in_executor(None, step)
            try:
                chunk = await asyncio.shield(future)
            except asyncio.CancelledError:
                # NOTE: the thread cannot be interrupted; wait for it before
                # close() runs, or the generator would be "already executing".
                await asyncio.wait((future,))
                raise
            if chunk is _END:
                return
            yield chunk
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            await loop.run_in_executor(None, close)


async def _file_chunks(
    file: IO[bytes], segments: tuple[bytes | FileRegion, ...]
) -> AsyncIterator[bytes]:
    loop = asyncio.get_running_loop()
    for segment in segments:
        if isinstance(segment, bytes):
            yield segment
            continue
        offset, remaining = segment
        await loop.run_in_executor(None, file.seek, offset)
        while remaining is None or remaining > 0:
            size = READ_SIZE if remaining is None else min(READ_SIZE, remaining)
            chunk = await loop.run_in_executor(None, file.read, size)
            if not chunk:
                break
            if remaining is not None:
                remaining -= len(chunk)
            yield chunk
        if remaining:
            # The head promised more bytes than the file now holds: padding or
            # a short body would corrupt it, so the connection must close.
            raise _FileShrank(f"{file.name!r} shrank while it was being sent")


async def _close_body(body: object) -> None:
    """Release a body that will not be (fully) read."""
    aclose = getattr(body, "aclose", None)
    if aclose is not None:
        await aclose()
        return
    close = getattr(body, "close", None)
    if close is not None:
        close()
