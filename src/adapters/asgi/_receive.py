"""Sharing one ``receive()`` between the body reader and disconnect checks.

An HTTP request has several parties interested in the same ``receive``
callable: the code reading the body, ``is_disconnected()`` polls and, while
a streaming response is being sent, a task listening for
``http.disconnect``. ASGI servers do not promise that concurrent calls to
``receive`` work, nor that a cancelled call loses no message, so every call
goes through one :class:`Receiver`, which keeps at most one ``receive()`` in
flight and hands its messages out in order.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Final

from ._types import Message, Receive

__all__ = ["DISCONNECT", "Receiver"]

DISCONNECT: Final[Message] = {"type": "http.disconnect"}

_POLL_TURNS: Final = 3


class Receiver:
    """Hand out the messages of ``receive()`` in order, without losing any.

    At most one ``receive()`` runs at a time, as a task that nobody cancels
    until :meth:`close`: a caller that gives up waiting (a poll, a cancelled
    listener) leaves the message for the next reader. Body messages are
    buffered until the body reader takes them; at most one unread body chunk
    is held, so a client cannot make the adapter buffer an upload.
    """

    __slots__ = (
        "_buffer",
        "_changed",
        "_pending",
        "_reading",
        "_receive",
        "body_complete",
        "disconnected",
    )

    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        # Messages received and not yet taken by the body reader.
        self._buffer: deque[Message] = deque()
        # The receive() in flight, started by whoever needed a message first.
        self._pending: asyncio.Future[Message] | None = None
        # True while the body reader awaits receive() itself, without a task.
        self._reading = False
        # Set when the body reader empties the buffer or ends a direct read;
        # made on demand by whoever waits for that.
        self._changed: asyncio.Event | None = None
        #: True once ``http.disconnect`` was seen.
        self.disconnected = False
        #: True once the last body message (``more_body`` false) was seen.
        self.body_complete = False

    async def receive(self) -> Message:
        """Return the next message for the body reader.

        Returns:
            The next ``http.request`` message, or ``http.disconnect`` (again
            and again once the client is gone, without asking the server).
        """
        buffer = self._buffer
        while not buffer:
            if self.disconnected:
                return DISCONNECT
            if self._pending is None:
                # PERF: nobody else is waiting for a message, so no task is
                # needed: a body is read at the cost of plain receive() calls.
                self._reading = True
                try:
                    message = await self._receive()
                finally:
                    self._reading = False
                    self._wake()
                self._note(message)
                return message
            await self._fill()
        message = buffer.popleft()
        if not buffer:
            self._wake()
        return message

    async def poll(self) -> bool:
        """Return whether the client is known to be gone, waiting for nothing.

        A message that is already available is taken (a body chunk is kept
        for the body reader); otherwise the ``receive()`` started here stays
        in flight for the next reader.

        Returns:
            True once ``http.disconnect`` was received.
        """
        if self.disconnected:
            return True
        if self._reading or (self._buffer and not self.body_complete):
            # The body reader is receiving (it will see a disconnect), or one
            # unread chunk is held already and reading on would buffer more.
            await asyncio.sleep(0)
            return self.disconnected
        task = self._start()
        # A few turns of the loop let a message that is ready arrive, even
        # through a server's own awaits; none of them waits for the network.
        for _ in range(_POLL_TURNS):
            await asyncio.sleep(0)
            if task.done():
                break
        if task.done() and self._pending is task:
            self._take(task)
        return self.disconnected

    async def wait_disconnect(self) -> None:
        """Return when the client disconnects; body chunks are kept for the app."""
        while not self.disconnected:
            if self._reading or (self._buffer and not self.body_complete):
                # NOTE: the application is reading the body, or may still read
                # this chunk (a streaming response that echoes the request
                # body); wait until it has.
                if self._changed is None:
                    self._changed = asyncio.Event()
                await self._changed.wait()
                continue
            await self._fill()

    @property
    def receiving(self) -> bool:
        """Whether a ``receive()`` started by a poll or a listener is in flight."""
        return self._pending is not None

    async def close(self) -> None:
        """Cancel the ``receive()`` still in flight, if any."""
        task, self._pending = self._pending, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _wake(self) -> None:
        changed, self._changed = self._changed, None
        if changed is not None:
            changed.set()

    def _start(self) -> asyncio.Future[Message]:
        task = self._pending
        if task is None:
            task = self._pending = asyncio.ensure_future(self._read())
        return task

    async def _read(self) -> Message:
        message = await self._receive()
        # Noted at once, not when a waiter wakes up: from this moment on
        # nobody may send to a client that is gone.
        self._note(message)
        return message

    async def _fill(self) -> None:
        task = self._start()
        # asyncio.wait, unlike awaiting the task, never cancels it when this
        # waiter is cancelled: the message stays for the next reader.
        await asyncio.wait((task,))
        if self._pending is task:
            self._take(task)

    def _take(self, task: asyncio.Future[Message]) -> None:
        self._pending = None
        self._buffer.append(task.result())

    def _note(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "http.request":
            if not message.get("more_body", False):
                self.body_complete = True
        elif kind == "http.disconnect":
            self.disconnected = True
