"""Pulling a streamed body off the server's thread, for idle chunks.

A body with an idle plan (``idle_interval``) must send its idle chunk while
its producer is busy, which the server's thread, blocked in the producer,
cannot do. :class:`_ThreadPuller` runs a ``def`` producer on a helper thread
that may run a bounded way ahead; :class:`_LoopPuller` runs an ``async def``
one on an event loop of its own. Both give the server's thread an item, or
:data:`_IDLE` when the interval passed first; the generators at the end
turn that into the chunks the server sends.

Both close the producer before the closers that follow it (the work after
the response, the request's release) run, as the ASGI adapter does: the
loop puller runs the producer's ``finally`` within its ``close()``; the
thread puller takes those closers, and when its producer is still inside
``next()`` it runs them on the helper thread, once that ``next()`` has
returned and the producer has been closed.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import logging
import threading
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Sequence,
)
from typing import Any, Final

from sansio_http.messages._chunks import IdlePlan

logger: Final = logging.getLogger("sansio_http.wsgi")


def _close_all(closers: list[Callable[[], object]]) -> None:
    """Call every closer even if one raises; re-raise the first error after."""
    error: BaseException | None = None
    for closer in closers:
        try:
            closer()
        except Exception as exc:  # the others must still run
            if error is None:
                error = exc
            else:
                logger.exception("Error while closing a response", exc_info=exc)
    if error is not None:
        raise error


#: What a puller returns when the interval passed without an item.
_IDLE: Final = object()
#: What a puller returns at the end of its source.
_END: Final = object()

# PERF: how far a sync producer may run ahead of the server's thread, which
# sends what is waiting as one chunk. 64 KiB is what an event loop's
# transport buffers before it pauses a writer (asyncio's and uvicorn's high
# water mark) and, at most, one write of a socket's default send buffer;
# 64 items bound the bookkeeping of tiny ones (a few events per millisecond
# make a batch of a few; a producer that makes them faster than the socket
# takes them fills it).
_AHEAD_ITEMS: Final = 64
_AHEAD_BYTES: Final = 64 * 1024


class _LoopPuller:
    """Pull an async iterable on an event loop of its own, run by the caller.

    NOTE: a WSGI worker thread runs no event loop, so a new one per body
    blocks nothing else. The loop runs only while the server's thread waits
    for an item. One task on it pulls the producer, an item each time one is
    asked for, so that the producer runs in one context from item to item,
    as an ASGI server's task would run it (a task per item would lose what
    the producer sets in a ``ContextVar``), and so that an item costs no
    task of its own (PERF). An item still pending at a timeout stays
    pending (never cancelled) and is waited for again. :meth:`close` cancels
    the task, so that a producer's ``finally`` runs where it waits, then
    runs ``aclose()`` of the iterator and of the body when that is another
    object, and closes the loop. The loop is made at the first item, so
    that a body closed unread (HEAD) costs one ``aclose()`` only.
    """

    __slots__ = ("_asked", "_body", "_closed", "_iterator", "_loop", "_owner", "_pump", "_result")

    def __init__(self, body: AsyncIterable[object], owner: object) -> None:
        self._body = body
        # What is closed: the body, or a transform's wrapper around it.
        self._owner = owner
        self._iterator: AsyncIterator[object] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pump: asyncio.Task[None] | None = None
        # Set by get() to ask the pump for an item; the pump makes the next one.
        self._asked: asyncio.Future[None] | None = None
        # The item asked for: done when the pump has it.
        self._result: asyncio.Future[object] | None = None
        self._closed = False

    def get(self, timeout: float | None = None) -> object:
        """Return the next item, :data:`_IDLE` after ``timeout`` s, or :data:`_END`."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.new_event_loop()
            self._iterator = self._body.__aiter__()
            self._asked = loop.create_future()
            self._pump = loop.create_task(self._run())
        result = self._result
        if result is None:
            result = self._result = loop.create_future()
            asked = self._asked
            if asked is not None:
                asked.set_result(None)
        if not result.done():
            if timeout is None:
                loop.run_until_complete(result)
            else:
                _run_until(loop, result, timeout)
                if not result.done():
                    return _IDLE
        self._result = None
        return result.result()

    async def _run(self) -> None:
        iterator: Any = self._iterator
        loop = asyncio.get_running_loop()
        while True:
            asked = self._asked
            if asked is not None:
                await asked
            self._asked = loop.create_future()
            result = self._result
            if result is None:  # pragma: no cover - get() asks with a result to fill
                return
            try:
                item = await iterator.__anext__()
            except StopAsyncIteration:
                result.set_result(_END)
                return
            except asyncio.CancelledError:
                # close(): nothing waits for the item any more.
                result.cancel()
                raise
            except BaseException as exc:
                result.set_exception(exc)
                return
            result.set_result(item)

    def close(self) -> None:
        """Stop the producer and close it, once."""
        if self._closed:
            return
        self._closed = True
        loop = self._loop
        body = self._body
        if loop is None:
            # Never pulled: only the body's aclose(), on a loop for that alone.
            _run_aclose(self._owner)
            return
        try:
            pump = self._pump
            if pump is not None and not pump.done():
                pump.cancel()
                loop.run_until_complete(asyncio.wait((pump,)))
            result = self._result
            if result is not None and result.done() and not result.cancelled():
                result.exception()  # retrieved: the stream is over anyway
            iterator = self._iterator
            if iterator is not body:
                aclose = getattr(iterator, "aclose", None)
                if aclose is not None:
                    loop.run_until_complete(aclose())
            aclose = getattr(self._owner, "aclose", None)
            if aclose is not None:
                loop.run_until_complete(aclose())
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


