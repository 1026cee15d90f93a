"""The App's lifecycle: its lifespan and its startup and shutdown hooks, once per process.

One App may be mounted several times in a process: ``to_asgi(app)`` and
``to_wsgi(app)`` side by side in one module (as the quickstart does), a
server that mounts the App itself, or one test client per test. Its hooks
must still run once: the first mount to start runs the startup hooks while
the others wait for it and share the *lifespan state* the hooks filled, and
the first mount to stop after a complete startup runs the shutdown hooks.
Once they ran, a later start begins a new cycle (a test client entered
again).

The App's *lifespan* (``App(lifespan=...)``, Starlette's spelling) is a
context manager, sync or async, around the hooks: it is entered before the
startup hooks, and what it yields (a mapping, or None) seeds the lifespan
state; it is exited after the shutdown hooks, or at once when a startup
hook fails. Once entered, it is exited exactly once.

:class:`Lifecycle` holds those rules, with a driver for each side, as the
dispatch module does: :meth:`~Lifecycle.start_sync` and
:meth:`~Lifecycle.stop_sync` for the WSGI adapter,
:meth:`~Lifecycle.start_async` and :meth:`~Lifecycle.stop_async` for the
ASGI lifespan. The core never blocks: the adapter hands in the event that
another mount waits on, and how to run a plain or a coroutine function
(``App.ensure_sync`` or ``App.ensure_async``). The WSGI adapter also hands
in how to hold an async lifespan open between startup and shutdown
(:data:`Hold`), since its runner's loops run one call at a time.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, Protocol

from sansio_http.messages._state import State

__all__ = [
    "Done",
    "Exit",
    "Hold",
    "Lifecycle",
    "LifespanFactory",
    "check_lifespan",
    "hook_arguments",
]

#: What ``App(lifespan=...)`` takes: a function of the App that returns a
#: context manager, async (``@contextlib.asynccontextmanager``) or not.
LifespanFactory = Callable[[Any], AbstractAsyncContextManager[Any] | AbstractContextManager[Any]]
#: Exits an entered lifespan, given the error that ends it or None; plain or async.
Exit = Callable[[BaseException | None], Any]
#: Enters an async context manager and holds it open on an event loop, from
#: sync code: returns what it yielded and how to exit it (the WSGI adapter's).
Hold = Callable[[AbstractAsyncContextManager[Any]], tuple[Any, Exit]]

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


def check_lifespan(lifespan: object) -> None:
    """Refuse what cannot be an App's lifespan, naming the fix.

    Raises:
        TypeError: ``lifespan`` is not callable, or is a generator or
            coroutine function rather than a context manager factory.
    """
    name = getattr(lifespan, "__qualname__", repr(lifespan))
    if inspect.isasyncgenfunction(lifespan):
        raise TypeError(
            f"the lifespan {name} is an async generator function: decorate it with "
            "@contextlib.asynccontextmanager"
        )
    if inspect.isgeneratorfunction(lifespan):
        raise TypeError(
            f"the lifespan {name} is a generator function: decorate it with "
            "@contextlib.contextmanager (or make it async and use "
            "@contextlib.asynccontextmanager)"
        )
    if inspect.iscoroutinefunction(lifespan):
        raise TypeError(
            f"the lifespan {name} is a coroutine function; it must return a context "
            "manager: write it as an async generator that yields once, decorated with "
            "@contextlib.asynccontextmanager"
        )
    if not callable(lifespan):
        raise TypeError(
            f"lifespan= takes a function of the App that returns a context manager, not "
            f"{type(lifespan).__name__}: decorate it with @contextlib.asynccontextmanager"
        )


def _exit_info(error: BaseException | None) -> tuple[Any, Any, Any]:
    if error is None:
        return None, None, None
    return type(error), error, error.__traceback__


def _context_of(lifespan: Callable[[], object]) -> Any:
    context = lifespan()
    if not hasattr(context, "__aenter__") and not hasattr(context, "__enter__"):
        raise TypeError(
            f"the lifespan returned {type(context).__name__}, not a context manager: "
            "decorate it with @contextlib.asynccontextmanager"
        )
    return context


def _async_exit(context: Any) -> Exit:
    async def exit_lifespan(error: BaseException | None) -> None:
        await context.__aexit__(*_exit_info(error))

    return exit_lifespan


def _sync_exit(context: Any) -> Exit:
    def exit_lifespan(error: BaseException | None) -> None:
        context.__exit__(*_exit_info(error))

    return exit_lifespan


class Lifecycle:
    """The lifespan, startup and shutdown hooks of one App, and the state they fill.

    Args:
        lifespan: Returns the context manager entered around the hooks
            (``App(lifespan=...)`` bound to the App); None for none.

    Attributes:
        lifespan: The lifespan's factory, or None.
        startup_funcs: The startup hooks, in order.
        shutdown_funcs: The shutdown hooks, in order.
        state: The lifespan state the lifespan and the hooks fill; each
            request's ``request.state`` starts as a shallow copy of it,
            under either adapter.
    """

    __slots__ = ("_claims", "_exit", "lifespan", "shutdown_funcs", "startup_funcs", "state")

    def __init__(self, lifespan: Callable[[], object] | None = None) -> None:
        self.lifespan = lifespan
        # How to exit the entered lifespan; None while none is entered.
        self._exit: Exit | None = None
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

    def _seed(self, value: object) -> None:
        if value is None:
            return
        if not isinstance(value, Mapping):
            raise TypeError(
                f"the lifespan yielded {type(value).__name__}; it may yield a mapping, "
                'which seeds the lifespan state (yield {"db": pool}), or nothing'
            )
        self.state.update(value)

    def _enter_sync(
        self, ensure_sync: Callable[[Any], Callable[..., Any]], hold: Hold | None
    ) -> None:
        if self.lifespan is None:
            return
        context = _context_of(self.lifespan)
        if hasattr(context, "__aenter__"):
            if hold is not None:
                value, self._exit = hold(context)
            else:

                async def enter() -> Any:
                    return await context.__aenter__()

                value = ensure_sync(enter)()
                self._exit = _async_exit(context)
        else:
            value = context.__enter__()
            self._exit = _sync_exit(context)
        self._seed(value)

    async def _enter_async(
        self, ensure_async: Callable[[Any], Callable[..., Awaitable[Any]]]
    ) -> None:
        if self.lifespan is None:
            return
        # NOTE: the factory is called on the loop, as Starlette does; a sync
        # context manager's __enter__ runs in the App's thread pool.
        context = _context_of(self.lifespan)
        if hasattr(context, "__aenter__"):
            value = await context.__aenter__()
            self._exit = _async_exit(context)
        else:
            value = await ensure_async(context.__enter__)()
            self._exit = _sync_exit(context)
        self._seed(value)

    def _take_exit(self) -> Exit | None:
        # NOTE: taken before it is called, so that the lifespan exits once.
        exit_lifespan, self._exit = self._exit, None
        return exit_lifespan

    def _claim_shutdown(self) -> bool:
        claim = self._claims.get("startup")
        if claim is None or not claim.complete:
            return False  # NOTE: shutdown hooks run only after a complete startup
        token = object()
        return self._claims.setdefault("shutdown", token) is token

    def start_sync(
        self,
        ensure_sync: Callable[[Any], Callable[..., Any]],
        done: Done,
        hold: Hold | None = None,
    ) -> None:
        """Enter the lifespan and run the startup hooks, unless another mount did.

        Args:
            ensure_sync: Makes a plain function of a hook (``App.ensure_sync``).
            done: A fresh event; other mounts wait on it while the hooks run.
            hold: Holds an async lifespan open until the shutdown; without
                it, its enter and exit each run through ``ensure_sync``.

        Raises:
            Exception: What the lifespan's enter or the first failing hook
                raised; the hooks after it do not run, and an entered
                lifespan is exited with the error.
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
            try:
                self._enter_sync(ensure_sync, hold)
                for func in self.startup_funcs:
                    ensure_sync(func)(*hook_arguments(func, self.state))
            except BaseException as exc:
                exit_lifespan = self._take_exit()
                if exit_lifespan is not None:
                    ensure_sync(exit_lifespan)(exc)
                raise
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
        """Enter the lifespan and run the startup hooks, unless another mount did.

        The same as :meth:`start_sync`, awaited: an async lifespan is entered
        on the loop, a sync one's ``__enter__`` through ``ensure_async`` (the
        App's thread pool); a mount that waits for another's startup waits
        through ``ensure_async``, off the loop.

        Args:
            ensure_async: Makes a coroutine function of a hook
                (``App.ensure_async``).
            done: A fresh event; other mounts wait on it while the hooks run.

        Raises:
            Exception: What the lifespan's enter or the first failing hook
                raised; an entered lifespan is exited with the error.
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
            try:
                await self._enter_async(ensure_async)
                for func in self.startup_funcs:
                    await ensure_async(func)(*hook_arguments(func, self.state))
            except BaseException as exc:
                exit_lifespan = self._take_exit()
                if exit_lifespan is not None:
                    await ensure_async(exit_lifespan)(exc)
                raise
        except BaseException as exc:
            self._failed(claim, exc)
            raise
        else:
            claim.complete = True
        finally:
            _starting.reset(token)
            claim.done.set()

    def stop_sync(self, ensure_sync: Callable[[Any], Callable[..., Any]]) -> None:
        """Run the shutdown hooks and exit the lifespan, once, after a complete startup.

        Every hook runs, even after one fails, and the lifespan exits after
        them all.

        Args:
            ensure_sync: Makes a plain function of a hook (``App.ensure_sync``).

        Raises:
            Exception: What the first failing hook (or the lifespan's exit)
                raised, once all ran.
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
            exit_lifespan = self._take_exit()
            if exit_lifespan is not None:
                try:
                    ensure_sync(exit_lifespan)(None)
                except Exception as exc:
                    error = error or exc
        finally:
            self._claims.clear()  # the next start begins a new cycle
        if error is not None:
            raise error

    async def stop_async(
        self, ensure_async: Callable[[Any], Callable[..., Awaitable[Any]]]
    ) -> None:
        """Run the shutdown hooks and exit the lifespan, as :meth:`stop_sync` does, awaited.

        Args:
            ensure_async: Makes a coroutine function of a hook
                (``App.ensure_async``).

        Raises:
            Exception: What the first failing hook (or the lifespan's exit)
                raised, once all ran.
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
            exit_lifespan = self._take_exit()
            if exit_lifespan is not None:
                try:
                    await ensure_async(exit_lifespan)(None)
                except Exception as exc:
                    error = error or exc
        finally:
            self._claims.clear()
        if error is not None:
            raise error
