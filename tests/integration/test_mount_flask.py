"""A real Flask application mounted in an App, under to_wsgi and to_asgi.

The module builds the applications that :mod:`tests.integration.test_mount_servers`
also runs under gunicorn and uvicorn (``wsgi_application``,
``asgi_application``): an outer App with a Flask application at ``/flask``,
another App at ``/admin`` and, under ASGI only, a Starlette application at
``/star``. Here the test client drives them in-process: Flask answers its
own routes, reads a form and an upload, streams a generator, and its
``url_for`` builds URLs under the prefix.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import flask
import pytest
from starlette.applications import Starlette
from starlette.requests import Request as StarletteRequest
from starlette.responses import JSONResponse as StarletteJSON
from starlette.routing import Route

from sansio_http import App, Request, Response
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client
from sansio_http.wsgi import to_wsgi

# The streams waiting for their release, by token (see /flask/stream).
RELEASES: dict[str, threading.Event] = {}
STARLETTE_EVENTS: list[str] = []


def make_flask() -> flask.Flask:
    """A small Flask application, as it would run on its own."""
    legacy = flask.Flask("legacy")

    @legacy.get("/")
    def hello() -> Any:
        return {
            "script_root": flask.request.script_root,
            "path": flask.request.path,
            "self": flask.url_for("hello"),
            "form": flask.url_for("form", _external=True),
        }

    @legacy.post("/form")
    def form() -> Any:
        upload = flask.request.files.get("upload")
        content = upload.read() if upload is not None else b""
        return {
            "name": flask.request.form.get("name"),
            "filename": upload.filename if upload is not None else None,
            "size": len(content),
            "sha256": hashlib.sha256(content).hexdigest(),
        }

    @legacy.post("/echo")
    def echo() -> Any:
        data = flask.request.get_data()
        return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}

    @legacy.get("/stream")
    def stream() -> flask.Response:
        token = flask.request.args.get("token", "")
        release = RELEASES.setdefault(token, threading.Event())

        def chunks() -> Iterator[str]:
            yield "first;"
            # Released by /flask/release once the client has the first chunk:
            # a response buffered whole would wait here until the timeout.
            yield "released" if release.wait(10) else "timed out"

        return flask.Response(chunks(), mimetype="text/plain")

    @legacy.post("/release")
    def release() -> str:
        RELEASES.setdefault(flask.request.args.get("token", ""), threading.Event()).set()
        return "ok"

    return legacy


def make_starlette() -> Starlette:
    """A Starlette application with a lifespan, counted in STARLETTE_EVENTS."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        STARLETTE_EVENTS.append("startup")
        yield {"started": STARLETTE_EVENTS.count("startup")}
        STARLETTE_EVENTS.append("shutdown")

    async def started(request: StarletteRequest) -> StarletteJSON:
        return StarletteJSON(
            {"startups": request.state.started, "root_path": request.scope["root_path"]}
        )

    return Starlette(routes=[Route("/started", started)], lifespan=lifespan)


def build(*, asgi: bool) -> App:
    """Return the outer App; the Starlette application only where ASGI serves it."""
    outer = App("outer")
    admin = App("admin")

    @outer.get("/")
    def home(request: Request) -> Any:
        return {"admin": outer.url_for("admin.index")}

    @outer.get("/administrator")
    def administrator(request: Request) -> str:
        return "outer"

    @admin.get("/")
    def index(request: Request) -> Any:
        return {
            "root_path": request.root_path,
            "path": request.path,
            "self": admin.url_for("index", _external=True),
        }

    @admin.get("/outer")
    def outer_urls(request: Request) -> Any:
        # The outer App's URLs, built inside the mounted App's request.
        return {"home": outer.url_for("home"), "admin": outer.url_for("admin.index")}

    @admin.get("/stream")
    def stream_urls(request: Request) -> Response:
        # URLs built while the body is made, after the view returned.
        def produce() -> Iterator[str]:
            yield admin.url_for("index")

        async def produce_async() -> AsyncIterator[str]:
            yield admin.url_for("index")

        return Response(produce() if request.args.get("kind") == "sync" else produce_async())

    outer.mount("/admin", admin)
    outer.mount("/flask", make_flask())
    if asgi:
        outer.mount("/star", make_starlette())
    return outer


wsgi_application = to_wsgi(build(asgi=False))
asgi_application = to_asgi(build(asgi=True))


@pytest.fixture(params=["wsgi", "asgi"])
def client(request: pytest.FixtureRequest) -> Iterator[Client]:
    application = wsgi_application if request.param == "wsgi" else asgi_application
    with Client(application) as client:
        yield client


def test_flask_answers_its_own_routes_under_the_prefix(client: Client) -> None:
    assert client.get("/flask/").json() == {
        "script_root": "/flask",
        "path": "/",
        "self": "/flask/",
        "form": "http://testserver/flask/form",
    }
    assert client.get("/flask/missing").status_code == 404
    assert client.get("/flask").headers["location"] == "/flask/"


def test_flask_reads_a_form_and_an_upload(client: Client) -> None:
    content = bytes(range(256)) * 4096  # 1 MiB
    response = client.post(
        "/flask/form",
        data={"name": "Zoë"},
        files={"upload": ("data.bin", content, "application/octet-stream")},
    )
    assert response.json() == {
        "name": "Zoë",
        "filename": "data.bin",
        "size": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
    }


def test_flask_reads_a_chunked_body(client: Client) -> None:
    # No Content-Length: Werkzeug reads the body only where the server says
    # that wsgi.input ends by itself (wsgi.input_terminated).
    content = bytes(range(256)) * 64
    response = client.post("/flask/echo", content=iter([content[:100], content[100:]]))
    assert response.json() == {
        "size": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
    }


def test_flask_streams_a_generator(client: Client) -> None:
    response = client.stream("GET", "/flask/stream?token=client-" + client.interface)
    chunks = response.iter_bytes()
    assert next(chunks) == b"first;"
    # The WSGI test client runs the generator as it reads: release it directly.
    RELEASES["client-" + client.interface].set()
    assert b"".join(chunks) == b"released"


def test_the_sansio_apps_beside_flask(client: Client) -> None:
    assert client.get("/").json() == {"admin": "/admin/"}
    assert client.get("/admin/").json() == {
        "root_path": "/admin",
        "path": "/",
        "self": "http://testserver/admin/",
    }
    assert client.get("/administrator").text == "outer"
    assert client.get("/admin/outer").json() == {"home": "/", "admin": "/admin/"}


def test_starlette_lifespan_runs_once_inside_the_apps() -> None:
    STARLETTE_EVENTS.clear()
    with Client(asgi_application) as client:
        assert client.get("/star/started").json() == {"startups": 1, "root_path": "/star"}
    assert STARLETTE_EVENTS == ["startup", "shutdown"]