def _run_until(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], timeout: float
) -> None:
    """Run ``loop`` until ``future`` is done or ``timeout`` seconds have passed."""
    wake = loop.create_future()

    def on_time(_: object = None) -> None:
        if not wake.done():
            wake.set_result(None)

    future.add_done_callback(on_time)
    handle = loop.call_later(timeout, on_time)
    try:
        loop.run_until_complete(wake)
    finally:
        handle.cancel()
        future.remove_done_callback(on_time)


class _ThreadPuller:
    """Pull a sync iterable from a helper thread that runs a few items ahead.

    PERF: handing each item across threads costs two thread switches, more
    than a small event takes to make. The helper instead runs the
    producer's ``next()`` and appends each item to a buffer, up to
    :data:`_AHEAD_ITEMS` items or :data:`_AHEAD_BYTES` bytes of them, and
    the server's thread takes every item waiting at once (:meth:`take`), to
    send them joined as one chunk: they were all made already, so joining
    them delays none. When the server's thread is waiting for an item, the
    helper hands it over and waits until it is taken before it runs ahead
    again, so that a slow producer's items go out one by one, at once.

    The buffer bounds the memory; items still in it when the body is closed
    are dropped. Between items the producer is suspended, and :meth:`close`
    closes it from the server's thread, then runs the closers it was given.
    A producer still inside ``next()`` cannot be interrupted (a thread
    cannot be): the helper closes it as soon as that ``next()`` returns and
    then runs those closers, so that the work after the response still
    comes after the producer's ``finally``; the server's thread does not
    wait for it. A producer that never returns holds them back for good, as
    it would under ASGI.
    """

    __slots__ = (
        "_body",
        "_busy",
        "_closed",
        "_closing",
        "_condition",
        "_ended",
        "_error",
        "_items",
        "_iterator",
        "_owner",
        "_size",
        "_stopping",
        "_taker_waits",
        "_then",
        "_thread",
    )

    def __init__(self, body: Iterable[object], owner: object) -> None:
        self._body = body
        # What is closed: the body, or a transform's wrapper around it.
        self._owner = owner
        self._iterator: Iterator[object] | None = None
        self._thread: threading.Thread | None = None
        self._condition = threading.Condition(threading.Lock())
        self._items: collections.deque[object] = collections.deque()
        self._size = 0  # the bytes of the items in the buffer
        self._ended = False  # the producer ended (or raised _error)
        self._error: BaseException | None = None
        self._busy = False  # the helper is inside next()
        self._closing = False  # close() came while it was: the helper closes
        self._stopping = False  # close() came between items: the helper ends
        self._taker_waits = False  # the server's thread waits for an item
        self._closed = False
        # The closers to run once the producer is closed (given to close()).
        self._then: Sequence[Callable[[], object]] = ()

    def take(self, timeout: float | None = None) -> list[object] | None:
        """Return the items waiting, ``[]`` after ``timeout`` s, or None at the end.

        Raises:
            BaseException: What the producer's ``next()`` raised, once the
                items before it were taken.
        """
        if self._thread is None:
            self._iterator = iter(self._body)
            # NOTE: in a copy of this context (the request's): the producer
            # sees it, as it would on the server's thread.
            self._thread = threading.Thread(
                target=contextvars.copy_context().run,
                args=(self._serve,),
                name="sansio-http-stream",
                daemon=True,
            )
            self._thread.start()
        condition = self._condition
        with condition:
            items = self._items
            if not items and not self._ended:
                self._taker_waits = True
                condition.wait(timeout)
                self._taker_waits = False
            if items:
                batch = list(items)
                items.clear()
                self._size = 0
                condition.notify()  # a helper waiting for room runs on
                return batch
            if not self._ended:
                return []
            error, self._error = self._error, None
        if error is not None:
            raise error
        return None

    def _serve(self) -> None:
        iterator: Any = self._iterator
        condition = self._condition
        items = self._items
        while True:
            with condition:
                # Wait for room, or for a waiting taker to take the last item.
                while not self._stopping and (
                    len(items) >= _AHEAD_ITEMS
                    or self._size >= _AHEAD_BYTES
                    or (items and self._taker_waits)
                ):
                    condition.wait()
                if self._stopping:
                    return  # close() closes the producer from its own thread
                self._busy = True
            error: BaseException | None = None
            try:
                item = next(iterator, _END)
            except BaseException as exc:
                item, error = _END, exc
            with condition:
                self._busy = False
                if self._closing:
                    break
                if item is _END:
                    self._ended = True
                    self._error = error
                else:
                    items.append(item)
                    self._size += _size_of(item)
                if self._taker_waits:
                    condition.notify()
                if item is _END:
                    return
        self._close_late()

    def _close_late(self) -> None:
        """Close the producer, then run the closers after it, on the helper thread.

        The server's thread is gone from this response: nobody is left to
        raise to, so each error is logged and the next closer still runs.
        """
        _close_quietly(self._close_source)
        for closer in self._then:
            try:
                closer()
            except Exception:
                logger.exception("Error while closing a response")

    def _close_source(self) -> None:
        iterator = self._iterator
        closers = []
        if iterator is not None and iterator is not self._body:
            close = getattr(iterator, "close", None)
            if close is not None:
                closers.append(close)
        close = getattr(self._owner, "close", None)
        if close is not None:
            closers.append(close)
        _close_all(closers)

    def close(self, then: Sequence[Callable[[], object]] = ()) -> None:
        """Close the producer once, then call each of ``then``.

        Both happen now, or, when the producer is inside ``next()``, on the
        helper thread as soon as that ``next()`` returns; this call does not
        wait for it.

        Args:
            then: What must run after the producer is closed: the work
                after the response, the release of the request.

        Raises:
            Exception: The first error of closing the producer or of
                ``then``, when they run now (the others are logged); each
                error is logged when they run later.
        """
        if self._closed:
            return
        self._closed = True
        with self._condition:
            if self._busy:
                self._closing = True
                self._then = then
                return
            self._stopping = True
            self._items.clear()
            self._condition.notify_all()
        thread = self._thread
        if thread is not None:
            thread.join()
        _close_all([self._close_source, *then])


