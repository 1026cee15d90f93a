"""Whole WSGI request cycles in-process: the App, a JSON echo, Falcon's request.

This completes the groups of ``test_bench_wsgi.py`` on its inputs (the
captured Firefox navigation as gunicorn's environ):

- ``wsgi-request``: Falcon's request, reading what the other requests read;
- ``wsgi-hello``: the :class:`~sansio_http.App` mounted with ``to_wsgi``;
- ``wsgi-json-echo``: ``POST /echo`` with a small JSON object, answered with
  the same object, by a raw callable (the floor), ``wsgi_app``, the App,
  Werkzeug, Flask and Falcon.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import falcon
import flask
import pytest
import werkzeug.wrappers
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks._drive import WSGIApp, call_wsgi, mount_wsgi
from benchmarks.test_bench_wsgi import ENVIRON, EXPECTED, HELLO, PATH, browser_environ
from sansio_http import App, JSONResponse, Response
from sansio_http.wsgi import WSGIRequest, wsgi_app

# -- environ -> request -----------------------------------------------------------------


def read_falcon(environ: dict[str, Any]) -> tuple[str, str, str, str | None, str]:
    request = falcon.Request(environ)
    return (
        request.method,
        request.path,
        request.get_param("page", required=True),
        request.get_header("user-agent"),
        request.cookies["sessionid"],
    )


@pytest.mark.benchmark(group="wsgi-request")
def test_environ_request_falcon(benchmark: BenchmarkFixture) -> None:
    benchmark.extra_info["implementation"] = "falcon"
    assert benchmark(lambda: read_falcon(ENVIRON.copy())) == EXPECTED


# -- hello world through the App ------------------------------------------------------


@pytest.mark.benchmark(group="wsgi-hello")
def test_hello_world_app(benchmark: BenchmarkFixture) -> None:
    app = App("hello")

    @app.get(PATH)
    def hello(request: WSGIRequest) -> Response:
        return Response(HELLO.decode())

    wsgi = mount_wsgi(app)
    benchmark.extra_info["implementation"] = "sansio-http App"
    assert benchmark(call_wsgi, wsgi, ENVIRON) == ("200 OK", HELLO)


# -- JSON echo ------------------------------------------------------------------------

ECHO = "/echo"
PAYLOAD = {"id": 42, "name": "Zoë", "tags": ["a", "b"], "active": True}
PAYLOAD_JSON = json.dumps(PAYLOAD).encode()
ECHO_ENVIRON = browser_environ("POST", ECHO, "", PAYLOAD_JSON)
ECHO_ENVIRON["CONTENT_TYPE"] = "application/json"


def echo_raw() -> WSGIApp:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        data = json.loads(environ["wsgi.input"].read(length))
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        start_response(
            "200 OK",
            [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
        )
        return [body]

    return app


def echo_ours() -> WSGIApp:
    return wsgi_app(lambda request: JSONResponse(request.get_json()))


def echo_app() -> WSGIApp:
    app = App("echo")

    @app.post(ECHO)
    def echo(request: WSGIRequest) -> Any:
        return request.get_json()

    return mount_wsgi(app)


def echo_werkzeug() -> WSGIApp:
    @werkzeug.wrappers.Request.application
    def app(request: werkzeug.wrappers.Request) -> werkzeug.wrappers.Response:
        return werkzeug.wrappers.Response(
            json.dumps(request.get_json()), mimetype="application/json"
        )

    return app


def echo_flask() -> WSGIApp:
    app = flask.Flask("echo")

    @app.post(ECHO)
    def echo() -> Any:
        return flask.request.get_json()

    return app


def echo_falcon() -> WSGIApp:
    class Echo:
        def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
            resp.media = req.get_media()

    app = falcon.App()
    app.add_route(ECHO, Echo())
    return app


#: By test id: the implementation's name in the report, and how to make its application.
ECHOES: dict[str, tuple[str, Callable[[], WSGIApp]]] = {
    "raw": ("raw", echo_raw),
    "sansio_http": ("sansio-http", echo_ours),
    "app": ("sansio-http App", echo_app),
    "werkzeug": ("werkzeug", echo_werkzeug),
    "flask": ("flask", echo_flask),
    "falcon": ("falcon", echo_falcon),
}


@pytest.mark.benchmark(group="wsgi-json-echo")
@pytest.mark.parametrize("name", ECHOES)
def test_json_echo(benchmark: BenchmarkFixture, name: str) -> None:
    label, make = ECHOES[name]
    app = make()
    benchmark.extra_info["implementation"] = label
    status, body = benchmark(call_wsgi, app, ECHO_ENVIRON, PAYLOAD_JSON)
    assert status == "200 OK"
    assert json.loads(body) == PAYLOAD
