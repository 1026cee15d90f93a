"""Handlers of either kind under gunicorn and uvicorn, with an error renderer.

Each server runs one application of ``tests/integration/bare_handlers_app.py``
as a subprocess on 127.0.0.1: gunicorn's gthread worker the WSGI ones,
uvicorn the ASGI ones. Every wait is bounded by a deadline.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import httpx
import pytest

from tests.app.servers import free_port, running

pytestmark = pytest.mark.integration

APP = "tests.integration.bare_handlers_app"
TIMEOUT = 10.0

# id: (program, application attribute, handler kind)
SERVERS = {
    "gunicorn-def": ("gunicorn", "wsgi_def", "def"),
    "gunicorn-async": ("gunicorn", "wsgi_async", "async"),
    "uvicorn-def": ("uvicorn", "asgi_def", "def"),
    "uvicorn-async": ("uvicorn", "asgi_async", "async"),
}


def command(program: str, attr: str, port: int) -> list[str]:
    if program == "gunicorn":
        return [
            "gunicorn", f"{APP}:{attr}", "--worker-class", "gthread", "--threads", "2",
            "--bind", f"127.0.0.1:{port}",
        ]  # fmt: skip
    return ["uvicorn", f"{APP}:{attr}", "--host", "127.0.0.1", "--port", str(port),
            "--no-access-log"]  # fmt: skip


@pytest.fixture(scope="module", params=list(SERVERS))
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    program, attr, kind = SERVERS[request.param]
    if importlib.util.find_spec(program) is None:
        pytest.skip(f"{program} is not installed")
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with running(request.param, command(program, attr, port), port, log):
        yield f"http://127.0.0.1:{port}", kind
    output = log.read_text(errors="replace")
    # Only the crash is logged, with its traceback.
    assert output.count("Traceback") == 1, output
    assert "RuntimeError: crash" in output, output


def test_either_kind_answers_and_renders_its_errors(server: tuple[str, str]) -> None:
    url, kind = server
    with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        echo = client.post("/echo", content=b"hello")
        assert (echo.status_code, echo.text) == (200, f"{kind} POST hello")
        missing = client.get("/missing")
        assert missing.status_code == 404
        assert missing.headers["content-type"] == "application/problem+json"
        assert missing.json() == {"status": 404, "instance": "/missing"}
        crash = client.get("/crash")
        assert crash.status_code == 500
        assert crash.json() == {"status": 500, "instance": "/crash"}
