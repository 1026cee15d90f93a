"""An App's lifecycle under real servers: hooks once per process, state, a clean stop.

The application module below mounts one App both ways, as the quickstart
does (``asgi = to_asgi(app)`` then ``wsgi = to_wsgi(app)``). Each server
runs it as a subprocess on a free port of 127.0.0.1; its hooks append lines
to the file named by ``LIFECYCLE_LOG``, so that the test counts them once
the process has exited after SIGTERM. The hooks take the lifespan state or
not (``LIFECYCLE_HOOKS``), and the App has a lifespan context manager,
async or sync, or none (``LIFECYCLE_LIFESPAN``), so that counting them
needs no other change. Every wait is bounded.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration

STARTUP_TIMEOUT = 30.0
TIMEOUT = 10.0

APP = """
import asyncio
import contextlib
import os

from sansio_http import App
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi


def note(line):
    with open(os.environ["LIFECYCLE_LOG"], "a") as log:
        log.write(line + "\\n")


@contextlib.asynccontextmanager
async def async_lifespan(app):
    note("lifespan enter")
    task = asyncio.current_task()
    yield {"greeting": "hello from the lifespan"}
    note("lifespan exit" + (" in its task" if asyncio.current_task() is task else ""))


@contextlib.contextmanager
def sync_lifespan(app):
    note("lifespan enter")
    yield {"greeting": "hello from the lifespan"}
    note("lifespan exit")


LIFESPANS = {"async": async_lifespan, "sync": sync_lifespan, "none": None}
app = App("lifecycle", lifespan=LIFESPANS[os.environ["LIFECYCLE_LIFESPAN"]])


if os.environ["LIFECYCLE_HOOKS"] == "state":

    @app.on_startup
    def connect(state):
        note("startup")
        state["greeting"] = "hello from startup"

    @app.on_shutdown
    async def disconnect(state):
        note("shutdown " + state["greeting"])

else:

    @app.on_startup
    def connect():
        note("startup")

    @app.on_shutdown
    async def disconnect():
        note("shutdown")


@app.on_startup
async def announce():
    note("announce")


@app.get("/")
def index(request):
    return request.state.get("greeting", "no state")


@app.get("/async")
async def index_async(request):
    return request.state.get("greeting", "no state")


@app.post("/nested")
def nested(request):
    return asyncio.run(request.body())


asgi = to_asgi(app)
wsgi = to_wsgi(app)
"""

#: How each server is started on the module (``lifecycle_app``) and a port.
SERVERS = {
    "uvicorn": lambda port: [
        "-m", "uvicorn", "lifecycle_app:asgi", "--host", "127.0.0.1", "--port", str(port),
        "--lifespan", "on", "--no-access-log",
    ],
    "gunicorn": lambda port: [
        "-m", "gunicorn", "lifecycle_app:wsgi", "--bind", f"127.0.0.1:{port}",
        "--workers", "1", "--worker-class", "gthread", "--threads", "2",
        "--graceful-timeout", "5",
    ],
    "devserver-app": lambda port: [
        "-m", "sansio_http.server", "lifecycle_app:app", "--port", str(port), "--no-access-log",
    ],
    "devserver-asgi": lambda port: [
        "-m", "sansio_http.server", "lifecycle_app:asgi", "--port", str(port),
        "--interface", "asgi", "--no-access-log",
    ],
    "devserver-wsgi": lambda port: [
        "-m", "sansio_http.server", "lifecycle_app:wsgi", "--port", str(port),
        "--interface", "wsgi", "--no-access-log",
    ],
}  # fmt: skip


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Running:
    name: str
    process: subprocess.Popen[bytes]
    port: int
    output: Path
    events: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.output.read_text(errors="replace")

    def stop(self) -> int:
        """Send SIGTERM and return the exit status, failing past the bound."""
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(TIMEOUT)
            # uvicorn ends a graceful shutdown by raising the signal again.
            return 0 if status == -signal.SIGTERM and self.name == "uvicorn" else status
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(TIMEOUT)
            pytest.fail(f"the server did not exit within {TIMEOUT} s of SIGTERM:\n{self.log()}")

    def lines(self) -> list[str]:
        return self.events.read_text().splitlines() if self.events.exists() else []


@pytest.fixture
def hooks() -> str:
    """``"plain"`` hooks without parameters, or ``"state"`` hooks that take it."""
    return "plain"


@pytest.fixture
def lifespan() -> str:
    """``"none"``, or the App's lifespan context manager: ``"async"`` or ``"sync"``."""
    return "none"


