"""Run coroutines from WSGI worker threads: the App's ``coroutine_runner``.

Each worker thread keeps one event loop and reuses it for every call (a new
loop per call costs far more than the call). Where a loop is already running
in the calling thread (an async test, gevent's monkey-patched world), the
coroutine runs on a helper thread's loop instead of failing. The context is
copied either way, so ``current_request`` works inside the coroutine, and
tasks the coroutine leaves pending are cancelled and logged, never dropped
silently.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from typing import Any

__all__ = ["CoroutineRunner"]

logger = logging.getLogger("sansio_http.wsgi")


class CoroutineRunner:
    """Run a coroutine to completion on the calling thread's own event loop."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._helper: asyncio.AbstractEventLoop | None = None
        self._helper_thread: threading.Thread | None = None
        self._helper_lock = threading.Lock()

    def __call__(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Return the coroutine's result, or raise its exception."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._run_here(coroutine)
        # A loop is running in this thread: blocking it with
        # run_until_complete is impossible, so hand over to the helper loop.
        return asyncio.run_coroutine_threadsafe(coroutine, self._helper_loop()).result()

    def _run_here(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        owned: _OwnedLoop | None = getattr(self._local, "loop", None)
        if owned is None or owned.loop.is_closed():
            owned = self._local.loop = _OwnedLoop()
        loop = owned.loop
        # run_until_complete wraps the coroutine in a task, which copies the
        # current context: the App's request variable included.
        try:
            return loop.run_until_complete(coroutine)
        finally:
            _cancel_leftovers(loop)

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


def _serve_forever(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_forever()
    finally:
        loop.close()


class _OwnedLoop:
    """A thread's loop, closed when the thread (or the runner) lets go of it."""

    __slots__ = ("loop",)

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def close(self) -> None:
        if not self.loop.is_closed() and not self.loop.is_running():
            self.loop.close()

    def __del__(self) -> None:
        # NOTE: worker threads end without telling us; closing here keeps
        # the loop's selector from leaking until the loop object is freed.
        self.close()


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if not pending:
        return
    logger.warning(
        "a coroutine left %d task(s) pending; they are cancelled: %r", len(pending), pending
    )
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
