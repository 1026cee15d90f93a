"""The adapters' request-head checks under real uvicorn and gunicorn, over raw sockets.

These servers let through what the development server refuses: uvicorn runs
a request with both Content-Length and Transfer-Encoding and keeps the
connection, and bounds neither the header fields nor the target; gunicorn
serves HTTP/1.1 without Host. The adapters refuse all of it themselves.
gunicorn runs with its own head limits off, to show that the adapter's hold
without them, and without ``wsgiref.validate``, which asserts on the very
environs (``PATH_INFO`` of ``*``) these tests send.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.app import servers
from tests.app.servers import wait_ready

from .test_uvicorn import free_port, start, stop

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 10.0


@dataclass
class Reply:
    status: int
    headers: dict[bytes, bytes]
    body: bytes


class Connection:
    """A raw client socket that reads replies framed by Content-Length."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buffer = b""

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        self.buffer += data
        return bool(data)

    def reply(self) -> Reply:
        while b"\r\n\r\n" not in self.buffer:
            if not self._fill():
                raise ConnectionError(f"closed before a reply: {self.buffer!r}")
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        line, *lines = head.split(b"\r\n")
        headers = {}
        for field in lines:
            name, _, value = field.partition(b":")
            headers[name.strip().lower()] = value.strip()
        status = int(line.split()[1])
        length = int(headers.get(b"content-length", b"0"))
        while len(self.buffer) < length:
            if not self._fill():
                break
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return Reply(status, headers, body)

    def closed(self) -> bool:
        """Whether the server closed the connection, with nothing more sent."""
        while self._fill():
            pass
        return self.buffer == b""


def ask(port: int, data: bytes) -> Reply:
    connection = Connection(port)
    try:
        connection.send(data)
        return connection.reply()
    finally:
        connection.close()


# -- servers ---------------------------------------------------------------------------

ASGI_SERVERS = ["uvicorn-h11", "uvicorn-httptools"]


def start_gunicorn(log_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    command = [
        sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1",
        "--timeout", "20", "--graceful-timeout", "2", "--chdir", str(ROOT),
        # gunicorn's own head limits off: the adapter's must hold alone.
        "--limit-request-line", "0", "--limit-request-fields", "32768",
        "--limit-request-field_size", "0",
        "tests.integration.gunicorn_app:raw_application",
    ]  # fmt: skip
    with log_path.open("wb") as log:
        environ = {**os.environ, "PYTHONWARNINGS": ""}
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environ)
    return process, port


