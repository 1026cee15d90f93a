"""The client given a sansio-http App: mounted with to_asgi, or to_wsgi on request."""

from __future__ import annotations

import pytest

import sansio_http.asgi
import sansio_http.wsgi
from sansio_http import App, Request, Response
from sansio_http.testing import Client

ADAPTERS = {"asgi": (sansio_http.asgi, "to_asgi"), "wsgi": (sansio_http.wsgi, "to_wsgi")}


@pytest.fixture(params=["asgi", "wsgi"])
def mount(request: pytest.FixtureRequest) -> str:
    module, name = ADAPTERS[request.param]
    if not hasattr(module, name):
        pytest.skip(f"sansio_http.{request.param}.{name} is not available yet")
    return str(request.param)


def make_app(events: list[str]) -> App:
    app = App()

    @app.on_startup
    def started() -> None:
        events.append("startup")

    @app.get("/hello/<name>")
    async def hello(request: Request, name: str) -> dict[str, str]:
        return {"hello": name}

    @app.post("/login")
    def login(request: Request) -> Response:
        response = Response("ok")
        response.set_cookie("sid", "s1")
        return response

    @app.get("/me")
    def me(request: Request) -> str:
        return request.cookies.get("sid", "anonymous")

    return app


def test_app_is_mounted_with_the_chosen_adapter(mount: str) -> None:
    events: list[str] = []
    client = Client(make_app(events), interface="wsgi" if mount == "wsgi" else None)
    assert client.interface == mount
    assert client.get("/hello/world").json() == {"hello": "world"}
    assert client.get("/me").text == "anonymous"
    assert client.post("/login").cookies == {"sid": "s1"}
    assert client.get("/me").text == "s1"
    assert client.get("/missing").status_code == 404


def test_app_lifespan_runs_under_asgi() -> None:
    if not hasattr(sansio_http.asgi, "to_asgi"):
        pytest.skip("sansio_http.asgi.to_asgi is not available yet")
    events: list[str] = []
    with Client(make_app(events)) as client:
        assert events == ["startup"]
        assert client.get("/hello/x").status_code == 200
