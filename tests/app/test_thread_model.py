"""Which thread runs what: the App's thread model, in-process.

Under ``to_asgi`` the App owns four bounded pools (``AppConfig.threads``,
``io_threads``, ``stream_threads``, ``mount_threads``), and one request's
``def`` steps run on one thread of the request pool, its lane; under
``to_wsgi`` every step of a request runs on the server's worker thread.
What both adapters share runs through the test client with either
interface; what needs requests in flight together drives the ASGI
callable directly, several exchanges on one event loop as a server does,
every wait bounded by a deadline. Real servers run the same App of
:mod:`tests.integration.thread_model_app` in
:mod:`tests.integration.test_thread_model`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import pytest

from sansio_http import App, AppConfig, BodyRequest, Request, Response
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client
from tests.integration import thread_model_app

Interface = Literal["wsgi", "asgi"]
INTERFACES: list[Interface] = ["wsgi", "asgi"]
ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]
StartResponse = Callable[..., Any]
Message = dict[str, Any]

#: NOTE: every wait of these tests ends by this; none is a speed bound.
DEADLINE = 10.0
#: How long blocked work waits for its gate: a safety net only, since every
#: test opens its gates when it ends; longer than DEADLINE, so that a probe
#: stuck behind blocked work fails instead of being freed by the timeout.
GATE_TIMEOUT = 60.0
SETTINGS = ["threads", "io_threads", "stream_threads", "mount_threads"]


# -- an ASGI server in a few lines: several exchanges on one loop -------------------------


@contextlib.asynccontextmanager
async def serving(app: App, *gates: threading.Event) -> AsyncIterator[ASGIApp]:
    """Mount ``app`` with ``to_asgi`` and run its lifespan around the block.

    The ``gates`` are opened when the block ends, however it ends, before the
    shutdown: no thread of the App is left waiting on one.
    """
    asgi: ASGIApp = to_asgi(app)
    inbox: asyncio.Queue[Message] = asyncio.Queue()
    outbox: asyncio.Queue[Message] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = asyncio.ensure_future(asgi(scope, inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    assert (await asyncio.wait_for(outbox.get(), DEADLINE))["type"] == "lifespan.startup.complete"
    try:
        yield asgi
    finally:
        for gate in gates:
            gate.set()
        # The shutdown stops the App's threads.
        await inbox.put({"type": "lifespan.shutdown"})
        await asyncio.wait_for(outbox.get(), DEADLINE)
        await asyncio.wait_for(task, DEADLINE)


async def call(
    asgi: ASGIApp, target: str, *, method: str = "GET", body: bytes = b"", content_type: str = ""
) -> tuple[int, bytes]:
    """Send one request through ``asgi``; return its status and its body."""
    path, _, query = target.partition("?")
    headers = [(b"host", b"testserver"), (b"content-length", str(len(body)).encode())]
    if content_type:
        headers.append((b"content-type", content_type.encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": {},
    }
    # 64 KiB per message, as uvicorn hands a body over.
    chunks = [body[i : i + 65536] for i in range(0, len(body), 65536)] or [b""]
    sent: list[Message] = []
    finished = asyncio.Event()

    async def receive() -> Message:
        if chunks:
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            finished.set()

    await asgi(scope, receive, send)
    finished.set()
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


async def until(ready: Callable[[], bool], what: str) -> None:
    """Wait, polling the loop, until ``ready()``; fail with ``what`` past the deadline."""
    deadline = asyncio.get_running_loop().time() + DEADLINE
    while not ready():
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"still waiting after {DEADLINE} s: {what}")
        await asyncio.sleep(0.005)


def run(main: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(main, GATE_TIMEOUT))


# -- one request's def steps, one thread ---------------------------------------------------


@pytest.mark.parametrize("interface", INTERFACES)
def test_a_connection_opened_in_a_hook_serves_the_view_and_the_teardown(
    interface: Interface,
) -> None:
    # The App that uvicorn, gunicorn and the development server run in
    # tests/integration/test_thread_model.py, 200 times here through the client.
    outcomes = []
    with Client(thread_model_app.app, interface=interface) as client:
        for _ in range(200):
            token = uuid.uuid4().hex
            response = client.get("/lane/", params={"token": token})
            answer = response.json() if response.status_code == 200 else None
            teardown = client.get(f"/teardown/{token}").json()
            outcomes.append((response.status_code, answer, teardown))
    problems = [
        outcome
        for outcome in outcomes
        if outcome[0] != 200
        or outcome[1] is None
        or not (outcome[1]["hook"] == outcome[1]["view"] == outcome[2]["thread"])
        or not (outcome[1]["local"] and outcome[1]["rows"] and outcome[2]["closed"] is True)
    ]
    assert problems == []


@pytest.mark.parametrize("interface", INTERFACES)
def test_an_async_view_between_def_hooks(interface: Interface) -> None:
    app = App("between")
    seen: dict[str, Any] = {}

    @app.before_request
    def before(request: Request) -> None:
        seen["before"] = threading.get_ident()

    @app.get("/")
    async def view(request: Request) -> str:
        seen["view"] = threading.get_ident()
        seen.setdefault("loops", []).append(asyncio.get_running_loop())
        return "ok"

    @app.teardown_request
    def teardown(request: Request, exc: BaseException | None) -> None:
        seen["teardown"] = threading.get_ident()

    here = threading.get_ident()
    with Client(app, interface=interface) as client:
        assert client.get("/").text == "ok"
        assert seen["before"] == seen["teardown"]
        # The test client runs the server's side in this thread: the worker
        # thread under WSGI, the event loop's thread under ASGI.
        assert seen["view"] == here
        if interface == "wsgi":
            assert seen["before"] == here
        else:
            assert seen["before"] != here  # never on the event loop
        assert client.get("/").text == "ok"
    # One loop ran both views: under WSGI the loop the worker thread keeps
    # from one request to the next, under ASGI the client's (the server's).
    first, second = seen["loops"]
    assert first is second


class Refused(Exception):
    pass


@pytest.mark.parametrize("hooks", [True, False], ids=["with-hooks", "view-alone"])
@pytest.mark.parametrize("interface", INTERFACES)
def test_an_error_handler_runs_on_the_thread_of_the_view_that_raised(
    interface: Interface, hooks: bool
) -> None:
    # With hooks the pipeline runs; a def view alone takes the short path,
    # whose lane keeps its thread only when the view raises.
    app = App("errors")
    seen: dict[str, int] = {}

    if hooks:

        @app.before_request
        def before(request: Request) -> None:
            seen["before"] = threading.get_ident()

        @app.teardown_request
        def teardown(request: Request, exc: BaseException | None) -> None:
            seen["teardown"] = threading.get_ident()

    @app.get("/")
    def view(request: Request) -> str:
        seen["view"] = threading.get_ident()
        raise Refused

    @app.errorhandler(Refused)
    def refused(request: Request, exc: Refused) -> tuple[str, int]:
        seen["handler"] = threading.get_ident()
        return "refused", 403

    with Client(app, interface=interface) as client:
        for _ in range(20):
            seen.clear()
            response = client.get("/")
            assert (response.status_code, response.text) == (403, "refused")
            assert len(seen) == (4 if hooks else 2)
            assert len(set(seen.values())) == 1


def test_a_request_keeps_its_thread_while_an_async_step_between_def_steps_awaits() -> None:
    # One thread: B's def hook cannot run while A, between its def hook and
    # its def teardown, awaits in its async def view.
    app = App("hold", config=AppConfig(threads=1))
    log: list[str] = []
    arrived: dict[str, asyncio.Event] = {}

    @app.before_request
    async def arrive(request: Request) -> None:
        arrived[request.args["name"]].set()

    @app.before_request
    def before(request: Request) -> None:
        log.append(request.args["name"] + " before")

    @app.get("/")
    async def view(request: Request) -> str:
        name = request.args["name"]
        log.append(name + " view")
        if name == "A":
            await asyncio.wait_for(arrived["B"].wait(), DEADLINE)
            # NOTE: room for B's def hook to run if A's thread were free; the
            # assertion below holds however long this is.
            await asyncio.sleep(0.05)
        return name

    @app.teardown_request
    def teardown(request: Request, exc: BaseException | None) -> None:
        log.append(request.args["name"] + " teardown")

    async def main() -> None:
        arrived.update(A=asyncio.Event(), B=asyncio.Event())
        async with serving(app) as asgi:
            answers = await asyncio.gather(call(asgi, "/?name=A"), call(asgi, "/?name=B"))
        assert list(answers) == [(200, b"A"), (200, b"B")]

    run(main())
    owners = [entry.split()[0] for entry in log]
    assert sorted(owners) == ["A", "A", "A", "B", "B", "B"]
    assert owners in (list("AAABBB"), list("BBBAAA")), log


# -- bounded pools: a full pool queues, in order, and starves no other ---------------------


def test_a_full_request_pool_queues_calls_in_order() -> None:
    app = App("fifo", config=AppConfig(threads=1))
    gate = threading.Event()
    order: list[str] = []

    @app.get("/")
    def view(request: Request) -> str:
        name = request.args["name"]
        order.append(name)
        if name == "A":
            gate.wait(GATE_TIMEOUT)
        return name

    async def main() -> None:
        async with serving(app, gate) as asgi:
            first = asyncio.ensure_future(call(asgi, "/?name=A"))
            await until(lambda: order == ["A"], "A in its view")
            rest = [asyncio.ensure_future(call(asgi, f"/?name={name}")) for name in "BCD"]
            # NOTE: room for B, C and D to queue; the order holds whatever this is.
            await asyncio.sleep(0.1)
            gate.set()
            answers = await asyncio.gather(first, *rest)
        assert answers == [(200, name.encode()) for name in "ABCD"]

    run(main())
    assert order == list("ABCD")


def test_more_streams_than_stream_threads_wait_their_turn() -> None:
    app = App("streams", config=AppConfig(stream_threads=2))
    gate = threading.Event()
    lock = threading.Lock()
    state = {"waiting": 0, "most": 0, "views": 0}

    def tokens() -> Iterator[bytes]:
        yield b"first "
        with lock:
            state["waiting"] += 1
            state["most"] = max(state["most"], state["waiting"])
        try:
            gate.wait(GATE_TIMEOUT)  # the producer blocks, holding a thread of its pool
        finally:
            with lock:
                state["waiting"] -= 1
        yield b"last"

    @app.get("/stream")
    async def stream(request: Request) -> Response:
        state["views"] += 1
        return Response(tokens())

    async def main() -> None:
        async with serving(app, gate) as asgi:
            calls = [asyncio.ensure_future(call(asgi, "/stream")) for _ in range(4)]
            await until(lambda: state["views"] == 4 and state["waiting"] == 2, "two waiting")
            # NOTE: room for a third producer to start if the bound let it.
            await asyncio.sleep(0.1)
            gate.set()
            answers = await asyncio.gather(*calls)
        assert answers == [(200, b"first last")] * 4

    run(main())
    assert state["most"] == 2


def _blocking_wsgi(entered: threading.Event, gate: threading.Event) -> Any:
    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        environ["wsgi.input"].read()
        if environ["PATH_INFO"] == "/block":
            entered.set()
            gate.wait(GATE_TIMEOUT)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"wsgi"]

    return application


def starvation_app(config: AppConfig, static: Path, entered: threading.Event, gate: Any) -> App:
    """An App with one blocker per pool, and a quick request of each kind."""
    app = App("starve", config=config)
    app.static("/static", static)
    app.mount("/wsgi", _blocking_wsgi(entered, gate))

    @app.get("/block/view")
    def block_view(request: Request) -> str:
        entered.set()
        gate.wait(GATE_TIMEOUT)
        return "view"

    def blocked_tokens() -> Iterator[bytes]:
        yield b"first"
        entered.set()
        gate.wait(GATE_TIMEOUT)

    @app.get("/block/stream")
    async def block_stream(request: Request) -> Response:
        return Response(blocked_tokens())

    @app.get("/view")
    def view(request: Request) -> str:
        return "view"

    def tokens() -> Iterator[bytes]:
        yield b"stream"

    @app.get("/stream")
    async def stream(request: Request) -> Response:
        return Response(tokens())

    async def async_tokens() -> AsyncIterator[bytes]:
        yield b"async stream"

    @app.get("/async-stream")
    async def async_stream(request: Request) -> Response:
        return Response(async_tokens())

    return app


#: For each setting: the request that holds the pool's one thread, and requests
#: that need none of its threads. (A static file's view is a ``def`` view: it
#: needs the request pool, and its reads the io pool.)
STARVATION = {
    "threads": ("/block/view", ["/stream", "/wsgi/quick"]),
    "stream_threads": (
        "/block/stream",
        ["/view", "/static/hello.txt", "/wsgi/quick", "/async-stream"],
    ),
    "mount_threads": ("/wsgi/block", ["/view", "/static/hello.txt", "/stream"]),
}


@pytest.mark.parametrize("setting", list(STARVATION))
def test_a_pool_held_by_blocking_work_starves_no_other(setting: str, tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello")
    entered, gate = threading.Event(), threading.Event()
    one_thread: dict[str, Any] = {setting: 1}
    app = starvation_app(AppConfig(**one_thread), tmp_path, entered, gate)
    blocker, probes = STARVATION[setting]
    expected = {
        "/stream": b"stream",
        "/async-stream": b"async stream",
        "/wsgi/quick": b"wsgi",
        "/view": b"view",
    }

    async def main() -> None:
        async with serving(app, gate) as asgi:
            held = asyncio.ensure_future(call(asgi, blocker))
            await until(entered.is_set, f"{blocker} holding its thread")
            for probe in probes:
                try:
                    status, body = await asyncio.wait_for(call(asgi, probe), DEADLINE)
                except asyncio.TimeoutError:
                    pytest.fail(f"{probe} waited for the thread that {blocker} holds")
                assert (status, body) == (200, expected.get(probe, b"hello"))
            gate.set()
            assert (await held)[0] == 200

    run(main())


def test_under_wsgi_the_thread_settings_bound_nothing() -> None:
    # Two requests in their views at once, from two server threads, with
    # AppConfig(threads=1): the server's threads run them, not the App's pools.
    app = App("wsgi-threads", config=AppConfig(threads=1))
    both_in = threading.Barrier(2)

    @app.get("/")
    def view(request: Request) -> str:
        both_in.wait(DEADLINE)
        return "ok"

    clients = [Client(app, interface="wsgi") for _ in range(2)]
    with ThreadPoolExecutor(2) as pool:
        answers = [pool.submit(client.get, "/") for client in clients]
        assert [answer.result(DEADLINE).text for answer in answers] == ["ok", "ok"]


def test_threads_start_as_work_arrives() -> None:
    app = App("lazy", config=AppConfig(threads=4))

    @app.get("/async")
    async def async_view(request: Request) -> str:
        return "async"

    @app.get("/def")
    def def_view(request: Request) -> str:
        return "def"

    before = set(threading.enumerate())
    started: dict[str, set[threading.Thread]] = {}

    async def main() -> None:
        async with serving(app) as asgi:
            for _ in range(3):
                assert await call(asgi, "/async") == (200, b"async")
            started["async"] = set(threading.enumerate()) - before
            for _ in range(6):
                assert await call(asgi, "/def") == (200, b"def")
            started["def"] = set(threading.enumerate()) - before

    run(main())
    assert started["async"] == set()  # no def step yet: no thread
    assert 1 <= len(started["def"]) <= 4


# -- nothing on the event loop's default executor ------------------------------------------


class RecordingExecutor(ThreadPoolExecutor):
    """A default executor that notes every call it is given."""

    def __init__(self) -> None:
        super().__init__(max_workers=4)
        self.calls: list[str] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.calls.append(getattr(fn, "__qualname__", repr(fn)))
        return super().submit(fn, *args, **kwargs)


def test_nothing_runs_on_the_default_executor(tmp_path: Path) -> None:
    (tmp_path / "big.bin").write_bytes(bytes(range(256)) * 4096)  # 1 MiB: several reads
    (tmp_path / "small.txt").write_text("small")
    app = App("executor")
    app.static("/static", tmp_path)
    app.mount("/wsgi", _blocking_wsgi(threading.Event(), threading.Event()))
    after: list[str] = []

    @app.before_request
    def before(request: Request) -> None:
        request.state.seen = True

    @app.get("/view")
    def view(request: Request) -> str:
        return "view"

    def tokens() -> Iterator[bytes]:
        yield b"a"
        yield b"b"

    @app.get("/stream")
    def stream(request: Request) -> Response:
        response = Response(tokens())
        response.call_on_close(lambda: after.append("done"))
        return response

    @app.post("/upload")
    def upload(request: BodyRequest) -> str:
        files = request.get_files()
        return str(len(files["file"].read()))

    upload_size = 3 * 1024 * 1024  # past the 1 MiB kept in memory: spooled to disk
    boundary = "thread-model-boundary"
    upload_body = (
        (
            f"--{boundary}\r\nContent-Disposition: form-data; name=file; filename=a.bin\r\n"
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + b"x" * upload_size
        + f"\r\n--{boundary}--\r\n".encode()
    )

    async def main() -> None:
        executor = RecordingExecutor()
        asyncio.get_running_loop().set_default_executor(executor)
        async with serving(app) as asgi:
            assert await call(asgi, "/view") == (200, b"view")
            assert await call(asgi, "/stream") == (200, b"ab")
            assert await call(asgi, "/static/small.txt") == (200, b"small")
            status, body = await call(asgi, "/static/big.bin")
            assert (status, len(body)) == (200, 1024 * 1024)
            assert await call(asgi, "/wsgi/quick") == (200, b"wsgi")
            answer = await call(
                asgi,
                "/upload",
                method="POST",
                body=upload_body,
                content_type=f"multipart/form-data; boundary={boundary}",
            )
            assert answer == (200, str(upload_size).encode())
        assert after == ["done"]
        assert executor.calls == []

    run(main())


# -- the close order, under both adapters --------------------------------------------------


def close_order_app(events: list[str], threads: dict[str, set[int]]) -> App:
    app = App("close-order")

    def tokens(fail: bool) -> Generator[bytes, None, None]:
        try:
            threads["producer"].add(threading.get_ident())
            yield b"a"
            threads["producer"].add(threading.get_ident())
            if fail:
                raise RuntimeError("the producer failed")
            yield b"b"
        finally:
            threads["producer"].add(threading.get_ident())
            events.append("producer finally")

    class Body:
        """A body with a close() of its own, called even when never iterated (HEAD)."""

        def __init__(self, fail: bool) -> None:
            self.producer = tokens(fail)

        def __iter__(self) -> Iterator[bytes]:
            return self.producer

        def close(self) -> None:
            self.producer.close()
            threads["producer"].add(threading.get_ident())
            events.append("body closed")

    def plain_work() -> None:
        threads["plain work"].add(threading.get_ident())
        events.append("plain work")

    async def async_work() -> None:
        events.append("async work")

    @app.route("/", methods=["GET", "HEAD"])
    def view(request: Request) -> Response:
        response = Response(Body(fail="fail" in request.args))
        response.call_on_close(plain_work)
        response.call_on_close(async_work)
        return response

    return app


CLOSE_PATHS = ["read-whole", "client-leaves", "head", "producer-fails"]


@pytest.mark.parametrize("interface", INTERFACES)
@pytest.mark.parametrize("path", CLOSE_PATHS)
def test_the_body_is_closed_before_the_work_after_the_response(
    interface: Interface, path: str
) -> None:
    events: list[str] = []
    threads: dict[str, set[int]] = {"producer": set(), "plain work": set()}
    client = Client(
        close_order_app(events, threads), interface=interface, raise_app_exceptions=False
    )
    if path == "head":
        assert client.head("/").status_code == 200
    else:
        target = "/?fail=1" if path == "producer-fails" else "/"
        with client.stream("GET", target) as response:
            chunks = response.iter_bytes()
            assert next(chunks) == b"a"
            if path == "read-whole":
                assert b"".join(chunks) == b"b"
            elif path == "producer-fails":
                assert b"".join(chunks) == b""  # the connection ends short
    # A body never iterated (HEAD) has no producer's finally to run.
    started = [] if path == "head" else ["producer finally"]
    assert events == [*started, "body closed", "plain work", "async work"]
    here = threading.get_ident()  # the server's thread: WSGI's worker, or the event loop's
    if interface == "wsgi":
        assert threads["producer"] <= {here}
        assert threads["plain work"] == {here}
    else:
        assert here not in threads["producer"] | threads["plain work"]


# -- the settings ----------------------------------------------------------------------


def test_the_thread_settings_and_their_defaults() -> None:
    default = AppConfig()
    assert (default.threads, default.io_threads) == (32, 16)
    assert (default.stream_threads, default.mount_threads) == (128, 32)
    config = AppConfig(threads=4, io_threads=3, stream_threads=2, mount_threads=1)
    assert (config.threads, config.io_threads, config.stream_threads, config.mount_threads) == (
        4,
        3,
        2,
        1,
    )


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("value", [0, -1, 2.5, "4", None])
def test_a_thread_setting_refuses_nonsense(setting: str, value: object) -> None:
    assert setting in {field.name for field in dataclasses.fields(AppConfig)}
    with pytest.raises((ValueError, TypeError), match=setting):
        AppConfig(**{setting: value})  # type: ignore[arg-type]


# -- one hand-off for consecutive def steps; mounts and middleware share the lane ----------


def count_hand_offs(app: App) -> list[int]:
    """Count the calls handed to the App's request pool (each is a thread hand-off)."""
    pool: Any = app.thread_runner
    counted: list[int] = []
    put = pool._put

    def counting(job: Any) -> None:
        counted.append(1)
        put(job)

    pool._put = counting
    return counted


