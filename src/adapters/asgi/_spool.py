"""Writing the uploads of a form off the event loop, one batch at a time.

``ASGIRequest`` parses a form body on the event loop and hands the events of
each batch of the body to a :class:`SpoolWriter`, which sends them to the
core's ``FormCollector`` (the spool file writes) in the App's io pool,
in order, while the loop receives and parses the next batch.

PERF: the handover is shaped by the GIL. Parsing holds the GIL; a write to a
spool file releases it only for the system call, and a thread whose call
returns gets the GIL back only when the loop's thread lets go of it, which
a busy loop does once per switch interval (5 ms). So each batch is written
by one ``write`` call (the request joins a batch's chunks before parsing
them, so that a file's share of the batch is one ``bytes``), and the loop
waits, idle, until the worker has *taken* the batch it handed over rather
than until the worker is done with it: while the loop is idle the worker gets
the GIL at once, takes the next batch and starts writing it, and the loop
goes on parsing the one after during that write.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Sequence

from sansio_http.bodies._formdata import FormEvent
from sansio_http.bodies._forms import FormCollector

from ._threads import ThreadPool

__all__ = ["SpoolWriter"]


class SpoolWriter:
    """Send batches of form events to a collector in a thread of a pool.

    The batches are sent in the order they were handed over, by one thread at
    a time. Memory stays bounded: :meth:`send` returns only once the worker
    has taken its batch, so at most two batches are held here, the one being
    written and the one waiting for it. A worker runs while batches are
    waiting and then gives its thread back, so a slow upload holds no thread.

    Args:
        loop: The event loop of the request, which calls every method.
        collector: The collector whose ``send`` writes the files.
        pool: The pool whose threads write (the App's io pool).
    """

    __slots__ = (
        "_collector",
        "_error",
        "_job",
        "_lock",
        "_loop",
        "_pool",
        "_queue",
        "_running",
        "_stop",
    )

    def __init__(
        self, loop: asyncio.AbstractEventLoop, collector: FormCollector, pool: ThreadPool
    ) -> None:
        self._pool = pool
        self._loop = loop
        self._collector = collector
        # The batches not taken yet, each with the future to resolve when taken.
        self._queue: deque[tuple[Sequence[FormEvent], asyncio.Future[None] | None]] = deque()
        # Guards _queue and _running, which the worker and the loop both use.
        self._lock = threading.Lock()
        self._running = False
        self._job: asyncio.Future[None] | None = None
        self._error: BaseException | None = None
        self._stop = False

    async def send(self, events: Sequence[FormEvent]) -> None:
        """Hand over a batch; return once the worker has taken it.

        Raises:
            BaseException: What an earlier batch raised in the collector,
                such as an ``OSError`` from a spool file.
        """
        taken = self._loop.create_future()
        self._put(events, taken)
        await taken
        self._raise()

    async def finish(self, events: Sequence[FormEvent]) -> None:
        """Hand over the last batch and wait until every batch is written.

        Raises:
            BaseException: What a batch raised in the collector.
        """
        self._put(events, None)
        await self._wait()
        self._raise()

    async def stop(self) -> None:
        """Drop the batches not taken yet; wait for the batch being written."""
        self._stop = True
        await self._wait()

    def _put(self, events: Sequence[FormEvent], taken: asyncio.Future[None] | None) -> None:
        with self._lock:
            self._queue.append((events, taken))
            if self._running:
                return
            self._running = True
        self._job = self._pool.submit(self._work)

    async def _wait(self) -> None:
        job = self._job
        if job is not None and not job.done():
            # asyncio.wait, unlike awaiting the job, does not cancel it when
            # this waiter is cancelled: the thread cannot be stopped anyway.
            await asyncio.wait((job,))

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _work(self) -> None:
        """Send the waiting batches, in the worker's thread, until none is left."""
        queue, lock = self._queue, self._lock
        try:
            while True:
                with lock:
                    if not queue:
                        self._running = False
                        return
                    events, taken = queue.popleft()
                if taken is not None:
                    # Before the write: the loop goes on during it (see above).
                    self._loop.call_soon_threadsafe(_set_taken, taken)
                if self._error is None and not self._stop:
                    try:
                        self._collector.send(events)
                    except BaseException as exc:
                        # Raised on the loop by the next send() or finish().
                        self._error = exc
        except BaseException:
            # call_soon_threadsafe on a closed loop: nobody waits any more.
            with lock:
                self._running = False
            raise


def _set_taken(taken: asyncio.Future[None]) -> None:
    # The waiter may have been cancelled meanwhile.
    if not taken.done():
        taken.set_result(None)
