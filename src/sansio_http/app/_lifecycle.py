"""The App's lifecycle: startup and shutdown hooks, run once per process.

One App may be mounted several times in a process: ``to_asgi(app)`` and
``to_wsgi(app)`` side by side in one module (as the quickstart does), a
server that mounts the App itself, or one test client per test. Its hooks
must still run once: the first mount to start runs the startup hooks while
the others wait for it and share the *lifespan state* the hooks filled, and
the first mount to stop after a complete startup runs the shutdown hooks.
Once they ran, a later start begins a new cycle (a test client entered
again).

:class:`Lifecycle` holds those rules, with a driver for each side, as the
dispatch module does: :meth:`~Lifecycle.start_sync` and
:meth:`~Lifecycle.stop_sync` for the WSGI adapter,
:meth:`~Lifecycle.start_async` and :meth:`~Lifecycle.stop_async` for the
ASGI lifespan. The core never blocks: the adapter hands in the event that
another mount waits on, and how to run a plain or a coroutine function
(``App.ensure_sync`` or ``App.ensure_async``).
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from sansio_http.messages._state import State

__all__ = ["Done", "Lifecycle", "hook_arguments"]

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)

# The lifecycle whose startup hooks the current context runs: a hook that
# mounts its own App again would otherwise wait for itself forever. Both
# runners copy the context into the hooks they run.
_starting: contextvars.ContextVar[Lifecycle | None] = contextvars.ContextVar(
    "sansio_http.starting", default=None
)


class Done(Protocol):
    """What another mount waits on until a startup ends (``threading.Event``)."""

    def set(self) -> None:
        """Wake up every waiter."""

    def is_set(self) -> bool:
        """Return whether :meth:`set` was called."""

    def wait(self) -> object:
        """Block until :meth:`set` is called."""


class _Startup:
    """One claim of the startup: who waits, and how it ended."""

    __slots__ = ("complete", "done", "error")

    def __init__(self, done: Done) -> None:
        self.done = done
        self.complete = False
        self.error: BaseException | None = None

    def outcome(self) -> None:
        """Raise, for a mount that waited, when the startup it waited for failed."""
        if self.error is not None:
            raise RuntimeError(
                f"the App's startup failed in another mount: {self.error!r}"
            ) from self.error


def hook_arguments(func: Callable[..., Any], state: State) -> tuple[State, ...]:
    """Return the arguments of a startup or shutdown hook: the state, or none.

    A hook with one positional parameter receives the lifespan state; one
    without parameters is called without it.

    Raises:
        TypeError: The hook needs more than one argument.
    """
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: call it bare
        return ()
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in parameters if p.default is p.empty and p.kind not in _VARIADIC]
    if len(required) > 1 or any(p.kind is p.KEYWORD_ONLY for p in required):
        name = getattr(func, "__qualname__", repr(func))
        raise TypeError(
            f"the lifecycle hook {name} must take no argument or one, the lifespan "
            "state: def setup(state): ..."
        )
    return (state,) if positional else ()


class Lifecycle:
    """The startup and shutdown hooks of one App, and the state they fill.

    Attributes:
        startup_funcs: The startup hooks, in order.
        shutdown_funcs: The shutdown hooks, in order.
        state: The lifespan state the hooks receive; each request's
            ``request.state`` starts as a shallow copy of it, under either
            adapter.
    """

    __slots__ = ("_claims", "shutdown_funcs", "startup_funcs", "state")

    def __init__(self) -> None:
        self.startup_funcs: list[Callable[..., Any]] = []
        self.shutdown_funcs: list[Callable[..., Any]] = []
        self.state = State()
        # NOTE: who runs a phase is decided by dict.setdefault, which is
        # atomic (under the GIL, and per dict on free-threaded builds): the
        # core takes no lock, yet two threads never both claim the startup.
        self._claims: dict[str, Any] = {}

    @property
    def started(self) -> bool:
        """Whether the startup hooks ran to the end and shutdown has not begun."""
        claim = self._claims.get("startup")
        return claim is not None and claim.complete and "shutdown" not in self._claims

    def _claim_startup(self, done: Done) -> tuple[bool, _Startup]:
        mine = _Startup(done)
        claim: _Startup = self._claims.setdefault("startup", mine)
        return claim is mine, claim

    def _failed(self, claim: _Startup, error: BaseException) -> None:
        claim.error = error
        # A later mount may try again (a test client entered after a fix).
        if self._claims.get("startup") is claim:
            del self._claims["startup"]

    def _refuse_reentry(self) -> None:
        claim = self._claims.get("startup")
        if _starting.get() is self and claim is not None and not claim.done.is_set():
            raise RuntimeError(
                "a startup hook mounted its own App again, and that mount would wait "
                "for the startup it is part of: mount the App outside its startup hooks"
            )

    def _claim_shutdown(self) -> bool:
        claim = self._claims.get("startup")
        if claim is None or not claim.complete:
            return False  # NOTE: shutdown hooks run only after a complete startup
        token = object()
        return self._claims.setdefault("shutdown", token) is token

    def start_sync(self, ensure_sync: Callable[[Any], Callable[..., Any]], done: Done) -> None:
        """Run the startup hooks, unless another mount runs or ran them.

        Args:
            ensure_sync: Makes a plain function of a hook (``App.ensure_sync``).
            done: A fresh event; other mounts wait on it while the hooks run.

        Raises:
            Exception: What the first failing hook raised; the hooks after it
                do not run.
            RuntimeError: The startup this mount waited for failed, or a
                startup hook of this App mounted it again.
        """
        first, claim = self._claim_startup(done)
        if not first:
            self._refuse_reentry()
            if not claim.done.is_set():
                claim.done.wait()
            claim.outcome()
            return
        token = _starting.set(self)
        try:
            self.state.clear()
            for func in self.startup_funcs:
                ensure_sync(func)(*hook_arguments(func, self.state))
        except BaseException as exc:
            self._failed(claim, exc)
            raise
        else:
            claim.complete = True
        finally:
            _starting.reset(token)
            claim.done.set()

    async def start_async(
        self, ensure_async: Callable[[Any], Callable[..., Awaitable[Any]]], done: Done
    ) -> None:
        """Run the startup hooks, unless another mount runs or ran them.

        The same as :meth:`start_sync`, awaited: a mount that waits for
        another's startup waits through ``ensure_async``, off the loop.

        Args:
            ensure_async: Makes a coroutine function of a hook
                (``App.ensure_async``).
            done: A fresh event; other mounts wait on it while the hooks run.

        Raises:
            Exception: What the first failing hook raised.
            RuntimeError: The startup this mount waited for failed, or a
                startup hook of this App mounted it again.
        """
        first, claim = self._claim_startup(done)
        if not first:
            self._refuse_reentry()
            if not claim.done.is_set():
                await ensure_async(claim.done.wait)()
            claim.outcome()
            return
        token = _starting.set(self)
        try:
            self.state.clear()
            for func in self.startup_funcs:
                await ensure_async(func)(*hook_arguments(func, self.state))
        except BaseException as exc:
            self._failed(claim, exc)
            raise
        else:
            claim.complete = True
        finally:
            _starting.reset(token)
            claim.done.set()

    def stop_sync(self, ensure_sync: Callable[[Any], Callable[..., Any]]) -> None:
        """Run the shutdown hooks, if the startup completed and nobody else stops.

        Every hook runs, even after one fails.

        Args:
            ensure_sync: Makes a plain function of a hook (``App.ensure_sync``).

        Raises:
            Exception: What the first failing hook raised, once all ran.
        """
        if not self._claim_shutdown():
            return
        error: BaseException | None = None
        try:
            for func in self.shutdown_funcs:
                try:
                    ensure_sync(func)(*hook_arguments(func, self.state))
                except Exception as exc:
                    error = error or exc
        finally:
            self._claims.clear()  # the next start begins a new cycle
        if error is not None:
            raise error

    async def stop_async(
        self, ensure_async: Callable[[Any], Callable[..., Awaitable[Any]]]
    ) -> None:
        """Run the shutdown hooks, as :meth:`stop_sync` does, awaited.

        Args:
            ensure_async: Makes a coroutine function of a hook
                (``App.ensure_async``).

        Raises:
            Exception: What the first failing hook raised, once all ran.
        """
        if not self._claim_shutdown():
            return
        error: BaseException | None = None
        try:
            for func in self.shutdown_funcs:
                try:
                    await ensure_async(func)(*hook_arguments(func, self.state))
                except Exception as exc:
                    error = error or exc
        finally:
            self._claims.clear()
        if error is not None:
            raise error
