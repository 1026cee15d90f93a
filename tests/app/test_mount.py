"""App.mount: other Apps, WSGI and ASGI applications under a prefix, both adapters.

Every behaviour test mounts the same applications under ``to_wsgi`` and
``to_asgi`` through the test client; what only one protocol can do (an ASGI
application, the WSGI bridge's environ) is marked so.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

import pytest
from starlette.applications import Starlette
from starlette.requests import Request as StarletteRequest
from starlette.responses import JSONResponse as StarletteJSON
from starlette.routing import Route

from sansio_http import App, Blueprint, Middleware, Request, Response, current_request
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client, WebSocketDenied
from sansio_http.wsgi import to_wsgi

Interface = Literal["wsgi", "asgi"]
INTERFACES: list[Interface] = ["wsgi", "asgi"]
StartResponse = Callable[..., Any]


def environ_echo(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    """A WSGI application that answers with what it was given, as JSON."""
    body = environ["wsgi.input"].read()
    keys = {
        key: value
        for key, value in environ.items()
        if isinstance(value, str) and (key.isupper() or key == "wsgi.url_scheme")
    }
    data = json.dumps({"environ": keys, "body": body.decode("latin-1")}).encode()
    start_response("200 OK", [("Content-Type", "application/json")])
    return [data]


async def scope_echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An ASGI application that answers with its scope's paths, as JSON."""
    data = {
        "root_path": scope.get("root_path"),
        "path": scope["path"],
        "raw_path": scope.get("raw_path", b"").decode("latin-1"),
        "state": sorted(scope.get("state", {})),
    }
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps(data).encode()})


class Stamp(Middleware):
    """Marks every response it processes, to see who is inside the middleware."""

    def process_response(self, request: Request, response: Response) -> Response:
        response.headers["X-Stamp"] = f"{request.root_path}|{request.path}"
        return response


def build() -> tuple[App, App]:
    """Return an outer App with an admin App (and a reports App in it) mounted."""
    outer = App("outer")
    admin = App("admin")
    reports = App("reports")
    outer.add_middleware(Stamp())
    seen: list[str] = []

    @outer.before_request
    def outer_hook(request: Request) -> None:
        seen.append(request.path)

    @outer.get("/")
    def home(request: Request) -> Any:
        return {
            "admin": outer.url_for("admin.index"),
            "page": outer.url_for("admin.page", number=3, q="x"),
            "deep": outer.url_for("admin.reports.show", name="q1"),
            "external": outer.url_for("admin.index", _external=True),
            "seen": seen,
        }

    @outer.get("/administrator")
    def administrator(request: Request) -> str:
        return "outer administrator"

    @admin.get("/")
    def index(request: Request) -> Any:
        return {
            "root_path": request.root_path,
            "path": request.path,
            "url": request.url,
            "self": admin.url_for("index"),
            "page": admin.url_for("page", number=2),
            "outer_home": outer.url_for("home"),
            "outer_admin": outer.url_for("admin.index"),
            "outer_external": outer.url_for("admin.page", number=1, _external=True),
        }

    @admin.get("/page/<int:number>")
    async def page(request: Request, number: int) -> Any:
        return {"number": number, "root_path": request.root_path, "path": request.path}

    @admin.post("/echo")
    def echo(request: Any) -> Any:
        return {"form": dict(request.get_form())}

    @reports.get("/show/<name>")
    def show(request: Request, name: str) -> Any:
        return {
            "name": name,
            "root_path": request.root_path,
            "self": reports.url_for("show", name=name),
        }

    admin.mount("/reports", reports)
    outer.mount("/admin", admin)
    outer.mount("/legacy", environ_echo)
    return outer, admin


@pytest.fixture(params=INTERFACES)
def client(request: pytest.FixtureRequest) -> Iterator[Client]:
    outer, _ = build()
    with Client(outer, interface=request.param) as client:
        yield client


