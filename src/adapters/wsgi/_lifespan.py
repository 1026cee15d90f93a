"""An App's async lifespan under WSGI: held open on an event loop of its own.

``App(lifespan=...)`` may be an async context manager. A WSGI server has no
event loop, and the :class:`~sansio_http.wsgi.CoroutineRunner` runs one
coroutine at a time on each thread's loop, so entering the context manager
there and exiting it at shutdown would run its two halves in two tasks,
maybe on two loops, and cancel whatever task it started in between (a
refresher, an ``anyio`` task group). :func:`hold` runs it instead as one
task on a loop of its own, in a thread that lives from the startup to the
shutdown: the context manager is entered and exited in that task, and the
tasks it starts keep running while the App serves.

NOTE: that loop is not the one the ``async def`` views run on (each worker
thread has its own), so what the lifespan yields must not be bound to its
loop (an ``asyncpg`` pool is; a settings object or a thread-safe client is
not). That holds for every WSGI worker thread anyway.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

__all__ = ["hold"]


def hold(
    context: AbstractAsyncContextManager[Any],
) -> tuple[Any, Callable[[BaseException | None], None]]:
    """Enter ``context`` in a task of its own loop and thread; keep it open.

    Returns:
        What the context manager yielded, and a function that exits it,
        given the error that ends it or None, and returns once it exited
        (raising what the exit raised). It is called once.

    Raises:
        Exception: What entering the context manager raised; the thread
            has ended then.
    """
    held = _Held(context)
    return held.entered.result(), held.exit


class _Held:
    """One async context manager held open by a task on a loop of its own."""

    __slots__ = ("_loop", "_stopping", "_thread", "entered", "exited")

    def __init__(self, context: AbstractAsyncContextManager[Any]) -> None:
        self.entered: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.exited: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Future[BaseException | None] | None = None
        # NOTE: a daemon thread: the interpreter joins the other threads
        # before it runs the atexit functions, one of which exits the lifespan.
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._run(context),), name="sansio-http-lifespan", daemon=True
        )
        self._thread.start()

    async def _run(self, context: AbstractAsyncContextManager[Any]) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = self._loop.create_future()
        try:
            value = await context.__aenter__()
        except BaseException as exc:
            self.entered.set_exception(exc)
            return
        self.entered.set_result(value)
        error = await self._stopping
        try:
            if error is None:
                await context.__aexit__(None, None, None)
            else:
                await context.__aexit__(type(error), error, error.__traceback__)
        except BaseException as exc:
            self.exited.set_exception(exc)
        else:
            self.exited.set_result(None)

    def exit(self, error: BaseException | None) -> None:
        """Exit the context manager, with ``error`` or none; wait until it did.

        Raises:
            Exception: What the context manager's exit raised.
            RuntimeError: The thread that holds it is gone: this process is
                a fork of the one that entered it (``gunicorn --preload``).
        """
        loop, stopping = self._loop, self._stopping
        if loop is None or stopping is None:  # pragma: no cover (entered means both set)
            raise RuntimeError("the lifespan was not entered")
        if not self._thread.is_alive():
            # NOTE: a fork keeps no thread but its caller's; waiting for the
            # exit would hang the process (a gunicorn worker) at its exit.
            raise RuntimeError(
                "the App's async lifespan is held by a thread of the process that "
                "started the App, and this process is a fork of it (gunicorn --preload?): "
                "let each worker import the App, or use a sync lifespan"
            )
        loop.call_soon_threadsafe(stopping.set_result, error)
        try:
            self.exited.result()
        finally:
            # asyncio.run cancels the tasks the lifespan left, then returns.
            self._thread.join()
