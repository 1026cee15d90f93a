"""flaskr under gunicorn and uvicorn answers as under Flask, with a real client.

Each server runs :mod:`tests.compat.flaskr_servers` on its own database; an
httpx client keeps the cookies and follows the redirects through flaskr's
register, login, create, update and delete pages, with the mistakes that
flash a message on the way. Every step's redirects (status and Location),
final status, path and flashed messages, and the posts listed, must be those
that Flask's own flaskr under gunicorn gives.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.app.servers import Server, free_port, start, wait_ready

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = pytest.mark.integration

MODULE = "tests.compat.flaskr_servers"

#: The flow: method, path and form of each step.
FLOW: list[tuple[str, str, dict[str, str] | None]] = [
    ("GET", "/", None),
    ("GET", "/auth/register", None),
    ("POST", "/auth/register", {"username": "", "password": "pw"}),
    ("POST", "/auth/register", {"username": "alice", "password": "pw"}),
    ("POST", "/auth/register", {"username": "alice", "password": "pw"}),
    ("POST", "/create", {"title": "too early", "body": ""}),
    ("POST", "/auth/login", {"username": "bob", "password": "pw"}),
    ("POST", "/auth/login", {"username": "alice", "password": "wrong"}),
    ("POST", "/auth/login", {"username": "alice", "password": "pw"}),
    ("GET", "/create", None),
    ("POST", "/create", {"title": "", "body": "no title"}),
    ("POST", "/create", {"title": "First <post>", "body": "hello\nworld"}),
    ("GET", "/1/update", None),
    ("POST", "/1/update", {"title": "", "body": "x"}),
    ("POST", "/1/update", {"title": "Changed & kept", "body": "bye"}),
    ("GET", "/2/update", None),
    ("POST", "/1/delete", None),
    ("POST", "/1/delete", None),
    ("GET", "/auth/logout", None),
    ("GET", "/hello", None),
]

_FLASH = re.compile(r'<div class="flash">(.*?)</div>', re.S)
_TITLE = re.compile(r"<article class=\"post\">\s*<header>\s*<div>\s*<h1>(.*?)</h1>", re.S)


def run_flow(url: str) -> list[dict[str, Any]]:
    """Walk the flow; return what each step showed."""
    seen = []
    with httpx.Client(base_url=url, follow_redirects=True, timeout=30) as client:
        for method, path, form in FLOW:
            response = client.request(method, path, data=form)
            text = response.text
            seen.append(
                {
                    "step": f"{method} {path} {form}",
                    "redirects": [
                        (r.status_code, r.headers.get("location")) for r in response.history
                    ],
                    "status": response.status_code,
                    "path": response.url.path,
                    "flashed": [html.unescape(m) for m in _FLASH.findall(text)],
                    "posts": [html.unescape(t) for t in _TITLE.findall(text)],
                    "logged_in": "Log Out" in text,
                }
            )
    return seen


@pytest.fixture(scope="module")
def flask_flow(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    with served("gunicorn", "flask", tmp_path_factory) as server:
        return run_flow(server.url)


@pytest.fixture
def served_flavour(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    name, flavour = request.param
    with served(name, flavour, tmp_path_factory) as server:
        yield server


class served:
    """Run flaskr of a flavour under a server, on a database of its own."""

    def __init__(self, name: str, flavour: str, factory: pytest.TempPathFactory) -> None:
        folder = factory.mktemp(f"{name}-{flavour}")
        self.server = start(
            name,
            MODULE,
            folder / "server.log",
            env={"FLASKR_FLAVOUR": flavour, "FLASKR_DATABASE": str(folder / "flaskr.sqlite")},
        )

    def __enter__(self) -> Server:
        return self.server

    def __exit__(self, *exc_info: object) -> None:
        self.server.stop()


@pytest.mark.parametrize(
    "served_flavour",
    [
        ("gunicorn", "layer"),
        ("uvicorn", "layer"),
        ("gunicorn", "async"),
        ("uvicorn", "async"),
    ],
    ids=["gunicorn", "uvicorn", "gunicorn-async", "uvicorn-async"],
    indirect=True,
)
def test_flaskr_answers_as_under_flask(
    served_flavour: Server, flask_flow: list[dict[str, Any]]
) -> None:
    ours = run_flow(served_flavour.url)
    for mine, theirs in zip(ours, flask_flow, strict=True):
        assert mine == theirs


def test_the_flow_shows_what_it_compares(flask_flow: list[dict[str, Any]]) -> None:
    # The reference is not empty: redirects, flashed messages and posts are seen.
    steps = [entry["step"] for entry in flask_flow]
    registered = flask_flow[
        steps.index("POST /auth/register {'username': 'alice', 'password': 'pw'}")
    ]
    assert registered["redirects"] == [(302, "/auth/login")]
    by_step = {entry["step"]: entry for entry in flask_flow}
    assert any(e["flashed"] == ["User alice is already registered."] for e in flask_flow)
    assert any(e["flashed"] == ["Incorrect password."] for e in flask_flow)
    assert any(e["posts"] == ["Changed & kept"] for e in flask_flow)
    assert by_step["GET /2/update None"]["status"] == 404


@pytest.mark.parametrize(
    "command",
    [
        ["-m", "gunicorn", "flaskr:create_app()", "--worker-class", "gthread", "--threads", "2"],
        ["-m", "uvicorn", "flaskr:create_app", "--factory", "--interface", "asgi3"],
    ],
    ids=["gunicorn", "uvicorn"],
)
def test_the_documented_commands_serve_flaskr(command: list[str], tmp_path: Path) -> None:
    # The migration guide's two lines, run from flaskr's folder.
    port = free_port()
    where = ["--bind", f"127.0.0.1:{port}"] if "gunicorn" in command else ["--port", str(port)]
    with (tmp_path / "server.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, *command, *where],
            cwd=EXAMPLES,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        assert wait_ready(process, port), (tmp_path / "server.log").read_text()
        response = httpx.get(f"http://127.0.0.1:{port}/hello", timeout=10)
        assert (response.status_code, response.text) == (200, "Hello, World!")
    finally:
        process.terminate()
        process.wait(10)
