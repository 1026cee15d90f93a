"""Both example frameworks under gunicorn and uvicorn, from one module.

``examples/inventory.py`` holds the inventory service written with each
framework; each server runs one framework's ``wsgi`` (gunicorn's gthread
worker) or ``asgi`` (uvicorn) application as a subprocess on 127.0.0.1.
Every wait is bounded by a deadline.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import httpx
import pytest

from tests.app.servers import free_port, running

pytestmark = pytest.mark.integration

APP = "examples.inventory"
TIMEOUT = 10.0

# id: (program, application attribute)
SERVERS = {
    "resources-gunicorn": ("gunicorn", "resources_wsgi"),
    "resources-uvicorn": ("uvicorn", "resources_asgi"),
    "decorators-gunicorn": ("gunicorn", "decorators_wsgi"),
    "decorators-uvicorn": ("uvicorn", "decorators_asgi"),
}


def command(program: str, attr: str, port: int) -> list[str]:
    if program == "gunicorn":
        return [
            "gunicorn", f"{APP}:{attr}", "--worker-class", "gthread", "--threads", "2",
            "--workers", "1", "--bind", f"127.0.0.1:{port}",
        ]  # fmt: skip
    return ["uvicorn", f"{APP}:{attr}", "--host", "127.0.0.1", "--port", str(port),
            "--no-access-log"]  # fmt: skip


@pytest.fixture(scope="module", params=list(SERVERS))
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    program, attr = SERVERS[request.param]
    if importlib.util.find_spec(program) is None:
        pytest.skip(f"{program} is not installed")
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with running(request.param, command(program, attr, port), port, log):
        yield f"http://127.0.0.1:{port}", program
    output = log.read_text(errors="replace")
    # The crash is logged with its traceback, server-side only.
    assert "RuntimeError: deleting is broken" in output, output


def assert_problem(response: httpx.Response, status: int) -> None:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["status"] == status


def test_the_service_answers_under_the_server(server: tuple[str, str]) -> None:
    url, program = server
    with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        listed = client.get("/items")  # a def view
        assert listed.status_code == 200
        thread = listed.json()["thread"]
        if program == "uvicorn":  # a thread of the application's pool, not the loop's
            assert thread.startswith("sansio-http-request")
        else:  # the gthread worker's own thread
            assert not thread.startswith("sansio-http")

        created = client.post("/items", json={"name": "teapot"})  # an async def view
        assert created.status_code == 201
        item = created.json()
        assert item["name"] == "teapot"
        assert client.get(f"/items/{item['id']}").json() == item

        assert_problem(client.get("/items/999"), 404)
        assert_problem(client.get("/nowhere"), 404)
        assert_problem(client.post("/items", content=b"{}"), 415)
        wrong = client.put("/items/1", json={})
        assert_problem(wrong, 405)
        assert wrong.headers["allow"] == "DELETE, GET, HEAD, OPTIONS"

        options = client.options("/items")
        assert (options.status_code, options.content) == (204, b"")
        assert options.headers["allow"] == "GET, HEAD, OPTIONS, POST"

        crash = client.delete("/items/1")
        assert_problem(crash, 500)
        assert "broken" not in crash.text
