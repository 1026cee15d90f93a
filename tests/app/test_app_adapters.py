"""The App under both adapters: to_wsgi and to_asgi, driven by the test client."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import Callable, MutableMapping
from typing import Any

import pytest

from sansio_http import App, AppConfig, Blueprint, ProxyPolicy, Request, Response, current_request
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client
from sansio_http.wsgi import to_wsgi
from sansio_http.wsgi._runner import CoroutineRunner


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def client(app: App, interface: str, **options: Any) -> Client:
    return Client(app, interface="wsgi" if interface == "wsgi" else "asgi", **options)


def build() -> tuple[App, list[str]]:
    app = App()
    calls: list[str] = []
    admin = Blueprint("admin", url_prefix="/admin")
    reports = Blueprint("reports", url_prefix="/reports")

    @app.before_request
    async def app_before(request: Request) -> None:
        calls.append("app-before")

    @app.after_request
    async def app_after(request: Request, response: Response) -> Response:
        response.headers["X-App"] = "1"
        return response

    @admin.before_request
    async def admin_before(request: Request) -> None:
        calls.append("admin-before")

    @admin.after_request
    def admin_after(request: Request, response: Response) -> Response:
        response.headers["X-Admin"] = "1"
        return response

    @admin.errorhandler(LookupError)
    async def admin_lookup(request: Request, exc: Exception) -> Any:
        return {"missing": str(exc)}, 404

    @app.get("/async")
    async def async_view(request: Request) -> str:
        await asyncio.sleep(0)
        return f"async {current_request.path}"

    @app.get("/sync")
    def sync_view(request: Request) -> str:
        return f"sync {current_request.path}"

    @app.route("/both", methods=["GET", "PUT"])
    def both(request: Request) -> str:
        return "both"

    @reports.get("/<int:year>")
    async def report(request: Request, year: int) -> dict[str, Any]:
        if year < 2000:
            raise LookupError(year)
        return {"year": year, "url": app.url_for("admin.reports.report", year=year)}

    admin.register_blueprint(reports)
    app.register_blueprint(admin)
    return app, calls


def test_async_and_sync_views_see_current_request(interface: str) -> None:
    app, _ = build()
    c = client(app, interface)
    assert c.get("/async").text == "async /async"
    assert c.get("/sync").text == "sync /sync"


def test_hooks_and_handlers_of_nested_blueprints(interface: str) -> None:
    app, calls = build()
    c = client(app, interface)
    response = c.get("/admin/reports/2024")
    assert response.json() == {"year": 2024, "url": "/admin/reports/2024"}
    assert response.headers["x-admin"] == "1"
    assert response.headers["x-app"] == "1"
    assert calls == ["app-before", "admin-before"]
    missing = c.get("/admin/reports/1999")
    assert (missing.status_code, missing.json()) == (404, {"missing": "1999"})


def test_url_for_honours_the_root_path(interface: str) -> None:
    app, _ = build()
    c = client(app, interface, root_path="/mount")
    assert c.get("/mount/admin/reports/2020").json()["url"] == "/mount/admin/reports/2020"


def test_url_for_refuses_values_that_would_not_route_back(interface: str) -> None:
    app = App()

    @app.get("/users/<name>")
    def user(request: Request, name: str) -> str:
        return name

    @app.get("/users/")
    def users(request: Request) -> str:
        return "all users"

    @app.get("/files/<path:p>")
    def files(request: Request, p: str) -> str:
        return p

    @app.get("/build")
    def build_urls(request: Request) -> Any:
        refused = {}
        cases: list[tuple[str, dict[str, Any]]] = [("user", {"name": ""}), ("files", {"p": "/x"})]
        for endpoint, values in cases:
            try:
                refused[endpoint] = app.url_for(endpoint, **values)
            except ValueError as exc:
                refused[endpoint] = str(exc)
        return {"built": app.url_for("files", p="a/b"), "refused": refused}

    c = client(app, interface)
    data = c.get("/build").json()
    assert c.get(data["built"]).text == "a/b"
    assert data["refused"]["user"].startswith("cannot build rule '/users/<name>'")
    assert "name=''" in data["refused"]["user"]
    assert data["refused"]["files"].startswith("cannot build rule '/files/<path:p>'")
    assert "p='/x'" in data["refused"]["files"]


def test_405_head_and_options(interface: str) -> None:
    app, _ = build()
    c = client(app, interface)
    refused = c.post("/both")
    assert refused.status_code == 405
    assert refused.headers["allow"] == "GET, HEAD, OPTIONS, PUT"
    head = c.head("/both")
    assert (head.status_code, head.content) == (200, b"")
    assert c.options("/both").headers["allow"] == "GET, HEAD, OPTIONS, PUT"


def test_ensure_sync_override_applies_to_blueprints_under_wsgi() -> None:
    seen: list[str] = []

    class Recording(App):
        def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
            seen.append(func.__name__)
            return super().ensure_sync(func)

    app = Recording()
    bp = Blueprint("bp")

    @bp.get("/x")
    async def x(request: Request) -> str:
        return "x"

    app.register_blueprint(bp)
    assert Client(app, interface="wsgi").get("/x").text == "x"
    assert "x" in seen


def test_blocking_view_does_not_stall_asgi() -> None:
    # The def view blocks until the async view has run: on the event loop's
    # thread it would wait out its bound and answer "timed out".
    app = App()
    quick_ran = threading.Event()

    @app.get("/block")
    def block(request: Request) -> str:
        return "released" if quick_ran.wait(30) else "timed out"

    @app.get("/quick")
    async def quick(request: Request) -> str:
        quick_ran.set()
        return "quick"

    asgi = to_asgi(app)

    async def call(path: str) -> bytes:
        messages: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: MutableMapping[str, Any]) -> None:
            messages.append(dict(message))

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"x")],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        await asgi(scope, receive, send)
        assert messages[0]["status"] == 200
        return b"".join(m.get("body", b"") for m in messages[1:])

    async def main() -> list[bytes]:
        return list(await asyncio.gather(call("/block"), call("/quick")))

    assert asyncio.run(main()) == [b"released", b"quick"]


def test_runner_reuses_one_loop_per_thread() -> None:
    runner = CoroutineRunner()

    async def loop_id() -> int:
        loop_id: int = id(asyncio.get_running_loop())
        return loop_id

    try:
        assert runner(loop_id()) == runner(loop_id())
        other: list[int] = []
        thread = threading.Thread(target=lambda: other.append(runner(loop_id())))
        thread.start()
        thread.join()
        assert other[0] != runner(loop_id())
    finally:
        runner.close()


def test_runner_works_inside_a_running_loop() -> None:
    runner = CoroutineRunner()

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def outer() -> int:
        # A sync call from async code, as gevent or an async test makes it.
        result: int = runner(answer())
        return result

    try:
        assert asyncio.run(outer()) == 42
    finally:
        runner.close()


def test_runner_cancels_and_reports_leftover_tasks(caplog: pytest.LogCaptureFixture) -> None:
    runner = CoroutineRunner()
    cancelled: list[bool] = []

    async def forever() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def leaves_a_task() -> str:
        asyncio.get_running_loop().create_task(forever())
        await asyncio.sleep(0)
        return "done"

    try:
        with caplog.at_level(logging.WARNING, logger="sansio_http.wsgi"):
            assert runner(leaves_a_task()) == "done"
    finally:
        runner.close()
    assert cancelled == [True]
    assert "pending" in caplog.text


def test_runner_finds_leftovers_without_scanning_every_task(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def all_tasks(loop: Any = None) -> Any:
        raise AssertionError("asyncio.all_tasks() walks every task of the process")

    monkeypatch.setattr(asyncio, "all_tasks", all_tasks)
    runner = CoroutineRunner()

    async def finished() -> None:
        await asyncio.sleep(0)

    async def leaves_tasks() -> str:
        asyncio.get_running_loop().create_task(asyncio.sleep(60))
        done = asyncio.get_running_loop().create_task(finished())
        await done
        return "done"

    async def awaits_its_task() -> str:
        await asyncio.get_running_loop().create_task(finished())
        return "awaited"

    try:
        with caplog.at_level(logging.WARNING, logger="sansio_http.wsgi"):
            assert runner(finished()) is None
            assert runner(awaits_its_task()) == "awaited"
            assert caplog.text == ""
            assert runner(leaves_tasks()) == "done"
            assert "left 1 task(s) pending" in caplog.text
            caplog.clear()
            assert runner(finished()) is None  # the cancelled task is not reported again
            assert caplog.text == ""
    finally:
        runner.close()


def test_an_async_view_error_under_wsgi_is_logged_once_without_a_chained_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = App()

    @app.get("/")
    async def fails(request: Request) -> Response:
        raise ValueError("view failed")

    with (
        caplog.at_level(logging.ERROR),
        Client(app, interface="wsgi", raise_app_exceptions=False) as c,
    ):
        assert c.get("/").status_code == 500
    logged = [record for record in caplog.records if record.exc_info]
    assert len(logged) == 1
    assert logged[0].exc_info is not None
    error = logged[0].exc_info[1]
    assert isinstance(error, ValueError)
    assert error.__context__ is None
    assert "During handling of the above exception" not in caplog.text


def asgi_thread_runner() -> Any:
    app = App()
    to_asgi(app)
    return app.thread_runner


def test_asgi_thread_runner_returns_raises_and_copies_the_context() -> None:
    runner = asgi_thread_runner()
    variable: contextvars.ContextVar[str] = contextvars.ContextVar("variable")

    def read(suffix: str, *, twice: bool = False) -> str:
        value = variable.get() + suffix
        variable.set("changed in the thread")
        return value * 2 if twice else value

    def fails() -> None:
        raise KeyError("from the thread")

    def stops() -> None:
        raise StopIteration

    async def main() -> None:
        variable.set("request")
        assert await runner(read, "!", twice=True) == "request!request!"
        assert variable.get() == "request"  # the thread worked on a copy
        with pytest.raises(KeyError, match="from the thread"):
            await runner(fails)
        with pytest.raises(RuntimeError, match="StopIteration") as info:
            await runner(stops)
        assert isinstance(info.value.__cause__, StopIteration)

    try:
        asyncio.run(main())
    finally:
        runner.shutdown()


def test_asgi_thread_runner_skips_a_call_cancelled_while_it_waited() -> None:
    app = App(config=AppConfig(threads=1))
    to_asgi(app)
    runner: Any = app.thread_runner
    release = threading.Event()
    ran: list[str] = []

    started = threading.Event()

    def blocks() -> None:
        started.set()
        release.wait(30)
        ran.append("blocks")

    def queued() -> None:
        ran.append("queued")

    async def main() -> None:
        first = asyncio.ensure_future(runner(blocks))
        second = asyncio.ensure_future(runner(queued))
        # Both submitted, and the one thread is busy with the first.
        assert await asyncio.get_running_loop().run_in_executor(None, started.wait, 30)
        second.cancel()
        await asyncio.sleep(0)
        release.set()
        await first
        with pytest.raises(asyncio.CancelledError):
            await second

    try:
        asyncio.run(main())
    finally:
        runner.shutdown(wait=True)
    assert ran == ["blocks"]


def test_asgi_thread_runner_drops_the_outcome_of_a_call_cancelled_while_it_ran() -> None:
    runner = asgi_thread_runner()
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(30)
        return "late"

    errors: list[dict[str, Any]] = []

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda loop, error: errors.append(error))
        call = asyncio.ensure_future(runner(slow))
        while not started.is_set():
            await asyncio.sleep(0.001)
        call.cancel()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await call
        runner.shutdown(wait=True)  # the outcome has been handed to the loop
        await asyncio.sleep(0.01)

    try:
        asyncio.run(main())
    finally:
        runner.shutdown()
    assert errors == []  # setting a cancelled future would be an InvalidStateError here


def test_asgi_thread_runner_outlives_a_closed_loop_and_restarts_after_shutdown() -> None:
    runner = asgi_thread_runner()
    started, release = threading.Event(), threading.Event()

    def slow() -> int:
        started.set()
        release.wait(30)
        return 1

    async def submit() -> None:
        call = asyncio.ensure_future(runner(slow))
        while not started.is_set():
            await asyncio.sleep(0.001)
        call.cancel()

    loop = asyncio.new_event_loop()
    loop.run_until_complete(submit())
    loop.close()
    release.set()  # the outcome now has no loop to go to
    runner.shutdown(wait=True)

    async def answer() -> int:
        result: int = await runner(lambda: 5)
        return result

    try:
        assert asyncio.run(answer()) == 5
    finally:
        runner.shutdown(wait=True)


def test_asgi_thread_runner_serves_two_loops_from_one_pool() -> None:
    app = App(config=AppConfig(threads=3))
    to_asgi(app)
    runner: Any = app.thread_runner
    barrier = threading.Barrier(2)
    served_by: list[threading.Thread] = []

    def serve_a_loop() -> None:
        async def call() -> threading.Thread:
            thread: threading.Thread = await runner(threading.current_thread)
            return thread

        barrier.wait(30)  # two event loops make their first call together
        served_by.append(asyncio.run(call()))

    loops = [threading.Thread(target=serve_a_loop) for _ in range(2)]
    try:
        for thread in loops:
            thread.start()
        for thread in loops:
            thread.join(30)
        workers = list(runner._workers)
        # The request pool starts all its threads at its first call, from
        # whichever loop makes it, and never more.
        assert len(workers) == 3
        assert len(served_by) == 2
        assert all(thread in workers for thread in served_by)
    finally:
        runner.shutdown(wait=True)
    assert not any(worker.is_alive() for worker in workers)


def test_to_wsgi_runs_startup_hooks() -> None:
    app = App()
    started: list[str] = []

    @app.on_startup
    async def start() -> None:
        started.append("up")

    to_wsgi(app)
    assert started == ["up"]


def test_a_proxy_policy_is_applied_before_the_app_under_both_adapters(interface: str) -> None:
    app = App("proxied")

    @app.get("/who")
    def who(request: Request) -> dict[str, Any]:
        return {"addr": request.remote_addr, "scheme": request.scheme, "url": request.url}

    @app.get("/crash")
    def crash(request: Request) -> str:
        raise KeyError("unhandled")

    policy = ProxyPolicy(x_for=1, x_proto=1)
    mounted: Any = (
        to_wsgi(app, proxy_policy=policy)
        if interface == "wsgi"
        else to_asgi(app, proxy_policy=policy)
    )
    forwarded = {"x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https"}
    with Client(mounted, interface="wsgi" if interface == "wsgi" else "asgi") as http:
        assert http.get("/who", headers=forwarded).json() == {
            "addr": "203.0.113.9",
            "scheme": "https",
            "url": "https://testserver/who",
        }
        # The replaced request still carries the test client's wish for exceptions.
        with pytest.raises(KeyError, match="unhandled"):
            http.get("/crash")
