"""``--reload`` and signals: SIGTERM or SIGINT to the watcher frees the port.

The watcher runs the server as a child process. A signal sent to the watcher
alone (as a process manager or ``kill`` sends it, not a terminal's Ctrl+C,
which reaches the whole process group) must stop that child too, and the
watcher must exit, within a bound. Each watcher runs in a session of its own,
so that the test can end whatever it left behind.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration

APP = """
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"watched"]
"""

#: Seconds the watcher gets to stop its server and exit.
EXIT_BOUND = 20.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def watcher(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    (tmp_path / "watchedapp.py").write_text(APP)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "sansio_http.server", "watchedapp:app", "--port", str(port),
         "--reload", "--no-access-log"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        yield process, port
    finally:
        # Whatever is left of the session (a server the watcher abandoned).
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(10)


def wait_until_served(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert process.poll() is None, "the watcher exited"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=1).text == "watched":
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail("the server never answered")


def port_is_free(port: int) -> bool:
    """Return whether nothing listens on the port: connecting is refused, binding works."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        pass
    else:
        return False
    with socket.socket() as sock:
        # SO_REUSEADDR, as servers set it: connections in TIME_WAIT do not count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
        except OSError:
            return False
    return True


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_watcher_stops_its_server_and_frees_the_port(
    watcher: tuple[subprocess.Popen[bytes], int], sig: signal.Signals
) -> None:
    process, port = watcher
    wait_until_served(process, port)
    process.send_signal(sig)  # to the watcher alone, not its process group
    try:
        status = process.wait(EXIT_BOUND)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the watcher did not exit within {EXIT_BOUND} s of {sig.name}")
    assert status == 0
    assert port_is_free(port)
