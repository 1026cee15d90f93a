"""Closing response bodies under ASGI: once, whatever their kind and whatever the path.

An async body is closed with ``aclose()`` on the loop; a sync one's
``close()`` may block (a producer's ``finally``) and runs in the App's
streams pool, in the context its items were made in. A close that a
disconnect's cancellation reaches still runs to its end (:func:`finish`),
so that the work after the response never runs before the producer's
``finally``.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import types
from collections.abc import AsyncIterable, Awaitable
from typing import Any

from ._threads import ThreadPool

__all__ = ["close_body", "close_both", "close_pulled", "close_sync", "finish"]


async def finish(cleanup: Awaitable[None]) -> None:
    """Await a body's cleanup to its end, even if this task is cancelled meanwhile.

    NOTE: a disconnect cancels the copy while it may be closing the body
    already (a failed send ends it too); the cancellation must not cut the
    producer's ``finally`` short, nor leave it running after the work that
    follows the response.
    """
    task = asyncio.ensure_future(cleanup)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait((task,))
        raise


async def close_both(chunks: object, other: object, streams: ThreadPool) -> None:
    try:
        await close_body(chunks, streams)
    finally:
        if other is not None:
            await close_body(other, streams)


def close_sync(iterator: object, body: object) -> None:
    """Close a sync body, and its iterator first when that is another object."""
    try:
        if iterator is not None and iterator is not body:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()
    finally:
        close = getattr(body, "close", None)
        if close is not None:
            close()


async def close_pulled(
    streams: ThreadPool,
    context: contextvars.Context,
    pending: asyncio.Future[Any] | None,
    iterator: Any,
    source: object,
    body: object,
    timer: asyncio.Task[None] | None,
) -> None:
    """Close a body pulled by ``ResponseSender``'s idle copy, whatever its producer is doing.

    ``body`` is what the response held (maybe a transform's wrapper, which
    closes its source), ``source`` the producer pulled and ``iterator`` its
    iterator, closed too when it is another object. ``pending`` is a sync
    producer's ``next()`` still running in a thread, and ``timer`` the
    idle timer's task, cancelled already: both are waited for first.
    """
    if timer is not None:
        await asyncio.wait((timer,))
    if isinstance(source, AsyncIterable):
        # A producer waiting when the client left got CancelledError where it
        # waits (the copying task was cancelled), so its ``finally`` ran; an
        # async generator's aclose() then finds it finished.
        if iterator is not None and iterator is not source:
            await close_body(iterator, streams)
        await close_body(body, streams)
        return
    if pending is not None:
        # NOTE: a thread cannot be interrupted: the producer is closed as
        # soon as its pending next() returns (close() now would find the
        # generator "already executing"), as the pull of a sync body does.
        await asyncio.wait((pending,))
        if not pending.cancelled():
            pending.exception()  # retrieved: the stream is over anyway
    # The iterator when it is not the source itself, then the body given (a
    # transform's wrapper closes its source).
    await streams.submit(context.run, close_sync, None if iterator is source else iterator, body)


async def close_body(body: object, streams: ThreadPool) -> None:
    """Release a body that will not be (fully) read.

    A sync body's ``close()`` may block (a producer's ``finally``): it runs
    in the streams pool, unless the body is a generator never started, whose
    close runs no code of its own (PERF: a HEAD answered from a generator).
    """
    aclose = getattr(body, "aclose", None)
    if aclose is not None:
        await aclose()
        return
    close = getattr(body, "close", None)
    if close is None:
        return
    if (
        isinstance(body, types.GeneratorType)
        and inspect.getgeneratorstate(body) == inspect.GEN_CREATED
    ):
        close()
        return
    await streams.submit(contextvars.copy_context().run, close)