def test_consecutive_def_steps_are_one_hand_off() -> None:
    app = App("hops")
    seen: dict[str, int] = {}

    @app.before_request
    def before(request: Request) -> None:
        seen["before"] = threading.get_ident()

    @app.get("/")
    def view(request: Request) -> str:
        seen["view"] = threading.get_ident()
        return "ok"

    @app.after_request
    def after(request: Request, response: Response) -> Response:
        seen["after"] = threading.get_ident()
        return response

    @app.teardown_request
    def teardown(request: Request, failure: BaseException | None) -> None:
        seen["teardown"] = threading.get_ident()

    with Client(app, interface="asgi") as client:
        hand_offs = count_hand_offs(app)
        assert client.get("/").text == "ok"
    # Four def steps, one call on the request's thread.
    assert len(hand_offs) == 1
    assert len(set(seen.values())) == 1


def test_an_async_step_between_def_steps_costs_one_more_hand_off() -> None:
    app = App("hops-async")
    seen: dict[str, int] = {}

    @app.before_request
    def before(request: Request) -> None:
        seen["before"] = threading.get_ident()

    @app.get("/")
    async def view(request: Request) -> str:
        return "ok"

    @app.teardown_request
    def teardown(request: Request, failure: BaseException | None) -> None:
        seen["teardown"] = threading.get_ident()

    with Client(app, interface="asgi") as client:
        hand_offs = count_hand_offs(app)
        assert client.get("/").text == "ok"
    # The hook's call, then the teardown's on the lane's thread, which waited.
    assert len(hand_offs) == 1  # the second goes to the lane's own queue, not the pool's
    assert seen["before"] == seen["teardown"]


