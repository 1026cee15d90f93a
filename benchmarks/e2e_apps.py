"""The hello-world applications that ``scripts/bench_e2e.py`` puts behind real servers.

Each answers ``GET /`` with ``Hello, World!`` as ``text/plain``; the raw
callables are the floor of their interface. A name is None when the thing it
needs has not landed yet (``to_wsgi`` / ``to_asgi`` for the App), and the
script skips it. Not collected by pytest: no ``test_`` prefix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import falcon
import falcon.asgi
import flask
import starlette.applications
import starlette.requests
import starlette.responses
import starlette.routing
import werkzeug.wrappers

import sansio_http.asgi
import sansio_http.wsgi
from sansio_http import App, Response

HELLO = b"Hello, World!"
TEXT = "text/plain; charset=utf-8"
HEAD = [("Content-Type", TEXT), ("Content-Length", str(len(HELLO)))]


# -- WSGI -----------------------------------------------------------------------------


def wsgi_raw(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", HEAD)
    return [HELLO]


wsgi_ours = sansio_http.wsgi.wsgi_app(lambda request: Response(HELLO.decode()))


def _app() -> App:
    app = App("hello")

    @app.get("/")
    def hello(request: Any) -> Response:
        return Response(HELLO.decode())

    return app


_to_wsgi = getattr(sansio_http.wsgi, "to_wsgi", None)
wsgi_app = None if _to_wsgi is None else _to_wsgi(_app())


@werkzeug.wrappers.Request.application
def wsgi_werkzeug(request: werkzeug.wrappers.Request) -> werkzeug.wrappers.Response:
    return werkzeug.wrappers.Response(HELLO, content_type=TEXT)


wsgi_flask = flask.Flask("hello")


@wsgi_flask.get("/")
def _flask_hello() -> flask.Response:
    return flask.Response(HELLO, content_type=TEXT)


class _FalconHello:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.data = HELLO
        resp.content_type = TEXT


wsgi_falcon = falcon.App()
wsgi_falcon.add_route("/", _FalconHello())


# -- ASGI -----------------------------------------------------------------------------


async def asgi_raw(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(name.lower().encode(), value.encode()) for name, value in HEAD],
        }
    )
    await send({"type": "http.response.body", "body": HELLO})


async def _hello(request: Any) -> Response:
    return Response(HELLO.decode())


asgi_ours = sansio_http.asgi.asgi_app(_hello)


def _async_app() -> App:
    app = App("hello")
    app.get("/")(_hello)
    return app


_to_asgi = getattr(sansio_http.asgi, "to_asgi", None)
asgi_app = None if _to_asgi is None else _to_asgi(_async_app())


async def _starlette_hello(request: starlette.requests.Request) -> starlette.responses.Response:
    return starlette.responses.PlainTextResponse(HELLO)


asgi_starlette = starlette.applications.Starlette(
    routes=[starlette.routing.Route("/", _starlette_hello)]
)


class _FalconAsyncHello:
    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.data = HELLO
        resp.content_type = TEXT


asgi_falcon = falcon.asgi.App()
asgi_falcon.add_route("/", _FalconAsyncHello())
