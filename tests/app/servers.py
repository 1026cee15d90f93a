"""Start a test module's applications under real servers on 127.0.0.1.

``start("uvicorn", module, log)`` runs ``module:asgi_application`` under
uvicorn, ``start("gunicorn", ...)`` runs ``module:wsgi_application`` under
gunicorn, and ``start("devserver-wsgi", ...)`` or ``"devserver-asgi"`` one of
them on the development server; each returns once the port accepts
connections.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT = 30.0


#: The in-process test clients, then the servers, as fixture parameters.
CLIENTS = ["client-wsgi", "client-asgi"]


def transports(*servers: str) -> list[Any]:
    """Return fixture parameters: both test clients, then ``servers`` (integration)."""
    return [*CLIENTS, *(pytest.param(name, marks=pytest.mark.integration) for name in servers)]


@contextmanager
def http_client(
    name: str, module: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[httpx.Client]:
    """Run ``module`` under the server ``name``; yield an httpx client for it."""
    server = start(name, module, tmp_path_factory.mktemp(name) / "server.log")
    try:
        with httpx.Client(base_url=server.url, timeout=10) as http:
            yield http
    finally:
        server.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def command(name: str, module: str, port: int) -> list[str]:
    if name == "gunicorn":
        return [
            sys.executable, "-m", "gunicorn", f"{module}:wsgi_application",
            "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread", "--threads", "4",
            "--workers", "1", "--timeout", "30",
        ]  # fmt: skip
    if name == "uvicorn":
        return [
            sys.executable, "-m", "uvicorn", f"{module}:asgi_application",
            "--host", "127.0.0.1", "--port", str(port), "--lifespan", "on", "--no-access-log",
        ]  # fmt: skip
    if name in ("devserver-wsgi", "devserver-asgi"):
        interface = name.rpartition("-")[2]
        return [
            sys.executable, "-m", "sansio_http.server", f"{module}:{interface}_application",
            "--host", "127.0.0.1", "--port", str(port), "--interface", interface,
            "--no-access-log",
        ]  # fmt: skip
    raise ValueError(f"unknown server {name!r}")


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    log: Path
    url: str

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def start(
    name: str, module: str, log: Path, *, port: int | None = None, env: dict[str, str] | None = None
) -> Server:
    port = port or free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            command(name, module, port),
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
    if wait_ready(process, port):
        return Server(process, log, f"http://127.0.0.1:{port}")
    if process.poll() is not None:
        pytest.fail(f"{name} exited at startup:\n{log.read_text(errors='replace')}")
    process.kill()
    pytest.fail(f"{name} did not listen within {STARTUP_TIMEOUT} s")


def wait_ready(process: subprocess.Popen[bytes], port: int) -> bool:
    """Wait until ``process`` listens on ``port``; False if it exits or times out."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


#: How long a server has to stop after SIGTERM, and again after SIGKILL.
STOP_TIMEOUT = 10.0


@contextmanager
def running(name: str, args: list[str], port: int, log: Path) -> Iterator[None]:
    """Run ``python -m *args`` from the project root until the block ends.

    Its output goes to ``log``. The block starts once ``port`` accepts
    connections; the test fails, with the log, if it never does. The
    process is terminated after the block (killed if it does not stop).
    """
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", *args], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        if not wait_ready(process, port):
            pytest.fail(f"{name} did not start:\n{log.read_text(errors='replace')}")
        yield
    finally:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)