@pytest.fixture(scope="module", params=[*ASGI_SERVERS, "gunicorn"])
def port(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The port of a running server: uvicorn with the ASGI app, or gunicorn."""
    log = tmp_path_factory.mktemp("head") / "server.log"
    if request.param == "gunicorn":
        process, number = start_gunicorn(log)
    else:
        process, number = start(request.param, "app", log)
    try:
        if not wait_ready(process, number):
            pytest.fail(f"{request.param} did not start:\n{log.read_text(errors='replace')}")
        yield number
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        stop(process)
    output = log.read_text(errors="replace")
    assert "Traceback" not in output, output


# -- both adapters ---------------------------------------------------------------------


def test_an_ordinary_request_is_served(port: int) -> None:
    assert ask(port, b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200


def test_too_many_header_fields_are_431(port: int) -> None:
    fields = b"".join(b"X-%d: 1\r\n" % index for index in range(101))
    assert ask(port, b"GET /hello HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n").status == 431


def test_a_long_target_is_414(port: int) -> None:
    target = b"/hello?" + b"a" * 9000
    assert ask(port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n").status == 414


def test_options_asterisk_is_204(port: int) -> None:
    reply = ask(port, b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (reply.status, reply.body) == (204, b"")


@pytest.mark.parametrize("length", [b"9223372036854775808", b"18446744073709551615"])
def test_a_content_length_no_body_can_have_is_413_at_once(port: int, length: bytes) -> None:
    # Under uvicorn, it used to wait for the body, then answer 400. The
    # check answers before any route: the ASGI app streams the body of
    # /echo-size, the WSGI one reads that of /echo-length.
    for path in (b"/echo-size", b"/echo-length"):
        head = b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %s\r\n\r\n" % (path, length)
        assert ask(port, head).status == 413


def test_http_11_without_host_is_400(port: int) -> None:
    # gunicorn serves it; uvicorn's parsers refuse it themselves.
    assert ask(port, b"GET /hello HTTP/1.1\r\n\r\n").status == 400


def test_a_target_that_is_not_a_path_is_400(port: int) -> None:
    # uvicorn's h11 mode hands "url" over as the path; it was served as /url.
    assert ask(port, b"GET url HTTP/1.1\r\nHost: x\r\n\r\n").status == 400


# -- ASGI: framing ---------------------------------------------------------------------


@pytest.mark.parametrize("port", ASGI_SERVERS, indirect=True)
def test_content_length_with_transfer_encoding_is_400_and_closes(port: int) -> None:
    # A proxy framing by Content-Length forwards the whole as one request;
    # uvicorn, framing by chunks, would then run the smuggled second one.
    smuggled = b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
    connection = Connection(port)
    try:
        connection.send(
            b"POST /echo-size HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n%s" % (5 + len(smuggled), smuggled)
        )
        reply = connection.reply()
        assert (reply.status, reply.headers.get(b"connection")) == (400, b"close")
        assert connection.closed(), "the server answered the smuggled request"
    finally:
        connection.close()


def test_absolute_form_naming_the_host_is_served(port: int) -> None:
    # RFC 9112 §3.2.2: a server MUST accept absolute-form. uvicorn's h11 mode
    # passes "http://x/hello" on as the path, its httptools mode "/hello",
    # gunicorn makes PATH_INFO "/hello": all are served at /hello.
    assert ask(port, b"GET http://x/hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200
    assert ask(port, b"GET HTTP://X/hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200


@pytest.mark.parametrize(
    ("port", "status"),
    [("uvicorn-h11", 400), ("uvicorn-httptools", 200), ("gunicorn", 400)],
    indirect=["port"],
)
def test_absolute_form_naming_another_host(port: int, status: int) -> None:
    # A 400 wherever the target reaches the adapter; uvicorn's httptools
    # mode keeps only the path, so the other authority is never seen.
    request = b"GET http://evil.example/hello HTTP/1.1\r\nHost: x\r\n\r\n"
    assert ask(port, request).status == status


# -- one App behind every server -------------------------------------------------------

APP_MODULE = "tests.integration.test_mount_flask"


@pytest.fixture(scope="module", params=["devserver-wsgi", "devserver-asgi", "gunicorn", "uvicorn"])
def app_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, int]]:
    """The name and port of a server running the App of :data:`APP_MODULE`."""
    log = tmp_path_factory.mktemp("absolute") / "server.log"
    server = servers.start(request.param, APP_MODULE, log)
    try:
        yield request.param, int(server.url.rpartition(":")[2])
    finally:
        server.stop()


def test_an_app_answers_absolute_form_alike_behind_every_server(
    app_server: tuple[str, int],
) -> None:
    name, app_port = app_server
    same = ask(app_port, b"GET http://x/administrator HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (same.status, same.body) == (200, b"outer")
    other = ask(app_port, b"GET http://evil.example/administrator HTTP/1.1\r\nHost: x\r\n\r\n")
    # uvicorn (httptools, its default) drops the target's authority.
    assert other.status == (200 if name == "uvicorn" else 400)


# -- WSGI: what gunicorn passes on -----------------------------------------------------


@pytest.mark.parametrize("port", ["gunicorn"], indirect=True)
def test_absolute_form_must_name_the_host(port: int) -> None:
    # gunicorn makes PATH_INFO "/hello" and keeps Host as sent.
    same = ask(port, b"GET http://x/hello HTTP/1.1\r\nHost: x\r\n\r\n")
    other = ask(port, b"GET http://evil.example/hello HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (same.status, other.status) == (200, 400)