class Blocking:
    """A middleware whose plain hooks may block: they run off the loop."""

    def __init__(self, seen: dict[str, int]) -> None:
        self.seen = seen

    def process_request(self, request: Request) -> None:
        self.seen["process_request"] = threading.get_ident()

    def process_response(self, request: Request, response: Response) -> Response:
        self.seen["process_response"] = threading.get_ident()
        return response


@pytest.mark.parametrize("interface", INTERFACES)
def test_a_def_middleware_hook_and_a_def_view_share_the_thread(interface: Interface) -> None:
    app = App("middleware-lane")
    seen: dict[str, int] = {}
    app.add_middleware(Blocking(seen))

    @app.get("/")
    def view(request: Request) -> str:
        seen["view"] = threading.get_ident()
        return "ok"

    with Client(app, interface=interface) as client:
        for _ in range(20):
            seen.clear()
            assert client.get("/").text == "ok"
            assert seen.keys() == {"process_request", "view", "process_response"}
            assert len(set(seen.values())) == 1


@pytest.mark.parametrize("interface", INTERFACES)
def test_a_mounted_app_runs_on_the_thread_of_the_request_it_serves(
    interface: Interface,
) -> None:
    outer = App("outer")
    inner = App("inner")
    seen: dict[str, int] = {}
    outer.add_middleware(Blocking(seen))

    @inner.before_request
    def inner_before(request: Request) -> None:
        seen["inner_before"] = threading.get_ident()

    @inner.get("/")
    def inner_view(request: Request) -> str:
        seen["inner_view"] = threading.get_ident()
        return "inner"

    @inner.teardown_request
    def inner_teardown(request: Request, failure: BaseException | None) -> None:
        seen["inner_teardown"] = threading.get_ident()

    outer.mount("/in", inner)
    with Client(outer, interface=interface) as client:
        for _ in range(20):
            seen.clear()
            assert client.get("/in/").text == "inner"
            assert len(seen) == 5
            assert len(set(seen.values())) == 1


def test_an_app_mounted_without_a_lifespan_and_dropped_stops_its_threads() -> None:
    # As a test suite does: to_asgi, a request to a def view, and no lifespan
    # shutdown. Once the App is gone, its request pool's threads end.
    app = App("dropped", config=AppConfig(threads=3))

    @app.get("/def")
    def def_view(request: Request) -> str:
        return "def"

    before = set(threading.enumerate())
    asgi = to_asgi(app)
    run(_expect(asgi, "/def", (200, b"def")))
    started = set(threading.enumerate()) - before
    assert len(started) == 3  # the request pool starts all of its threads
    del app, asgi, def_view
    gc.collect()
    for thread in started:
        thread.join(DEADLINE)
        assert not thread.is_alive(), f"{thread.name} outlived its App"


async def _expect(asgi: ASGIApp, target: str, answer: tuple[int, bytes]) -> None:
    assert await call(asgi, target) == answer
