"""Run coroutines from WSGI worker threads: the App's ``coroutine_runner``.

Each worker thread keeps one event loop and reuses it for every call (a new
loop per call costs far more than the call). Where a loop is already running
in the calling thread (an async test, gevent's monkey-patched world), the
coroutine runs on a helper thread's loop instead of failing. The context is
copied either way, so ``current_request`` works inside the coroutine, and
tasks the coroutine leaves pending are cancelled and logged, never dropped
silently.

PERF: a call costs little more than the loop's own ``run_until_complete``:
whether a loop is running is read without raising, and the tasks a call
leaves are found among the tasks its loop created, which a task factory
records, instead of in ``asyncio.all_tasks()`` (every task of the process).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

__all__ = ["CoroutineRunner"]

logger = logging.getLogger("sansio_http.wsgi")

T = TypeVar("T")


class CoroutineRunner:
    """Run a coroutine to completion on the calling thread's own event loop.

    What :func:`to_wsgi` installs as ``App.coroutine_runner`` and what
    :func:`wsgi_app` runs an ``async def`` handler with. A framework that
    serves ``async def`` views from WSGI worker threads makes one and calls
    it with each view's coroutine; :meth:`close` it when the process stops.

    Example:
        >>> async def answer() -> int:
        ...     return 42
        >>> run = CoroutineRunner()
        >>> run(answer())
        42
        >>> run.close()
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self._helper: asyncio.AbstractEventLoop | None = None
        self._helper_thread: threading.Thread | None = None
        self._helper_lock = threading.Lock()

    def __call__(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Return the coroutine's result, or raise its exception."""
        # NOTE: not get_running_loop(), whose RuntimeError would become the
        # __context__ of every exception the coroutine raises, and be logged
        # with it as "During handling of the above exception".
        if asyncio._get_running_loop() is None:
            return self._run_here(coroutine)
        # A loop is running in this thread: blocking it with
        # run_until_complete is impossible, so hand over to the helper loop.
        return asyncio.run_coroutine_threadsafe(coroutine, self._helper_loop()).result()

    def _run_here(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        owned: _OwnedLoop | None = getattr(self._local, "loop", None)
        if owned is None or owned.loop.is_closed():
            owned = self._local.loop = _OwnedLoop()
        loop, created = owned.loop, owned.created
        # The task copies the current context: the App's request variable included.
        # PERF: not run_until_complete, whose done callback stops the loop one
        # iteration (one more poll of the selector) after the coroutine ends;
        # the coroutine's own task stops it as it ends.
        task = loop.create_task(_stopping(loop, coroutine))
        try:
            try:
                loop.run_forever()
            except BaseException:
                if task.done() and not task.cancelled():
                    # Retrieved here, as it propagates: never "never retrieved".
                    task.exception()
                raise
            if not task.done():
                # Stopped by the coroutine itself: what run_until_complete says.
                raise RuntimeError("Event loop stopped before Future completed.")
            return task.result()
        finally:
            # The coroutine's own task is done (unless the coroutine stopped the
            # loop, which leaves it as run_until_complete did); others may be pending.
            if len(created) > 1:
                _cancel_leftovers(loop, [other for other in created if other is not task])
            created.clear()

    def _helper_loop(self) -> asyncio.AbstractEventLoop:
        with self._helper_lock:
            if self._helper is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=_serve_forever, args=(loop,), name="sansio-http-coroutines", daemon=True
                )
                thread.start()
                self._helper = loop
                self._helper_thread = thread
            return self._helper

    def close(self) -> None:
        """Close this thread's loop and stop the helper loop."""
        owned: _OwnedLoop | None = getattr(self._local, "loop", None)
        if owned is not None:
            owned.close()
        if self._helper is not None and self._helper_thread is not None:
            self._helper.call_soon_threadsafe(self._helper.stop)
            self._helper_thread.join(5)
            self._helper = self._helper_thread = None


async def _stopping(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]) -> T:
    """Await ``coroutine``, then stop ``loop``, which runs it alone."""
    try:
        return await coroutine
    finally:
        loop.stop()


def _serve_forever(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_forever()
    finally:
        loop.close()


class _OwnedLoop:
    """A thread's loop, closed when the thread (or the runner) lets go of it.

    Attributes:
        loop: The event loop.
        created: The tasks the loop created during the current call.
    """

    __slots__ = ("created", "loop")

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.created: list[asyncio.Task[Any]] = []
        # NOTE: the factory holds the list, not self, so that no reference
        # cycle delays __del__ past the end of the thread.
        self.loop.set_task_factory(_recording_factory(self.created))

    def close(self) -> None:
        if not self.loop.is_closed() and not self.loop.is_running():
            self.loop.close()

    def __del__(self) -> None:
        # NOTE: worker threads end without telling us; closing here keeps
        # the loop's selector from leaking until the loop object is freed.
        self.close()


def _recording_factory(created: list[asyncio.Task[Any]]) -> Any:
    """Return a task factory that appends every task it makes to ``created``."""

    def create_task(
        loop: asyncio.AbstractEventLoop,
        coroutine: Coroutine[Any, Any, T] | Generator[Any, None, T],
        **options: Any,
    ) -> asyncio.Task[T]:
        # Options (context, and name or eager_start on newer Pythons) are the
        # ones loop.create_task passes on; Task takes them all.
        task = asyncio.Task(coroutine, loop=loop, **options)
        created.append(task)
        return task

    return create_task


def _cancel_leftovers(loop: asyncio.AbstractEventLoop, created: list[asyncio.Task[Any]]) -> None:
    pending = [task for task in created if not task.done()]
    if not pending:
        return
    logger.warning(
        "a coroutine left %d task(s) pending; they are cancelled: %r", len(pending), pending
    )
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