def test_a_mounted_app_sees_the_prefix_in_its_root_path(client: Client) -> None:
    data = client.get("/admin/?q=1").json()
    assert data["root_path"] == "/admin"
    assert data["path"] == "/"
    assert data["url"] == "http://testserver/admin/?q=1"
    assert data["self"] == "/admin/"
    assert data["page"] == "/admin/page/2"
    assert client.get("/admin/page/7").json() == {
        "number": 7,
        "root_path": "/admin",
        "path": "/page/7",
    }


def test_mounts_nest_and_add_up_their_prefixes(client: Client) -> None:
    assert client.get("/admin/reports/show/q1").json() == {
        "name": "q1",
        "root_path": "/admin/reports",
        "self": "/admin/reports/show/q1",
    }


def test_the_server_root_path_comes_before_the_prefix(client: Client) -> None:
    data = client.get("/app/admin/", root_path="/app").json()
    assert (data["root_path"], data["path"], data["self"]) == ("/app/admin", "/", "/app/admin/")


@pytest.mark.parametrize("root_path", ["", "/app"])
def test_the_outer_apps_url_for_ignores_the_prefix_inside_a_mounted_app(
    client: Client, root_path: str
) -> None:
    data = client.get(f"{root_path}/admin/", root_path=root_path).json()
    assert data["outer_home"] == f"{root_path}/"
    assert data["outer_admin"] == f"{root_path}/admin/"
    assert data["outer_external"] == f"http://testserver{root_path}/admin/page/1"
    assert data["self"] == f"{root_path}/admin/"


def test_url_for_builds_into_a_mounted_app_by_its_name(client: Client) -> None:
    data = client.get("/").json()
    assert data["admin"] == "/admin/"
    assert data["page"] == "/admin/page/3?q=x"
    assert data["deep"] == "/admin/reports/show/q1"
    assert data["external"] == "http://testserver/admin/"


def test_a_prefix_takes_whole_segments_only(client: Client) -> None:
    assert client.get("/administrator").text == "outer administrator"
    assert client.get("/adminx/").status_code == 404


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_the_prefix_without_its_slash_redirects_with_308(client: Client, method: str) -> None:
    for prefix in ("/admin", "/legacy"):
        response = client.request(method, prefix + "?a=1")
        assert response.status_code == 308
        assert response.headers["location"] == prefix + "/?a=1"


def test_the_outer_middleware_wraps_a_mounted_app_but_not_its_hooks(client: Client) -> None:
    response = client.get("/admin/page/1")
    # The middleware saw the request as the outer App got it, before and after.
    assert response.headers["x-stamp"] == "|/admin/page/1"
    assert client.get("/").json()["seen"] == ["/"]


def test_a_mounted_app_reads_the_body_of_the_one_request(client: Client) -> None:
    response = client.post("/admin/echo", data={"a": "1", "b": "é"})
    assert response.json() == {"form": {"a": "1", "b": "é"}}


def test_a_wsgi_application_gets_script_name_and_path_info(client: Client) -> None:
    response = client.post("/legacy/caf%C3%A9/x?q=1", content=b"payload")
    data = response.json()
    assert data["environ"]["SCRIPT_NAME"] == "/legacy"
    # PEP 3333: the percent-decoded bytes, one latin-1 character each.
    assert data["environ"]["PATH_INFO"] == "/café/x".encode().decode("latin-1")
    assert data["environ"]["QUERY_STRING"] == "q=1"
    assert data["body"] == "payload"
    # A foreign application is beyond the App's middleware.
    assert "x-stamp" not in response.headers


def test_the_longest_prefix_wins() -> None:
    outer, inner = App("outer"), App("v2")
    outer.mount("/api", environ_echo)
    outer.mount("/api/v2", inner)

    @inner.get("/ping")
    def ping(request: Request) -> str:
        return f"v2 {request.root_path}"

    for interface in INTERFACES:
        client = Client(outer, interface=interface)
        assert client.get("/api/v2/ping").text == "v2 /api/v2"
        assert client.get("/api/v3/ping").json()["environ"]["SCRIPT_NAME"] == "/api"


# -- the WSGI bridge under to_asgi ---------------------------------------------------


