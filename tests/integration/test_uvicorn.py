"""The ASGI adapter under real servers: uvicorn (h11, httptools) and hypercorn.

Each server runs ``tests.integration.uvicorn_app`` as a subprocess on a free
port of 127.0.0.1; every wait is bounded, and the process is stopped by the
fixture's finalizer.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tests.app.servers import wait_ready

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent.parent
APP = "tests.integration.uvicorn_app"
STARTUP_TIMEOUT = 30.0
TIMEOUT = 10.0
_MiB = 1024 * 1024

SERVERS = {
    "uvicorn-h11": ("uvicorn", ["--http", "h11"]),
    "uvicorn-httptools": ("uvicorn", ["--http", "httptools"]),
    "hypercorn": ("hypercorn", []),
}
# The modules each server needs beyond the test extra.
NEEDS = {"uvicorn-h11": "uvicorn", "uvicorn-httptools": "httptools", "hypercorn": "hypercorn"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def command(name: str, attr: str, port: int) -> list[str]:
    program, options = SERVERS[name]
    if program == "uvicorn":
        return [
            sys.executable, "-m", "uvicorn", f"{APP}:{attr}", "--host", "127.0.0.1",
            "--port", str(port), "--lifespan", "on", "--no-access-log", *options,
        ]  # fmt: skip
    return [sys.executable, "-m", "hypercorn", f"{APP}:{attr}", "--bind", f"127.0.0.1:{port}"]


def start(name: str, attr: str, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    if importlib.util.find_spec(NEEDS[name]) is None:
        pytest.skip(f"{NEEDS[name]} is not installed (it is not in the test extra)")
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            command(name, attr, port), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    return process, port


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(TIMEOUT)


@pytest.fixture(scope="module", params=list(SERVERS))
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("server") / "server.log"
    process, port = start(request.param, "app", log)
    try:
        if not wait_ready(process, port):
            pytest.fail(f"{request.param} did not start:\n{log.read_text(errors='replace')}")
        yield Server(request.param, port, process, log)
    finally:
        stop(process)
    output = log.read_text(errors="replace")
    # A disconnect or any request must never surface as an error in the server.
    assert "Traceback" not in output, output


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        yield http


def test_keep_alive_reuses_one_connection(client: httpx.Client) -> None:
    ports = {client.get("/hello").headers["x-client-port"] for _ in range(3)}
    assert len(ports) == 1


def test_head_sends_the_length_without_the_body(client: httpx.Client) -> None:
    response = client.head("/hello")
    assert response.status_code == 200
    assert response.headers["content-length"] == "5"
    assert response.content == b""


def test_if_none_match_gets_304(client: httpx.Client) -> None:
    first = client.get("/etag")
    again = client.get("/etag", headers={"if-none-match": first.headers["etag"]})
    assert (first.status_code, again.status_code) == (200, 304)
    assert again.content == b""


def test_range_gets_206_read_from_the_file(client: httpx.Client) -> None:
    whole = client.get("/file")
    part = client.get("/file", headers={"range": "bytes=1000-1999"})
    assert whole.status_code == 200
    assert len(whole.content) == 300_000
    assert part.status_code == 206
    assert part.headers["content-range"] == "bytes 1000-1999/300000"
    assert part.content == whole.content[1000:2000]


def test_chunked_upload_is_streamed(client: httpx.Client) -> None:
    chunks = [os.urandom(50_000) for _ in range(20)]
    response = client.post("/echo-size", content=iter(chunks))
    assert response.json() == {
        "size": 1_000_000,
        "sha256": hashlib.sha256(b"".join(chunks)).hexdigest(),
    }


def test_50_mib_upload_spools_with_bounded_memory(client: httpx.Client) -> None:
    boundary = "sansio-boundary-7d4a"
    block = os.urandom(_MiB)
    head = (
        f"--{boundary}\r\n"
        'Content-Disposition: form-data; name="name"\r\n\r\nbig\r\n'
        f"--{boundary}\r\n"
        'Content-Disposition: form-data; name="file"; filename="big.bin"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()

    def body() -> Iterator[bytes]:
        yield head
        for _ in range(50):
            yield block
        yield tail

    response = client.post(
        "/upload",
        content=body(),
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )
    data = response.json()
    assert data["name"] == "big"
    assert data["size"] == 50 * _MiB
    assert data["sha256"] == hashlib.sha256(block * 50).hexdigest()
    # Held in memory, the upload alone would add 50 MiB to the peak.
    assert data["rss_growth_kib"] < 25 * 1024


def test_streaming_response_arrives_in_pieces(client: httpx.Client) -> None:
    with client.stream("GET", "/stream", params={"n": "5"}) as response:
        assert response.headers.get("transfer-encoding") == "chunked"
        assert b"".join(response.iter_raw()) == b"0\n1\n2\n3\n4\n"


def test_disconnect_mid_stream_stops_the_stream(server: Server, client: httpx.Client) -> None:
    stopped = client.get("/stats").json()["streams_stopped"]
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT) as sock:
        sock.sendall(b"GET /forever HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        received = b""
        while received.count(b"tick") < 300:
            received += sock.recv(65536)
    deadline = time.monotonic() + TIMEOUT
    while client.get("/stats").json()["streams_stopped"] == stopped:
        assert time.monotonic() < deadline, "the stream kept running after the disconnect"
        time.sleep(0.02)


def test_websocket_echo(server: Server) -> None:
    with connect(f"ws://127.0.0.1:{server.port}/ws", open_timeout=TIMEOUT) as websocket:
        websocket.send("héllo")
        assert websocket.recv(TIMEOUT) == "héllo"
        websocket.send(b"\x00\x01")
        assert websocket.recv(TIMEOUT) == b"\x00\x01"


@pytest.mark.parametrize("name", ["uvicorn-h11", "hypercorn"])
def test_startup_failure_stops_the_server(name: str, tmp_path: Path) -> None:
    process, _ = start(name, "failing_app", tmp_path / "server.log")
    try:
        code = process.wait(STARTUP_TIMEOUT)
    finally:
        stop(process)
    output = (tmp_path / "server.log").read_text(errors="replace")
    # The server stopped either way; hypercorn reports the failure but exits
    # with status 0, uvicorn with 3.
    if name != "hypercorn":
        assert code != 0
    assert "ConnectionError: the database is unreachable" in output
