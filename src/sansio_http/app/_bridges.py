"""The sync/async bridges: how an App calls any function from either side.

The core has no event loop and no thread. :meth:`_Bridges.ensure_sync` and
:meth:`_Bridges.ensure_async` turn a view, hook or handler into the kind the
driver calls, through runners that the adapters install when they mount the
App: ``coroutine_runner`` (WSGI: a coroutine run to completion from a worker
thread) and ``thread_runner`` (ASGI: a plain call in the App's thread pool,
context copied). Each function is converted once and kept.

The wrapper the default :meth:`_Bridges.ensure_async` returns names the plain
function it runs (:data:`BLOCKING`), so that the async driver can run a
request's consecutive ``def`` steps in one call on one thread, through a
:class:`Lane` of the thread runner's when it offers them (see
``_dispatch``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from typing import Any, Final, Protocol, TypeVar, cast

from typing_extensions import ParamSpec

__all__ = ["BLOCKING", "CoroutineRunner", "Lane", "ThreadRunner"]

P = ParamSpec("P")
R = TypeVar("R")

#: Runs a coroutine to completion from sync code (installed by the WSGI adapter).
CoroutineRunner = Callable[[Coroutine[Any, Any, Any]], Any]
#: Runs a plain call off the event loop, context copied (installed by the ASGI adapter).
ThreadRunner = Callable[..., Awaitable[Any]]

#: The attribute of the default ``ensure_async`` wrapper that holds the plain
#: function it runs in a thread.
BLOCKING: Final = "_sansio_blocking"


class Lane(Protocol):
    """Calls that a thread runner runs one after another on one thread.

    A thread runner that has a ``lane()`` method returning one lets the
    App run all the ``def`` steps of a request on one thread (the ASGI
    adapter's pools do).
    """

    @property
    def held(self) -> bool:
        """Whether a thread is waiting for the lane's next call."""

    async def call(self, func: Callable[..., tuple[bool, Any]], /, *args: Any) -> Any:
        """Run ``func(*args)`` on the lane's thread; return its ``value``.

        ``func`` returns ``(hold, value)``; with ``hold`` the thread waits for
        the lane's next call. When the call is cancelled, it raises only once
        the thread is done with it.
        """

    def release(self) -> None:
        """Let the lane's thread go."""


class _Raised:
    """What :func:`_call_view` returns for a view that raised."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


def _call_view(view: Callable[..., Any], request: Any, values: dict[str, Any]) -> Any:
    """Call a def view on its lane's thread: ``(hold, result)`` for ``Lane.call``.

    The thread stays with the lane only when the view raised, for the
    error handlers that follow.
    """
    try:
        # PERF: a call without ** when there are no values.
        return False, (view(request, **values) if values else view(request))
    except Exception as exc:
        return True, _Raised(exc)


# The lane of the request being dispatched, for the dispatch of a mounted App.
_lane_var: Final[ContextVar[Lane | None]] = ContextVar("sansio_http.lane", default=None)


class _Bridges:
    """Conversion of functions between sync and async, for the App."""

    coroutine_runner: CoroutineRunner | None
    thread_runner: ThreadRunner | None
    _sync_cache: dict[Callable[..., Any], Callable[..., Any]]
    _async_cache: dict[Callable[..., Any], Callable[..., Awaitable[Any]]]

    def _prepare(self, func: Callable[..., Any]) -> None:
        # Convert once, at registration, through the App's (maybe overridden)
        # methods; the runners themselves are looked up at call time, since
        # the adapters install them when they mount the App.
        if func not in self._sync_cache:
            self._sync_cache[func] = self.ensure_sync(func)
        if func not in self._async_cache:
            self._async_cache[func] = self.ensure_async(func)

    def ensure_sync(self, func: Callable[P, Any]) -> Callable[P, Any]:
        """Return a plain function that runs ``func`` to completion.

        A coroutine function is run through :attr:`coroutine_runner`, which
        the WSGI adapter installs. Override this to use another event loop
        library; blueprints use the App's method too.
        """
        if not inspect.iscoroutinefunction(func):
            return func

        @functools.wraps(func)
        def run(*args: P.args, **kwargs: P.kwargs) -> Any:
            runner = self.coroutine_runner
            if runner is None:
                raise RuntimeError(
                    f"{func.__qualname__} is a coroutine function, and no coroutine runner "
                    "is installed: mount the App with sansio_http.wsgi.to_wsgi or set "
                    "App.coroutine_runner"
                )
            return runner(func(*args, **kwargs))

        return run

    def ensure_async(self, func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
        """Return a coroutine function that calls ``func``.

        A plain function runs through :attr:`thread_runner` (the App's thread
        pool, installed by the ASGI adapter) with the context copied, so it
        cannot block the event loop. Override this to run some functions
        inline; blueprints use the App's method too.
        """
        if inspect.iscoroutinefunction(func):
            return cast(Callable[P, Awaitable[R]], func)

        @functools.wraps(func)
        async def run(*args: P.args, **kwargs: P.kwargs) -> R:
            runner = self.thread_runner
            if runner is None:
                raise RuntimeError(
                    f"{func.__qualname__} is a plain function, and no thread runner is "
                    "installed: mount the App with sansio_http.asgi.to_asgi or set "
                    "App.thread_runner"
                )
            return cast(R, await runner(func, *args, **kwargs))

        # The driver runs the plain function itself on a request's lane.
        setattr(run, BLOCKING, func)
        return run

    def _sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync_cache[func]
        except KeyError:
            converted = self._sync_cache[func] = self.ensure_sync(func)
            return converted

    def _async(self, func: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
        try:
            return self._async_cache[func]
        except KeyError:
            converted = self._async_cache[func] = self.ensure_async(func)
            return converted
