"""A real Flask application at the root of an App, under to_wsgi and to_asgi.

The way to move a Flask application over one route at a time: the App routes
the new paths and hands every other to Flask (``App.mount("/", legacy)``).
The module builds the applications that
:mod:`tests.integration.test_root_mount_servers` also runs under gunicorn and
uvicorn (``wsgi_application``, ``asgi_application``); here the test client
drives them in-process.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from typing import Any

import flask
import pytest

from sansio_http import App, Request
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client
from sansio_http.wsgi import to_wsgi

# The streams waiting for their release, by token (see /stream).
RELEASES: dict[str, threading.Event] = {}


def make_flask() -> flask.Flask:
    """The Flask application being moved over, as it ran on its own."""
    legacy = flask.Flask("legacy")

    @legacy.get("/")
    def hello() -> Any:
        return {
            "script_root": flask.request.script_root,
            "path": flask.request.path,
            "self": flask.url_for("page", name="a", _external=True),
        }

    @legacy.get("/old/<name>")
    def page(name: str) -> Any:
        return {"name": name, "script_root": flask.request.script_root}

    # GET /users moved to the App; POST /users is still here, out of reach.
    @legacy.route("/users", methods=["GET", "POST"])
    def users() -> str:
        return "users from Flask"

    @legacy.post("/echo")
    def echo() -> Any:
        data = flask.request.get_data()
        return {
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "chunked": flask.request.headers.get("Transfer-Encoding"),
        }

    @legacy.get("/stream")
    def stream() -> flask.Response:
        token = flask.request.args.get("token", "")
        release = RELEASES.setdefault(token, threading.Event())

        def chunks() -> Iterator[str]:
            yield "first;"
            # Released by /release once the client has the first chunk: a
            # response buffered whole would wait here until the timeout.
            yield "released" if release.wait(10) else "timed out"

        return flask.Response(chunks(), mimetype="text/plain")

    @legacy.post("/release")
    def release() -> str:
        RELEASES.setdefault(flask.request.args.get("token", ""), threading.Event()).set()
        return "ok"

    return legacy


def build() -> App:
    """Return the App that routes the paths moved over, with Flask at the root."""
    app = App("new")

    @app.get("/users")
    def users(request: Request) -> str:
        return "users from the App"

    @app.get("/new/<int:number>")
    def new(request: Request, number: int) -> Any:
        return {"number": number, "root_path": request.root_path}

    app.mount("/", make_flask())
    return app


wsgi_application = to_wsgi(build())
asgi_application = to_asgi(build())


@pytest.fixture(params=["wsgi", "asgi"])
def client(request: pytest.FixtureRequest) -> Iterator[Client]:
    application = wsgi_application if request.param == "wsgi" else asgi_application
    with Client(application) as client:
        yield client


def test_the_app_answers_its_routes_and_flask_every_other(client: Client) -> None:
    assert client.get("/new/7").json() == {"number": 7, "root_path": ""}
    assert client.get("/users").text == "users from the App"
    assert client.get("/").json() == {
        "script_root": "",
        "path": "/",
        "self": "http://testserver/old/a",
    }
    assert client.get("/old/b").json() == {"name": "b", "script_root": ""}
    missing = client.get("/missing")
    # Flask's own 404 page.
    assert missing.status_code == 404
    assert "The requested URL was not found on the server" in missing.text


def test_a_method_of_a_path_the_app_routes_is_the_apps_405(client: Client) -> None:
    response = client.post("/users")
    assert (response.status_code, response.headers["allow"]) == (405, "GET, HEAD, OPTIONS")


def test_flask_under_a_server_root_path(client: Client) -> None:
    assert client.get("/app/old/c", root_path="/app").json() == {
        "name": "c",
        "script_root": "/app",
    }


def test_flask_reads_a_chunked_body(client: Client) -> None:
    content = bytes(range(256)) * 64
    response = client.post("/echo", content=iter([content[:100], content[100:]]))
    assert response.json()["size"] == len(content)
    assert response.json()["sha256"] == hashlib.sha256(content).hexdigest()


def test_flask_streams_a_generator(client: Client) -> None:
    token = "root-client-" + client.interface
    response = client.stream("GET", f"/stream?token={token}")
    chunks = response.iter_bytes()
    assert next(chunks) == b"first;"
    # The WSGI test client runs the generator as it reads: release it directly.
    RELEASES[token].set()
    assert b"".join(chunks) == b"released"
