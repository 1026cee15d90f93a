"""``App(lifespan=...)``: a context manager around the startup and shutdown hooks.

Each test runs under both adapters in-process. Under ASGI the test client's
``with`` block is the server's lifespan; under WSGI ``to_wsgi`` starts the
App when it mounts it, and the functions it registers with :mod:`atexit`
(kept by the ``at_exit`` fixture) are what the interpreter's exit runs.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import multiprocessing
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Literal

import pytest

from sansio_http import App, State
from sansio_http.asgi import ASGIRequest, to_asgi
from sansio_http.testing import Client, LifespanError
from sansio_http.wsgi import CoroutineRunner, to_wsgi
from sansio_http.wsgi._lifespan import hold

Interface = Literal["wsgi", "asgi"]
Kind = Literal["async", "sync"]


@pytest.fixture
def at_exit(monkeypatch: pytest.MonkeyPatch) -> list[Callable[[], None]]:
    """The functions ``to_wsgi`` registers with atexit, kept for the test to call."""
    registered: list[Callable[[], None]] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    return registered


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    value: Interface = request.param
    return value


@pytest.fixture(params=["async", "sync"])
def kind(request: pytest.FixtureRequest) -> Kind:
    value: Kind = request.param
    return value


@contextlib.contextmanager
def served(app: App, interface: Interface, at_exit: list[Callable[[], None]]) -> Iterator[Client]:
    """Start ``app`` as a server would, yield a client, then stop it."""
    if interface == "asgi":
        with Client(to_asgi(app)) as client:
            yield client
        return
    client = Client(to_wsgi(app))  # the mount starts the App
    yield client
    for shutdown in at_exit:  # the interpreter exits
        shutdown()


def recording_lifespan(kind: Kind, events: list[str], value: Any = None) -> Any:
    """A lifespan of ``kind`` that records its enter and exit and yields ``value``."""
    if kind == "async":

        @contextlib.asynccontextmanager
        async def async_lifespan(app: App) -> AsyncIterator[Any]:
            events.append(f"enter {app.name}")
            try:
                yield value
            except Exception as exc:
                events.append(f"exit with {exc}")
                raise
            events.append("exit")

        return async_lifespan

    @contextlib.contextmanager
    def sync_lifespan(app: App) -> Iterator[Any]:
        events.append(f"enter {app.name}")
        try:
            yield value
        except Exception as exc:
            events.append(f"exit with {exc}")
            raise
        events.append("exit")

    return sync_lifespan


def hooked_app(lifespan: Any, events: list[str]) -> App:
    app = App("life", lifespan=lifespan)

    @app.on_startup
    def connect(state: State) -> None:
        events.append(f"startup sees {sorted(state)}")

    @app.on_shutdown
    async def disconnect() -> None:
        events.append("shutdown")

    @app.get("/sync")
    def sync_view(request: ASGIRequest) -> dict[str, Any]:
        return dict(request.state)

    @app.get("/async")
    async def async_view(request: ASGIRequest) -> dict[str, Any]:
        return dict(request.state)

    return app


# -- around the hooks, once ---------------------------------------------------------


def test_the_lifespan_is_entered_before_the_startup_hooks_and_exited_after_shutdown(
    interface: Interface, kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    app = hooked_app(recording_lifespan(kind, events, {"db": "pool"}), events)
    with served(app, interface, at_exit) as client:
        assert events == ["enter life", "startup sees ['db']"]
        assert client.get("/sync").json() == {"db": "pool"}
        assert client.get("/async").json() == {"db": "pool"}
    assert events == ["enter life", "startup sees ['db']", "shutdown", "exit"]


def test_a_lifespan_that_yields_nothing_leaves_the_state_to_the_hooks(
    interface: Interface, kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    app = hooked_app(recording_lifespan(kind, events), events)
    with served(app, interface, at_exit) as client:
        assert client.get("/async").json() == {}
    assert events == ["enter life", "startup sees []", "shutdown", "exit"]


def test_an_app_mounted_both_ways_enters_and_exits_its_lifespan_once(
    kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    app = hooked_app(recording_lifespan(kind, events, {"db": "pool"}), events)
    asgi = to_asgi(app)
    wsgi = to_wsgi(app)  # the WSGI mount starts the App at once
    with Client(asgi) as client:
        assert client.get("/sync").json() == {"db": "pool"}
        assert Client(wsgi).get("/async").json() == {"db": "pool"}
    for shutdown in at_exit:
        shutdown()
    assert events == ["enter life", "startup sees ['db']", "shutdown", "exit"]


def test_a_mounted_app_enters_its_lifespan_with_the_outer_app(
    interface: Interface, kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    inner = hooked_app(recording_lifespan(kind, events, {"db": "inner pool"}), events)
    outer = App("outer")
    outer.mount("/inner", inner)
    with served(outer, interface, at_exit) as client:
        assert client.get("/inner/async").json() == {"db": "inner pool"}
    assert events == ["enter life", "startup sees ['db']", "shutdown", "exit"]


# -- where it runs ------------------------------------------------------------------


def test_under_asgi_an_async_lifespan_runs_in_one_task_on_the_loop() -> None:
    tasks: list[asyncio.Task[Any] | None] = []
    background: list[asyncio.Task[bool]] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[None]:
        tasks.append(asyncio.current_task())
        background.append(asyncio.create_task(asyncio.Event().wait()))
        yield
        tasks.append(asyncio.current_task())
        assert not background[0].done()  # what it started kept running
        background[0].cancel()

    with Client(App(lifespan=lifespan)):
        pass
    assert len(tasks) == 2
    assert tasks[0] is not None
    assert tasks[0] is tasks[1]


def test_under_asgi_a_sync_lifespan_runs_in_the_apps_request_threads() -> None:
    threads: list[str] = []

    @contextlib.contextmanager
    def lifespan(app: App) -> Iterator[None]:
        threads.append(threading.current_thread().name)
        yield
        threads.append(threading.current_thread().name)

    with Client(App(lifespan=lifespan)):
        pass
    # Never on the loop, and never in the loop's default executor.
    assert [name.rpartition("-")[0] for name in threads] == ["sansio-http-request"] * 2


def test_under_wsgi_a_sync_lifespan_is_entered_by_the_mounting_thread(
    at_exit: list[Callable[[], None]],
) -> None:
    threads: list[threading.Thread] = []

    @contextlib.contextmanager
    def lifespan(app: App) -> Iterator[None]:
        threads.append(threading.current_thread())
        yield
        threads.append(threading.current_thread())

    to_wsgi(App(lifespan=lifespan))
    assert threads == [threading.current_thread()]
    for shutdown in at_exit:  # the interpreter exits, on its main thread
        shutdown()
    assert threads == [threading.current_thread()] * 2


def test_an_asgi_server_without_lifespan_runs_no_lifespan(kind: Kind) -> None:
    events: list[str] = []
    app = hooked_app(recording_lifespan(kind, events, {"db": "pool"}), events)
    client = Client(to_asgi(app))  # no `with`: the server runs no lifespan
    assert client.get("/async").json() == {}
    assert events == []  # as the hooks


def test_under_wsgi_an_async_lifespan_is_held_open_by_one_task_until_the_exit(
    at_exit: list[Callable[[], None]],
) -> None:
    seen: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any] | None]] = []
    ticks: list[int] = []

    async def tick(entered: asyncio.Event) -> None:
        while True:
            ticks.append(len(ticks))
            entered.set()
            await asyncio.sleep(0)

    @contextlib.asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[dict[str, str]]:
        seen.append((asyncio.get_running_loop(), asyncio.current_task()))
        ticking = asyncio.Event()
        ticker = asyncio.create_task(tick(ticking))
        await ticking.wait()
        yield {"db": "pool"}
        seen.append((asyncio.get_running_loop(), asyncio.current_task()))
        assert not ticker.done()  # the task it started ran while the App served
        ticker.cancel()

    app = App(lifespan=lifespan)

    @app.get("/")
    async def view(request: ASGIRequest) -> str:
        return str(request.state["db"])

    assert Client(to_wsgi(app)).get("/").text == "pool"
    count = len(ticks)
    for shutdown in at_exit:
        shutdown()
    assert len(seen) == 2
    assert seen[0] == seen[1]  # one loop, one task
    assert len(ticks) > count  # still ticking after the request


# -- failures -----------------------------------------------------------------------


def start_fails(app: App, interface: Interface, match: str) -> None:
    """Check that starting ``app`` fails, as a server would see it."""
    if interface == "asgi":
        with pytest.raises(LifespanError, match=match), Client(to_asgi(app)):
            pass
    else:
        with pytest.raises(Exception, match=match):
            to_wsgi(app)


def test_a_failing_enter_fails_the_startup_and_runs_no_hook(
    interface: Interface, kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    broken = [True]
    lifespan = recording_lifespan(kind, events, {"db": "pool"})

    def failing(app: App) -> Any:
        if broken[0]:
            events.append("enter fails")
            raise ConnectionError("database unreachable")
        return lifespan(app)

    app = hooked_app(failing, events)
    start_fails(app, interface, "database unreachable")
    for shutdown in at_exit:
        shutdown()
    assert events == ["enter fails"]
    broken[0] = False  # a later start tries again
    events.clear()
    with served(app, interface, at_exit) as client:
        assert client.get("/sync").json() == {"db": "pool"}
    assert events == ["enter life", "startup sees ['db']", "shutdown", "exit"]


def test_a_failing_startup_hook_exits_the_lifespan_with_its_error_once(
    interface: Interface, kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    app = hooked_app(recording_lifespan(kind, events), events)

    @app.on_startup
    def refuse() -> None:
        raise RuntimeError("bad settings")

    start_fails(app, interface, "bad settings")
    for shutdown in at_exit:
        shutdown()
    app.lifecycle.stop_sync(app.ensure_sync)  # nothing left to stop
    assert events == ["enter life", "startup sees []", "exit with bad settings"]


def test_a_lifespan_yielding_what_is_not_a_mapping_fails_the_startup(
    interface: Interface, kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    app = hooked_app(recording_lifespan(kind, events, ["db"]), events)
    start_fails(app, interface, r"yielded list; it may yield a mapping")
    assert events[0] == "enter life"
    assert events[1].startswith("exit with the lifespan yielded list")
    assert len(events) == 2


def test_a_failing_exit_fails_the_shutdown_after_every_hook(
    interface: Interface, kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    if kind == "async":

        @contextlib.asynccontextmanager
        async def lifespan(app: App) -> AsyncIterator[None]:
            yield
            raise OSError("pool already closed")

    else:

        @contextlib.contextmanager
        def lifespan(app: App) -> Iterator[None]:  # type: ignore[misc]
            yield
            raise OSError("pool already closed")

    app = hooked_app(lifespan, events)
    if interface == "asgi":
        with pytest.raises(LifespanError, match="pool already closed"), Client(to_asgi(app)):
            pass
    else:
        to_wsgi(app)
        (shutdown,) = at_exit
        with pytest.raises(OSError, match="pool already closed"):
            shutdown()
    assert events == ["startup sees []", "shutdown"]
    app.lifecycle.stop_sync(app.ensure_sync)  # exited once: nothing runs again
    assert events == ["startup sees []", "shutdown"]


def test_a_failing_shutdown_hook_still_exits_the_lifespan(
    interface: Interface, kind: Kind, at_exit: list[Callable[[], None]]
) -> None:
    events: list[str] = []
    app = hooked_app(recording_lifespan(kind, events), events)

    @app.on_shutdown
    def refuse() -> None:
        raise RuntimeError("flush failed")

    if interface == "asgi":
        with pytest.raises(LifespanError, match="flush failed"), Client(to_asgi(app)):
            pass
    else:
        to_wsgi(app)
        (shutdown,) = at_exit
        with pytest.raises(RuntimeError, match="flush failed"):
            shutdown()
    assert events == ["enter life", "startup sees []", "shutdown", "exit"]


def test_a_lifespan_returning_no_context_manager_fails_the_startup_naming_the_fix(
    interface: Interface,
) -> None:
    app = App(lifespan=lambda app: None)  # type: ignore[arg-type,return-value]
    start_fails(app, interface, r"returned NoneType, not a context manager: decorate it")


# -- refused at construction --------------------------------------------------------


async def _async_generator(app: App) -> AsyncIterator[None]:
    yield


def _generator(app: App) -> Iterator[None]:
    yield


async def _coroutine(app: App) -> None:
    pass


@pytest.mark.parametrize(
    ("lifespan", "match"),
    [
        (_async_generator, r"async generator function: decorate it with @contextlib\.asynccon"),
        (_generator, r"generator function: decorate it with @contextlib\.contextmanager"),
        (_coroutine, r"coroutine function.*@contextlib\.asynccontextmanager"),
        ({"db": "pool"}, r"not dict: decorate it with @contextlib\.asynccontextmanager"),
    ],
)
def test_a_lifespan_that_is_no_context_manager_factory_is_refused_naming_the_fix(
    lifespan: Any, match: str
) -> None:
    with pytest.raises(TypeError, match=match):
        App(lifespan=lifespan)


# -- the core's drivers -------------------------------------------------------------


def test_without_a_hold_the_sync_driver_runs_an_async_lifespan_through_ensure_sync() -> None:
    events: list[str] = []
    app = App("life", lifespan=recording_lifespan("async", events, {"db": "pool"}))
    runner = CoroutineRunner()
    app.coroutine_runner = runner  # what another adapter would install
    try:
        app.lifecycle.start_sync(app.ensure_sync, threading.Event())
        assert dict(app.lifecycle.state) == {"db": "pool"}
        app.lifecycle.stop_sync(app.ensure_sync)
    finally:
        runner.close()
    assert events == ["enter life", "exit"]


def _exit_in_fork(exit_lifespan: Callable[[BaseException | None], None]) -> None:
    try:
        exit_lifespan(None)
    except RuntimeError as exc:
        os._exit(0 if "gunicorn --preload" in str(exc) else 2)
    os._exit(1)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_under_wsgi_a_forked_process_refuses_to_exit_the_held_lifespan() -> None:
    events: list[str] = []
    value, exit_lifespan = hold(recording_lifespan("async", events, {"db": "pool"})(App()))
    assert value == {"db": "pool"}
    try:
        child = multiprocessing.get_context("fork").Process(
            target=_exit_in_fork, args=(exit_lifespan,), daemon=True
        )
        child.start()
        child.join(10)
        assert child.exitcode == 0  # refused, naming the cause, instead of waiting
    finally:
        exit_lifespan(None)  # the process that entered it exits it
    assert events == ["enter app", "exit"]
