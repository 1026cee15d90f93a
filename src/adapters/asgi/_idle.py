"""The idle timer of a streamed body under ASGI: one per stream.

A body with an idle plan (``idle_interval``) sends its idle chunk whenever
its producer stays quiet that long. The sender awaits the producer
directly; one timer task per stream sleeps until the last send plus the
interval and sends the idle chunk then, never in the middle of a chunk and
never by cancelling the producer.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from sansio_http.messages._chunks import IdlePlan

from ._types import Message


class _Sender(Protocol):
    """What the timer needs of the stream's ``ResponseSender``."""

    @property
    def disconnected(self) -> bool: ...

    async def _start(self, message: Message) -> None: ...

    async def _send_body(self, chunk: bytes, *, more: bool) -> None: ...


class _IdleTimer:
    """The one task that sends a stream's idle chunks while its producer waits.

    PERF: the stream notes the time of its last chunk in :attr:`last`, a
    clock read per item; the task sleeps until ``last + interval`` and,
    when no chunk came meanwhile, sends the idle chunk. A busy stream wakes
    it once per interval, instead of arming a timeout (and a task) per item.

    Chunks never interleave: the stream's send sets :attr:`busy`, and the
    timer, finding it set, counts the stream as not idle; the timer's send
    is :attr:`sending`, which the stream awaits before it feeds the next
    item to the transforms, so that each transform sees its input in the
    order sent. When the timer's send fails (the client is gone), it cancels
    the copying task, whose producer's ``finally`` then runs where it waits,
    and the copy raises that error (:meth:`raise_failure`).
    """

    __slots__ = (
        "_head",
        "_owner",
        "_plan",
        "_sender",
        "busy",
        "failure",
        "last",
        "sending",
        "task",
        "waiting",
    )

    def __init__(
        self,
        sender: _Sender,
        head: Message,
        plan: IdlePlan,
    ) -> None:
        self._sender = sender
        self._head = head
        self._plan = plan
        self._owner: asyncio.Task[Any] | None = None
        #: The task, once started.
        self.task: asyncio.Task[None] | None = None
        #: When the last chunk was sent (or the stream started), by
        #: ``time.monotonic()``: a clock of our own, since the loop's may be
        #: another (uvloop's) and ``asyncio.sleep`` takes a delay anyway.
        self.last = 0.0
        #: True while the stream sends a chunk of its own.
        self.busy = False
        #: True until the head is sent, by the stream or the timer.
        self.waiting = True
        #: Done when the idle chunk being sent is; None when none is.
        self.sending: asyncio.Future[None] | None = None
        #: What the timer's send raised.
        self.failure: Exception | None = None

    def start(self) -> None:
        """Start the timer, on behalf of the current (copying) task."""
        self._owner = asyncio.current_task()
        self.last = time.monotonic()
        self.task = asyncio.ensure_future(self._run())

    def cancel(self) -> None:
        """Stop the timer at once; an idle chunk being sent is cut short."""
        if self.task is not None:
            self.task.cancel()

    async def stop(self) -> None:
        """Stop the timer once the idle chunk it may be sending is sent."""
        if self.sending is not None:
            await self.sending
        self.cancel()

    def raise_failure(self) -> None:
        """Raise what the timer's send raised, if that is why the copy was cancelled."""
        failure = self.failure
        if failure is None:
            return
        # Python 3.11 counts the requests to cancel a task: the timer's is
        # withdrawn, and another one (a disconnect's) stays a cancellation.
        owner = self._owner
        cancelling = getattr(owner, "cancelling", None)
        if cancelling is not None:
            if cancelling() > 1:
                return
            owner.uncancel()  # type: ignore[union-attr]
        # The copy ends with the send's error, as if it had sent the chunk.
        raise failure

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        interval = self._plan.interval
        sender = self._sender
        clock = time.monotonic
        while True:
            delay = self.last + interval - clock()
            if delay > 0:
                await asyncio.sleep(delay)
                continue
            self.last = clock()
            if sender.disconnected:
                return
            if self.busy:
                # A chunk is on its way: the stream is not idle.
                continue
            data = self._plan.idle()
            if not data:
                continue
            sending = self.sending = loop.create_future()
            try:
                if self.waiting:
                    self.waiting = False
                    await sender._start(self._head)
                await sender._send_body(data, more=True)
            except Exception as exc:
                # NOTE: the producer may stay idle long: the copy is stopped
                # now rather than at its next item.
                self.failure = exc
                if self._owner is not None:
                    self._owner.cancel()
                return
            finally:
                self.sending = None
                sending.set_result(None)
            self.last = clock()