def test_the_bridge_builds_a_pep_3333_environ() -> None:
    outer = App("outer")
    outer.mount("/legacy", environ_echo)
    client = Client(outer, interface="asgi", remote_addr="10.0.0.7")
    response = client.post(
        "/legacy/x",
        content=b"a=1",
        headers=[
            ("content-type", "application/x-www-form-urlencoded"),
            ("x-many", "one"),
            ("x-many", "two"),
            ("cookie", "a=1"),
            ("cookie", "b=2"),
            ("x_sneaky", "dropped"),
        ],
    )
    environ = response.json()["environ"]
    assert environ["CONTENT_TYPE"] == "application/x-www-form-urlencoded"
    assert environ["CONTENT_LENGTH"] == "3"
    assert environ["HTTP_X_MANY"] == "one,two"
    assert environ["HTTP_COOKIE"] == "a=1; b=2"
    # SECURITY: X_Sneaky would pass for X-Sneaky in the environ.
    assert "HTTP_X_SNEAKY" not in environ
    assert environ["REMOTE_ADDR"] == "10.0.0.7"
    assert environ["REQUEST_METHOD"] == "POST"
    assert environ["SERVER_PROTOCOL"] == "HTTP/1.1"
    assert environ["SERVER_NAME"] == "testserver"
    assert environ["SERVER_PORT"] == "80"
    assert environ["wsgi.url_scheme"] == "http"


class Closing:
    """A WSGI body that records its close() calls."""

    def __init__(self, chunks: Iterable[bytes], closed: list[str]) -> None:
        self._chunks = iter(chunks)
        self._closed = closed

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks

    def close(self) -> None:
        self._closed.append("closed")


