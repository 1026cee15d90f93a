"""An App's lifecycle in-process: its hooks run once however it is mounted.

One App mounted with ``to_wsgi`` and ``to_asgi`` (as the quickstart does),
mounted twice, or started from two threads at once runs each startup hook
once and each shutdown hook once, after a complete startup only. A startup
hook may take the lifespan state, and the same hook fills ``request.state``
under both adapters. The last part is about a request's awaitables run on
another event loop (``asyncio.run`` in a ``def`` view): they refuse with a
message naming the fix instead of waiting forever.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Callable
from typing import Any, Literal

import pytest

from sansio_http import App, State
from sansio_http.asgi import ASGIRequest, to_asgi
from sansio_http.testing import Client, LifespanError
from sansio_http.wsgi import to_wsgi

Interface = Literal["wsgi", "asgi"]


@pytest.fixture
def at_exit(monkeypatch: pytest.MonkeyPatch) -> list[Callable[[], None]]:
    """The functions ``to_wsgi`` registers with atexit, kept for the test to call."""
    registered: list[Callable[[], None]] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    return registered


def counting_app(events: list[str]) -> App:
    app = App("counted")

    @app.on_startup
    def started() -> None:
        events.append("startup")

    @app.on_shutdown
    async def stopped() -> None:
        events.append("shutdown")

    @app.get("/")
    def index(request: ASGIRequest) -> str:
        return "ok"

    return app


# -- once per process ---------------------------------------------------------------


def test_an_app_mounted_both_ways_starts_and_stops_once(
    at_exit: list[Callable[[], None]],
) -> None:
    events: list[str] = []
    app = counting_app(events)
    asgi = to_asgi(app)
    wsgi = to_wsgi(app)  # the WSGI mount starts the App at once
    assert events == ["startup"]
    with Client(asgi) as client:  # the lifespan of a server running `asgi`
        assert client.get("/").text == "ok"
        assert Client(wsgi).get("/").text == "ok"
        assert events == ["startup"]
    assert events == ["startup", "shutdown"]
    for shutdown in at_exit:  # the interpreter exits
        shutdown()
    assert events == ["startup", "shutdown"]


def test_a_wsgi_mount_alone_stops_at_exit_once(at_exit: list[Callable[[], None]]) -> None:
    events: list[str] = []
    app = counting_app(events)
    to_wsgi(app)
    to_wsgi(app)
    assert events == ["startup"]
    assert len(at_exit) == 2
    for shutdown in at_exit:
        shutdown()
    assert events == ["startup", "shutdown"]


def test_a_lifespan_entered_again_after_shutdown_is_a_new_cycle() -> None:
    events: list[str] = []
    app = counting_app(events)
    for _ in range(2):
        with Client(app) as client:
            assert client.get("/").text == "ok"
    assert events == ["startup", "shutdown", "startup", "shutdown"]


def test_two_threads_starting_one_app_run_the_hooks_once() -> None:
    entered = threading.Event()
    release = threading.Event()
    calls: list[str] = []
    app = App()

    @app.on_startup
    def slow(state: State) -> None:
        calls.append("startup")
        entered.set()
        assert release.wait(10)
        state["ready"] = True

    seen: dict[str, Any] = {}

    def mount(name: str) -> None:
        to_wsgi(app)
        seen[name] = dict(app.lifecycle.state)  # after this mount returned

    first = threading.Thread(target=mount, args=("first",))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=mount, args=("second",))
    second.start()
    assert "second" not in seen  # it waits for the first startup to end
    release.set()
    first.join(10)
    second.join(10)
    assert calls == ["startup"]
    assert seen == {"first": {"ready": True}, "second": {"ready": True}}


def test_two_lifespans_on_two_loops_run_the_hooks_once() -> None:
    entered = threading.Event()
    release = threading.Event()
    events: list[str] = []
    app = App()

    @app.on_startup
    async def slow(state: State) -> None:
        events.append("startup")
        entered.set()
        await asyncio.to_thread(release.wait, 10)
        state["ready"] = "yes"

    @app.on_shutdown
    def stop() -> None:
        events.append("shutdown")

    @app.get("/")
    async def ready(request: ASGIRequest) -> str:
        return str(request.state["ready"])

    answers: dict[str, str] = {}
    inside = threading.Barrier(2, timeout=10)

    def serve(name: str) -> None:
        with Client(to_asgi(app)) as client:  # one event loop per client
            answers[name] = client.get("/").text
            inside.wait()  # both lifespans are up before either shuts down

    first = threading.Thread(target=serve, args=("first",))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=serve, args=("second",))
    second.start()
    release.set()
    first.join(10)
    second.join(10)
    assert answers == {"first": "yes", "second": "yes"}
    assert events == ["startup", "shutdown"]


def test_no_shutdown_after_a_failed_startup_and_a_later_start_retries() -> None:
    events: list[str] = []
    app = App()
    broken = [True]

    @app.on_startup
    def connect() -> None:
        events.append("startup")
        if broken[0]:
            raise ConnectionError("database unreachable")

    @app.on_shutdown
    def disconnect() -> None:
        events.append("shutdown")

    with pytest.raises(ConnectionError), Client(app, interface="wsgi"):
        pass
    with pytest.raises(LifespanError, match="database unreachable"), Client(app):
        pass
    app.lifecycle.stop_sync(app.ensure_sync)  # what an exit would do
    assert events == ["startup", "startup"]
    broken[0] = False
    with Client(app):
        pass
    assert events == ["startup", "startup", "startup", "shutdown"]


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_a_startup_hook_that_mounts_its_app_again_fails_instead_of_waiting(
    interface: Interface,
) -> None:
    app = App()

    @app.on_startup
    def warm_up() -> None:
        to_wsgi(app)  # would wait for the startup it is part of

    error = LifespanError if interface == "asgi" else RuntimeError
    with pytest.raises(error, match="mount the App outside its startup hooks"):
        Client(app, interface=interface).__enter__()


# -- the lifespan state -------------------------------------------------------------


def state_app() -> App:
    """One source of hooks and views, for both adapters."""
    app = App("stateful")

    @app.on_startup
    def connect(state: State) -> None:
        state["db"] = "pool"

    @app.on_startup
    async def configure(state: State) -> None:
        state.debug = False

    @app.on_startup
    def announce() -> None:
        pass  # a hook without the state still works

    @app.on_shutdown
    def disconnect(state: State) -> None:
        state["closed"] = state["db"]

    @app.get("/sync")
    def sync_view(request: ASGIRequest) -> dict[str, Any]:
        request.state["mine"] = 1  # the request's own copy
        return dict(request.state)

    @app.get("/async")
    async def async_view(request: ASGIRequest) -> dict[str, Any]:
        return dict(request.state)

    return app


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_startup_hooks_fill_the_state_each_request_starts_with(interface: Interface) -> None:
    app = state_app()
    with Client(app, interface=interface) as client:
        assert client.get("/sync").json() == {"db": "pool", "debug": False, "mine": 1}
        assert client.get("/async").json() == {"db": "pool", "debug": False}
    if interface == "asgi":
        assert app.lifecycle.state["closed"] == "pool"


def test_a_hook_taking_more_than_the_state_is_refused_when_registered() -> None:
    app = App()

    def two(state: State, other: object) -> None:
        pass

    with pytest.raises(TypeError, match=r"no argument or one, the lifespan state"):
        app.on_startup(two)
    with pytest.raises(TypeError, match=r"no argument or one"):
        app.on_shutdown(two)
    assert app.startup_funcs == app.shutdown_funcs == []


# -- awaitables of the request on another event loop --------------------------------

READS: dict[str, Callable[[ASGIRequest], Any]] = {
    "body": lambda request: request.body(),
    "form": lambda request: request.form(),
    "files": lambda request: request.files(),
    "json": lambda request: request.json(),
    "stream": lambda request: _join(request),
    "is_disconnected": lambda request: request.is_disconnected(),
}


async def _join(request: ASGIRequest) -> bytes:
    return b"".join([chunk async for chunk in request.stream()])


def nested_loop_app(read: str) -> App:
    app = App()

    @app.post("/")
    def view(request: ASGIRequest) -> dict[str, str]:
        try:
            asyncio.run(READS[read](request))
        except RuntimeError as exc:
            message = str(exc)
        else:
            message = "no error"
        # The refusal left the body unread: the blocking spelling reads it.
        return {"error": message, "body": request.get_data().decode()}

    return app


@pytest.mark.parametrize("read", list(READS))
def test_asyncio_run_of_a_read_in_a_def_view_names_the_fix(read: str) -> None:
    client = Client(nested_loop_app(read))
    pieces = [b"a=1&", b"b=2"]  # two http.request messages
    content_type = "application/x-www-form-urlencoded"
    if read == "json":
        pieces, content_type = [b'{"a": ', b"1}"], "application/json"
    response = client.post("/", content=iter(pieces), headers={"content-type": content_type})
    answer = response.json()
    assert answer["body"] == b"".join(pieces).decode()
    assert "another event loop" in answer["error"]
    assert "request.get_data()" in answer["error"]
    assert "async def" in answer["error"]


def test_the_refusal_propagates_out_of_a_view_that_does_not_catch_it() -> None:
    app = App()

    @app.post("/")
    def view(request: ASGIRequest) -> bytes:
        return asyncio.run(request.body())

    with pytest.raises(RuntimeError, match=r"asyncio\.run\(\) in a def view"):
        Client(app).post("/", content=iter([b"ab", b"cd"]))
