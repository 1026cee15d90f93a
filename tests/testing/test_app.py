"""The client given a sansio-http App: mounted with to_asgi, or to_wsgi on request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import sansio_http.asgi
import sansio_http.wsgi
from sansio_http import App, Request, Response, file_response
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


def make_body_app() -> App:
    app = App()

    @app.post("/length")
    def length(request: Any) -> dict[str, object]:
        return {
            "size": len(request.get_data()),
            "chunked": "transfer-encoding" in request.headers,
        }

    return app


@pytest.mark.parametrize(
    "options",
    [
        {"content": b"abc"},
        {"content": iter([b"a", b"bc"])},
        {},
    ],
    ids=["bytes", "stream", "none"],
)
def test_a_body_shorter_than_its_content_length_is_a_client_gone(
    mount: str, options: dict[str, object]
) -> None:
    # A server waits for the rest, then sees the client go away mid-body:
    # the application answers 400 (gunicorn's short read, uvicorn's disconnect).
    client = Client(make_body_app(), interface="wsgi" if mount == "wsgi" else None)
    headers = {"content-length": "10"}
    response = client.post("/length", headers=headers, **options)  # type: ignore[arg-type]
    assert response.status_code == 400
    assert "10" in response.text or "disconnected" in response.text


def test_a_stream_with_a_content_length_is_sent_by_its_length(mount: str) -> None:
    client = Client(make_body_app(), interface="wsgi" if mount == "wsgi" else None)
    response = client.post(
        "/length", headers={"content-length": "4"}, content=iter([b"ab", b"cd", b"ef"])
    )
    # Not chunked; the bytes past the length are not the request's (a server
    # would read them as the next request).
    assert response.json() == {"size": 4, "chunked": False}


def test_a_body_longer_than_its_content_length_is_refused(mount: str) -> None:
    client = Client(make_body_app(), interface="wsgi" if mount == "wsgi" else None)
    with pytest.raises(ValueError, match="the body has 4 bytes but Content-Length says 3"):
        client.post("/length", headers={"content-length": "3"}, content=b"abcd")


def test_an_asgi_application_sees_the_disconnect() -> None:
    messages: list[dict[str, object]] = []

    async def application(scope: dict[str, object], receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] == "http.disconnect" or not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    Client(application).post("/", headers={"content-length": "5"}, content=b"ab")
    assert messages == [
        {"type": "http.request", "body": b"ab", "more_body": True},
        {"type": "http.disconnect"},
    ]


def test_a_file_response_of_a_folder_is_a_500(mount: str, tmp_path: Path) -> None:
    app = App()

    @app.get("/folder")
    def folder(request: Request) -> Response:
        status = tmp_path.stat()
        return file_response(tmp_path, size=status.st_size, mtime=status.st_mtime)

    client = Client(app, interface="wsgi" if mount == "wsgi" else None, raise_app_exceptions=False)
    # As under WSGI, and under uvicorn (no pathsend): the open fails before the head.
    response = client.get("/folder")
    assert response.status_code == 500
    assert b"Internal Server Error" in response.content