def test_the_bridge_supports_write_and_closes_once() -> None:
    closed: list[str] = []

    def legacy(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        write = start_response("201 Created", [("Content-Type", "text/plain")])
        write(b"written ")
        return Closing([b"", b"yielded"], closed)

    outer = App("outer")
    outer.mount("/legacy", legacy)
    for interface in INTERFACES:
        closed.clear()
        response = Client(outer, interface=interface).get("/legacy/")
        assert (response.status_code, response.content) == (201, b"written yielded")
        assert closed == ["closed"]


def test_exc_info_replaces_a_head_not_sent_yet() -> None:
    def legacy(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        try:
            raise KeyError("late")
        except KeyError:
            import sys

            start_response("503 Service Unavailable", [("Retry-After", "1")], sys.exc_info())
        return [b"try later"]

    outer = App("outer")
    outer.mount("/legacy", legacy)
    for interface in INTERFACES:
        response = Client(outer, interface=interface).get("/legacy/")
        assert (response.status_code, response.text) == (503, "try later")
        assert response.headers["retry-after"] == "1"


def test_a_failing_wsgi_application_is_a_500_before_its_head() -> None:
    closed: list[str] = []

    class Failing(Closing):
        def __iter__(self) -> Iterator[bytes]:
            raise RuntimeError("boom")

    def legacy(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        start_response("200 OK", [])
        return Failing([], closed)

    outer = App("outer")
    outer.mount("/legacy", legacy)
    client = Client(outer, interface="asgi", raise_app_exceptions=False)
    assert client.get("/legacy/").status_code == 500
    assert closed == ["closed"]
    with pytest.raises(RuntimeError, match="boom"):
        Client(outer, interface="asgi").get("/legacy/")


def test_the_bridge_streams_each_chunk_as_it_comes() -> None:
    # The generator waits for the test to have read the first chunk: were the
    # response buffered whole, the wait would time out and say so.
    first_read = threading.Event()
    waited: list[bool] = []
    closed: list[str] = []

    def legacy(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        def body() -> Iterator[bytes]:
            yield b"first;"
            waited.append(first_read.wait(10))
            yield b"second"

        start_response("200 OK", [("Content-Type", "text/plain")])
        return Closing(body(), closed)

    outer = App("outer")
    outer.mount("/legacy", legacy)
    with Client(outer, interface="asgi") as client:
        response = client.stream("GET", "/legacy/")
        chunks = response.iter_bytes()
        assert next(chunks) == b"first;"
        first_read.set()
        assert b"".join(chunks) == b"second"
    assert waited == [True]
    assert closed == ["closed"]


def test_the_bridge_reads_a_large_body_in_pieces() -> None:
    sizes: list[int] = []

    def legacy(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        stream = environ["wsgi.input"]
        first = stream.readline()
        while piece := stream.read(1000):
            sizes.append(len(piece))
        start_response("200 OK", [])
        return [first, str(sum(sizes)).encode()]

    outer = App("outer")
    outer.mount("/legacy", legacy)
    body = b"line one\n" + b"x" * 50_000
    chunks = [body[i : i + 4096] for i in range(0, len(body), 4096)]
    response = Client(outer, interface="asgi").post("/legacy/", content=iter(chunks))
    assert response.content == b"line one\n50000"
    assert max(sizes) == 1000


def test_head_to_a_wsgi_application_sends_no_body() -> None:
    outer = App("outer")
    outer.mount("/legacy", environ_echo)
    for interface in INTERFACES:
        response = Client(outer, interface=interface).head("/legacy/x")
        assert (response.status_code, response.content) == (200, b"")


# -- ASGI applications, lifespans ------------------------------------------------------


def starlette_app(events: list[str]) -> Starlette:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        events.append("startup")
        yield {"pool": "ready"}
        events.append("shutdown")

    async def where(request: StarletteRequest) -> StarletteJSON:
        return StarletteJSON(
            {
                "root_path": request.scope["root_path"],
                "path": request.url.path,
                "url_for": str(request.url_for("where")),
                "pool": request.state.pool,
            }
        )

    return Starlette(routes=[Route("/where", where, name="where")], lifespan=lifespan)


def test_a_mounted_asgi_application_and_its_lifespan() -> None:
    events: list[str] = []
    outer = App("outer")
    outer.mount("/star", starlette_app(events))
    outer.mount("/scope", scope_echo)
    with Client(outer, interface="asgi") as client:
        assert events == ["startup"]
        assert client.get("/star/where").json() == {
            "root_path": "/star",
            "path": "/star/where",
            "url_for": "http://testserver/star/where",
            "pool": "ready",
        }
        data = client.get("/scope/a%20b", root_path="").json()
        assert data == {
            "root_path": "/scope",
            "path": "/scope/a b",
            "raw_path": "/scope/a%20b",
            "state": [],
        }
    assert events == ["startup", "shutdown"]


def test_a_mounted_apps_startup_runs_once_and_fills_its_state() -> None:
    calls: list[str] = []
    outer, admin = App("outer"), App("admin")

    @admin.on_startup
    def connect(state: Any) -> None:
        calls.append("admin")
        state["db"] = "admin-db"

    @admin.get("/db")
    def db(request: Request) -> str:
        return str(request.state["db"])

    outer.mount("/admin", admin)
    outer.mount("/again", admin, name="again")
    for interface in INTERFACES:
        calls.clear()
        with Client(outer, interface=interface) as client:
            assert client.get("/admin/db").text == "admin-db"
            assert client.get("/again/db").text == "admin-db"
        if interface == "wsgi":
            admin.lifecycle.stop_sync(admin.ensure_sync)
        assert calls == ["admin"]


def test_a_websocket_reaches_a_mounted_app() -> None:
    outer, admin = App("outer"), App("admin")

    @admin.websocket("/live")
    async def live(websocket: Any) -> None:
        await websocket.accept()
        await websocket.send_text(websocket.request.root_path)

    outer.mount("/admin", admin)
    with Client(outer, interface="asgi") as client, client.websocket_connect("/admin/live") as ws:
        assert ws.receive_text() == "/admin"


def test_a_websocket_view_sees_the_request_context() -> None:
    outer, admin = App("outer"), App("admin")

    @admin.get("/page")
    def page(request: Request) -> str:
        return "page"

    @admin.websocket("/live")
    async def live(websocket: Any) -> None:
        await websocket.accept()
        await websocket.send_json(
            [
                admin.url_for("page"),
                admin.url_for("page", _external=True),
                outer.url_for("admin.page"),
                current_request.root_path,
                current_request.path,
            ]
        )

    outer.mount("/admin", admin)
    with Client(outer, interface="asgi", root_path="/app") as client:
        with client.websocket_connect("/app/admin/live") as ws:
            assert ws.receive_json() == [
                "/app/admin/page",
                "ws://testserver/app/admin/page",
                "/app/admin/page",
                "/app/admin",
                "/live",
            ]


# -- what mount() refuses --------------------------------------------------------------


def test_an_asgi_application_under_to_wsgi_is_refused_when_served() -> None:
    outer = App("outer")
    outer.mount("/scope", scope_echo)
    with pytest.raises(TypeError, match=r"to_wsgi\(\) cannot serve the ASGI application.*to_asgi"):
        to_wsgi(outer)


def test_mount_after_serving_is_refused() -> None:
    outer = App("outer")
    to_asgi(outer)
    with pytest.raises(RuntimeError, match="mount before serving"):
        outer.mount("/legacy", environ_echo)


@pytest.mark.parametrize(
    ("prefix", "error"),
    [
        ("", ValueError),
        ("admin", ValueError),
        ("/a//b", ValueError),
        ("/a/../b", ValueError),
        ("/<name>", ValueError),
        (b"/admin", TypeError),
    ],
)
def test_bad_prefixes_are_refused(prefix: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        App().mount(prefix, environ_echo)


def test_what_cannot_be_mounted_is_refused() -> None:
    outer, inner = App("outer"), App("inner")
    with pytest.raises(TypeError, match="register_blueprint"):
        outer.mount("/bp", Blueprint("bp"))
    with pytest.raises(TypeError, match="not int"):
        outer.mount("/n", 3)
    with pytest.raises(ValueError, match="in itself"):
        outer.mount("/me", outer)
    inner.mount("/outer", outer)
    with pytest.raises(ValueError, match="in itself"):
        outer.mount("/inner", inner)


def test_url_for_builds_into_mounts_by_name_only() -> None:
    outer, inner = App("outer"), App("inner")

    @inner.get("/page")
    def page(request: Request) -> str:
        return ""

    outer.mount("/inner", inner, name="docs")
    # The name reaches the App; the URL holds its prefix.
    assert outer.url_for("docs.page") == "/inner/page"
    with pytest.raises(LookupError):
        outer.url_for("inner.page")
    with pytest.raises(ValueError, match="a word without dots"):
        outer.mount("/other", App("other"), name="a.b")
    with pytest.raises(ValueError, match="no rules to build"):
        outer.mount("/legacy", environ_echo, name="legacy")


def test_a_websocket_for_a_wsgi_application_is_refused() -> None:
    outer = App("outer")
    outer.mount("/legacy", environ_echo)
    with Client(outer, interface="asgi") as client, pytest.raises(WebSocketDenied):
        with client.websocket_connect("/legacy/live"):
            pass


def test_names_and_prefixes_are_unique() -> None:
    outer = App("outer")
    outer.mount("/a", App("same"))
    with pytest.raises(ValueError, match="already mounted"):
        outer.mount("/a/", environ_echo)
    with pytest.raises(ValueError, match="name='another'"):
        outer.mount("/b", App("same"))
    blueprint = Blueprint("bp")

    @blueprint.get("/")
    def index(request: Request) -> str:
        return ""

    outer.register_blueprint(blueprint)
    with pytest.raises(ValueError, match="blueprint"):
        outer.mount("/c", App("bp"))
    with pytest.raises(ValueError, match="hide the mount"):
        outer.add_route("/x", index, endpoint="same.x")


def test_dispatch_without_an_adapter_names_the_fix() -> None:
    outer = App("outer")
    outer.mount("/legacy", environ_echo)
    request = Request("GET", "/legacy/x", b"", [], "http", None, "")
    with pytest.raises(RuntimeError, match="to_wsgi"):
        outer.dispatch_sync(request, propagate=True)
