"""The command line: ``python -m sansio_http.server``, SIGTERM and ``--reload``."""

from __future__ import annotations

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
    return [b"VERSION"]
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(url: str, expected: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).text == expected:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None, "the server exited"
        time.sleep(0.1)
    raise AssertionError(f"{url} never answered {expected!r}")


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    (tmp_path / "cliapp.py").write_text(APP.replace("VERSION", "one"))
    return tmp_path


def start(folder: Path, *options: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "sansio_http.server", "cliapp:app", "--port", str(port), *options],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return process, f"http://127.0.0.1:{port}/"


@pytest.fixture
def stopper() -> Iterator[list[subprocess.Popen[bytes]]]:
    processes: list[subprocess.Popen[bytes]] = []
    yield processes
    for process in processes:
        if process.poll() is None:
            # SIGINT first: the reloader then stops its child too.
            process.send_signal(signal.SIGINT)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def test_sigterm_exits_cleanly(app_dir: Path, stopper: list[subprocess.Popen[bytes]]) -> None:
    process, url = start(app_dir)
    stopper.append(process)
    wait_for(url, "one", process)
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0


def test_reload_serves_the_changed_file(
    app_dir: Path, stopper: list[subprocess.Popen[bytes]]
) -> None:
    process, url = start(app_dir, "--reload")
    stopper.append(process)
    wait_for(url, "one", process)
    time.sleep(0.1)
    (app_dir / "cliapp.py").write_text(APP.replace("VERSION", "two"))
    wait_for(url, "two", process)
    process.send_signal(signal.SIGINT)
    process.wait(10)
