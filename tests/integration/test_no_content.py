"""A 204 or 304 built with content leaves a keep-alive connection usable.

Every server runs ``tests/integration/no_content_app.py`` as a subprocess on
127.0.0.1: uvicorn (h11 and httptools) and hypercorn the ASGI adapter,
gunicorn's gthread worker (which keeps connections alive) the WSGI adapter
under ``wsgiref.validate``, and ``python -m sansio_http.server`` both. On one
connection, a view answers 204 or 304 with content and then a plain GET
follows: both must get their answers. The content used to go out (httptools
sent it, to be read as the next response), or break the connection (h11:
"Too much data for declared Content-Length"; the development server closed
it), so the second request went unanswered.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.app.servers import free_port, running

from .keepalive import ask_in_turn

pytestmark = pytest.mark.integration

APP = "tests.integration.no_content_app"
STARTUP_TIMEOUT = 15.0

# name: (the module that must be importable, the command after ``python -m``).
SERVERS = {
    "uvicorn-h11": ("uvicorn", ["uvicorn", f"{APP}:asgi", "--http", "h11", "--no-access-log"]),
    "uvicorn-httptools": (
        "httptools",
        ["uvicorn", f"{APP}:asgi", "--http", "httptools", "--no-access-log"],
    ),
    "hypercorn": ("hypercorn", ["hypercorn", f"{APP}:asgi"]),
    "gunicorn-gthread": (
        "gunicorn",
        ["gunicorn", f"{APP}:wsgi", "--worker-class", "gthread", "--threads", "2"],
    ),
    "dev-server-wsgi": ("h11", ["sansio_http.server", f"{APP}:wsgi", "--no-access-log"]),
    "dev-server-asgi": ("h11", ["sansio_http.server", f"{APP}:asgi", "--no-access-log"]),
}


def bind_options(program: str, port: int) -> list[str]:
    if program == "uvicorn":
        return ["--host", "127.0.0.1", "--port", str(port)]
    if program in ("hypercorn", "gunicorn"):
        return ["--bind", f"127.0.0.1:{port}"]
    return ["--host", "127.0.0.1", "--port", str(port)]


@dataclass
class Server:
    name: str
    port: int
    log: Path


@pytest.fixture(scope="module", params=list(SERVERS))
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    needed, command = SERVERS[request.param]
    if importlib.util.find_spec(needed) is None:
        pytest.skip(f"{needed} is not installed")
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with running(request.param, [*command, *bind_options(command[0], port)], port, log):
        yield Server(request.param, port, log)
    output = log.read_text(errors="replace")
    assert "Traceback" not in output, output


@pytest.mark.parametrize("status", [204, 304])
@pytest.mark.parametrize("kind", ["bytes", "sync", "async"])
def test_the_next_request_on_the_connection_is_answered(
    server: Server, status: int, kind: str
) -> None:
    first, second = ask_in_turn(server.port, ("GET", f"/{status}/{kind}"), ("GET", "/hello"))
    assert (first.status, first.body) == (status, b"")
    assert b"transfer-encoding" not in first.headers
    assert b"content-length" not in first.headers
    assert (second.status, second.body) == (200, b"hello")


def test_head_then_get_on_one_connection(server: Server) -> None:
    first, second = ask_in_turn(server.port, ("HEAD", "/200/sync"), ("GET", "/hello"))
    assert (first.status, first.body, first.headers[b"content-length"]) == (200, b"", b"4")
    assert (second.status, second.body) == (200, b"hello")


def test_every_body_was_closed_exactly_once(server: Server) -> None:
    # Ask for one body of each kind, then read the counts of closes (the
    # process is shared with the tests above, so only the growth counts).
    [before] = ask_in_turn(server.port, ("GET", "/closed"))
    ask_in_turn(server.port, ("GET", "/204/sync"), ("GET", "/304/async"), ("HEAD", "/200/async"))
    [after] = ask_in_turn(server.port, ("GET", "/closed"))
    closed = [int(b) - int(a) for a, b in zip(before.body.split(), after.body.split(), strict=True)]
    assert closed == [1, 2]
