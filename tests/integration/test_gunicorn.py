"""The WSGI adapter under real gunicorn workers (sync and gthread), over TCP.

Each worker class gets one gunicorn process with a single worker, so a test
that upsets the worker shows in the next request. The application is
``tests/integration/gunicorn_app.py``, wrapped in ``wsgiref.validate``.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import h11
import httpx
import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024
STARTUP_TIMEOUT = 30.0
TIMEOUT = httpx.Timeout(10.0)


@dataclass
class Gunicorn:
    """A running gunicorn process and where to reach it."""

    worker_class: str
    port: int
    process: subprocess.Popen[bytes]
    file: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"gunicorn exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"gunicorn did not listen on port {port} within {STARTUP_TIMEOUT} s")


@pytest.fixture(scope="module", params=["sync", "gthread"])
def gunicorn(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Gunicorn]:
    # "sync+sendfile" serves the application without wsgiref.validate, whose
    # iterator wrapper hides wsgi.file_wrapper from gunicorn's sendfile path.
    worker_class, _, variant = request.param.partition("+")
    target = "raw_application" if variant == "sendfile" else "application"
    folder = tmp_path_factory.mktemp(f"gunicorn-{worker_class}")
    data = folder / "data.bin"
    data.write_bytes(bytes(range(256)) * 4096)  # 1 MiB
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "1",
        "--worker-class",
        worker_class,
        "--threads",
        "4",
        "--timeout",
        "20",
        "--graceful-timeout",
        "2",
        "--keep-alive",
        "5",
        "--chdir",
        str(ROOT),
        f"tests.integration.gunicorn_app:{target}",
    ]
    log = (folder / "gunicorn.log").open("wb")
    environ = {**os.environ, "SANSIO_TEST_FILE": str(data), "PYTHONWARNINGS": ""}
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environ)
    try:
        wait_for_port(port, process)
        yield Gunicorn(worker_class, port, process, data)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        log.close()


@pytest.fixture
def client(gunicorn: Gunicorn) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gunicorn.url, timeout=TIMEOUT) as client:
        yield client


def test_get_and_head(client: httpx.Client) -> None:
    response = client.get("/file")
    assert response.status_code == 200
    length = response.headers["content-length"]
    assert len(response.content) == int(length)
    head = client.head("/file")
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == length
    assert head.headers["etag"] == response.headers["etag"]


def read_response(conn: h11.Connection, sock: socket.socket) -> tuple[h11.Response, bytes]:
    """Read one response with h11 from a raw socket."""
    head: h11.Response | None = None
    body = b""
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            conn.receive_data(sock.recv(65536))
        elif isinstance(event, h11.Response):
            head = event
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            assert head is not None
            return head, body


def test_keep_alive(gunicorn: Gunicorn) -> None:
    with gunicorn.connect() as sock:
        conn = h11.Connection(h11.CLIENT)
        ports = []
        for _ in range(3):
            request = h11.Request(method="GET", target="/hello", headers=[("Host", "localhost")])
            sock.sendall(conn.send(request) + conn.send(h11.EndOfMessage()))
            head, body = read_response(conn, sock)
            assert head.status_code == 200
            ports.append(json.loads(body)["remote_port"])
            conn.start_next_cycle()
        assert len(set(ports)) == 1


def test_not_found_is_an_error_page(client: httpx.Client) -> None:
    response = client.get("/missing", headers={"accept": "application/json"})
    assert response.status_code == 404
    assert response.json()["status"] == 404


@pytest.mark.parametrize("gunicorn", ["sync", "gthread", "sync+sendfile"], indirect=True)
def test_file_conditional_and_ranges(gunicorn: Gunicorn, client: httpx.Client) -> None:
    data = gunicorn.file.read_bytes()
    full = client.get("/file")
    assert full.status_code == 200
    assert full.content == data
    assert full.headers["accept-ranges"] == "bytes"
    etag = full.headers["etag"]
    not_modified = client.get("/file", headers={"if-none-match": etag})
    assert not_modified.status_code == 304
    assert not_modified.content == b""
    assert "content-type" not in not_modified.headers
    partial = client.get("/file", headers={"range": "bytes=1000-1999"})
    assert partial.status_code == 206
    assert partial.headers["content-range"] == f"bytes 1000-1999/{len(data)}"
    assert partial.content == data[1000:2000]
    tail = client.get("/file", headers={"range": "bytes=-10"})
    assert tail.status_code == 206
    assert tail.content == data[-10:]
    several = client.get("/file", headers={"range": "bytes=0-9,100-109"})
    assert several.status_code == 206
    assert several.headers["content-type"].startswith("multipart/byteranges")
    assert data[0:10] in several.content
    assert data[100:110] in several.content
    head = client.head("/file")
    assert head.headers["content-length"] == str(len(data))
    assert head.content == b""


def test_chunked_upload(client: httpx.Client) -> None:
    payload = os.urandom(300_000)

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(payload), 7000):
            yield payload[start : start + 7000]

    response = client.post("/stream-upload", content=chunks())
    assert response.status_code == 200
    body = response.json()
    assert body["size"] == len(payload)
    assert body["sha256"] == hashlib.sha256(payload).hexdigest()


def test_streaming_response(client: httpx.Client) -> None:
    with client.stream("GET", "/stream", params={"count": 5}) as response:
        assert response.status_code == 200
        assert "content-length" not in response.headers
        lines = list(response.iter_lines())
    assert lines == [f"chunk {number}" for number in range(5)]


def _pattern(size: int) -> Iterator[bytes]:
    block = bytes(range(256)) * 256  # 64 KiB
    sent = 0
    while sent < size:
        piece = block[: min(len(block), size - sent)]
        sent += len(piece)
        yield piece


def _pattern_digest(size: int) -> str:
    digest = hashlib.sha256()
    for piece in _pattern(size):
        digest.update(piece)
    return digest.hexdigest()


@pytest.mark.parametrize("gunicorn", ["gthread"], indirect=True)
def test_large_upload_streams_with_bounded_memory(client: httpx.Client) -> None:
    size = 50 * MiB
    response = client.post(
        "/stream-upload",
        content=_pattern(size),
        headers={"content-length": str(size), "content-type": "application/octet-stream"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["size"] == size
    assert body["sha256"] == _pattern_digest(size)
    assert body["rss_growth"] < 16 * MiB


@pytest.mark.parametrize("gunicorn", ["gthread"], indirect=True)
def test_large_multipart_upload_spools_to_disk(client: httpx.Client) -> None:
    size = 50 * MiB
    with tempfile.TemporaryFile() as file:
        for piece in _pattern(size):
            file.write(piece)
        file.seek(0)
        response = client.post(
            "/form-upload", data={"field": "value"}, files={"file": ("big.bin", file)}
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["field"] == "value"
    assert body["size"] == size
    assert body["sha256"] == _pattern_digest(size)
    assert body["rss_growth"] < 16 * MiB


def test_client_disconnect_mid_upload(gunicorn: Gunicorn, client: httpx.Client) -> None:
    with gunicorn.connect() as sock:
        sock.sendall(
            b"POST /echo-length HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n"
            + b"x"
            * 5000
        )
        time.sleep(0.1)
    # The worker noticed the short body, answered it, and keeps serving.
    deadline = time.monotonic() + 30
    while client.get("/last-error").json()["error"] != "ClientDisconnected":
        assert time.monotonic() < deadline, "the worker did not see the disconnect"
        time.sleep(0.05)
    assert client.get("/hello").status_code == 200
    assert gunicorn.process.poll() is None


def test_content_length_over_the_limit_is_413(gunicorn: Gunicorn) -> None:
    with gunicorn.connect() as sock:
        conn = h11.Connection(h11.CLIENT)
        request = h11.Request(
            method="POST",
            target="/stream-upload",
            headers=[("Host", "localhost"), ("Content-Length", str(65 * MiB))],
        )
        # Only the head and a few bytes: the refusal comes before any reading.
        sock.sendall(conn.send(request) + conn.send(h11.Data(data=b"x" * 10)))
        head, body = read_response(conn, sock)
    assert head.status_code == 413
    assert b"413" in body