def _size_of(item: object) -> int:
    """Return the bytes an item of a stream holds, counted against the bound."""
    if isinstance(item, memoryview):
        return item.nbytes
    if isinstance(item, (bytes, bytearray, str)):
        return len(item)
    return 0  # not a chunk: the adapter refuses it when it comes to it


def _close_quietly(close: Callable[[], object]) -> None:
    try:
        close()
    except Exception:
        logger.exception("Error while closing a response body")


def _pulled_chunks(puller: _LoopPuller) -> Generator[object, None, None]:
    """Yield the items of a pulled body, waiting without a timeout."""
    while True:
        item = puller.get()
        if item is _END:
            return
        yield item


def _idle_chunks(puller: _LoopPuller, plan: IdlePlan) -> Generator[bytes, None, None]:
    """Yield the bytes of a body that asks for idle chunks, idle chunks included."""
    interval = plan.interval
    while True:
        item = puller.get(interval)
        if item is _END:
            break
        yield plan.idle() if item is _IDLE else plan.feed(item)
    yield plan.end()


def _batched_idle_chunks(puller: _ThreadPuller, plan: IdlePlan) -> Generator[bytes, None, None]:
    """Yield the bytes of a sync body that asks for idle chunks, a batch per chunk.

    The items taken together are joined, in their order, each whole: an
    idle chunk is sent only when none came for the interval, never within.
    """
    interval = plan.interval
    feed = plan.feed
    plain = plan.plain
    while True:
        batch = puller.take(interval)
        if batch is None:
            break
        if not batch:
            yield plan.idle()
        elif len(batch) == 1:
            item = batch[0]
            yield item if plain and type(item) is bytes else feed(item)
        else:
            # PERF: bytes items, the usual ones, without a call each.
            yield b"".join(
                [item if plain and type(item) is bytes else feed(item) for item in batch]
            )
    yield plan.end()


def _run_aclose(body: object) -> None:
    """Run the ``aclose()`` of a body that will not be iterated, if it has one."""
    aclose = getattr(body, "aclose", None)
    if aclose is None:
        return
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(aclose())
    finally:
        loop.close()