@pytest.fixture(params=list(SERVERS))
def server(
    request: pytest.FixtureRequest, tmp_path: Path, hooks: str, lifespan: str
) -> Iterator[Running]:
    name: str = request.param
    program = "gunicorn" if name == "gunicorn" else "uvicorn" if name == "uvicorn" else None
    if program is not None:
        pytest.importorskip(program)
    (tmp_path / "lifecycle_app.py").write_text(APP)
    port = free_port()
    events = tmp_path / "events.log"
    output = tmp_path / "server.log"
    env = {
        **os.environ,
        "LIFECYCLE_LOG": str(events),
        "LIFECYCLE_HOOKS": hooks,
        "LIFECYCLE_LIFESPAN": lifespan,
    }
    with output.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, *SERVERS[name](port)],
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    running = Running(name, process, port, output, events)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"{name} exited at startup:\n{running.log()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{name} did not listen within {STARTUP_TIMEOUT} s")
                time.sleep(0.05)
        yield running
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(TIMEOUT)


def test_hooks_run_once_per_process_however_often_the_app_is_mounted(server: Running) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        assert http.get("/").text == "no state"
    # The startup is over before the first request: only its lines so far.
    assert server.lines() == ["startup", "announce"]
    assert server.stop() == 0
    assert server.lines() == ["startup", "announce", "shutdown"]


@pytest.mark.parametrize("hooks", ["state"])
def test_startup_hooks_fill_the_state_of_every_request(server: Running) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        assert http.get("/").text == "hello from startup"
        assert http.get("/async").text == "hello from startup"
    assert server.stop() == 0
    assert server.lines() == ["startup", "announce", "shutdown hello from startup"]


@pytest.mark.parametrize("lifespan", ["async", "sync"])
def test_a_lifespan_runs_once_around_the_hooks_and_seeds_the_state(
    server: Running, lifespan: str
) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        assert http.get("/").text == "hello from the lifespan"
        assert http.get("/async").text == "hello from the lifespan"
    assert server.lines() == ["lifespan enter", "startup", "announce"]
    assert server.stop() == 0
    # An async lifespan is entered and exited in one task, whoever mounted it.
    exit_line = "lifespan exit in its task" if lifespan == "async" else "lifespan exit"
    assert server.lines() == ["lifespan enter", "startup", "announce", "shutdown", exit_line]


def send_in_two_pieces(port: int, path: str, first: bytes, rest: bytes) -> bytes:
    """POST a body in two pieces; return the whole response, or fail past the bound."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n"
            f"content-length: {len(first) + len(rest)}\r\n\r\n"
        )
        sock.sendall(head.encode() + first)
        time.sleep(0.2)  # NOTE: not an assertion; lets the server hand over the first piece
        sock.sendall(rest)
        chunks = []
        try:
            while data := sock.recv(65536):
                chunks.append(data)
        except TimeoutError:
            pytest.fail(f"no complete answer within {TIMEOUT} s: {b''.join(chunks)!r}")
        return b"".join(chunks)


@pytest.mark.parametrize("server", ["uvicorn", "devserver-asgi"], indirect=True)
def test_asyncio_run_of_the_body_in_a_def_view_fails_fast(server: Running) -> None:
    answer = send_in_two_pieces(server.port, "/nested", b"hello ", b"world")
    assert answer.startswith(b"HTTP/1.1 500 ")
    # The server still serves, and stops within its bound.
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        assert http.get("/").status_code == 200
    assert server.stop() == 0
    assert "asyncio.run() in a def view?" in server.log()
    assert "request.get_data()" in server.log()
