"""App.mount("/", ...): the root mount, the fallback for the paths the App does not route.

The same applications are served by ``to_wsgi`` and ``to_asgi`` through the
test client; what only one protocol can do (an ASGI application, a
websocket) is marked so. Real Flask under real servers is in
:mod:`tests.integration.test_root_mount_servers`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sansio_http import App, Request, Response
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client, WebSocketDenied
from sansio_http.wsgi import to_wsgi
from tests.app.test_mount import INTERFACES, Stamp, environ_echo, scope_echo, starlette_app


def build() -> App:
    """Return an App with a few rules, an App at /admin and environ_echo at the root."""
    app = App("new")
    app.add_middleware(Stamp())
    hooked: list[str] = []

    @app.before_request
    def count(request: Request) -> None:
        hooked.append(request.path)

    @app.get("/new/<int:number>")
    def new(request: Request, number: int) -> Any:
        return {"number": number, "hooked": hooked}

    @app.get("/dir/")
    def directory(request: Request) -> str:
        return "the App's directory"

    @app.errorhandler(404)
    def not_found(request: Request, error: Exception) -> Response:
        return Response("the outer App's 404", status=404)

    admin = App("admin")

    @admin.get("/")
    def index(request: Request) -> str:
        return "admin"

    app.mount("/admin", admin)
    app.mount("/", environ_echo)
    return app


@pytest.fixture(params=INTERFACES)
def client(request: pytest.FixtureRequest) -> Iterator[Client]:
    with Client(build(), interface=request.param) as client:
        yield client


def echoed(response: Any) -> dict[str, Any]:
    """Return the environ environ_echo answered with, checking it answered."""
    assert response.status_code == 200
    environ: dict[str, Any] = response.json()["environ"]
    return environ


def test_the_rules_first_then_the_root_mount(client: Client) -> None:
    assert client.get("/new/3").json() == {"number": 3, "hooked": ["/new/3"]}
    environ = echoed(client.get("/old/page?q=1"))
    assert (environ["SCRIPT_NAME"], environ["PATH_INFO"]) == ("", "/old/page")
    assert environ["QUERY_STRING"] == "q=1"
    # A path of the App's with a value its converter refuses is no rule's.
    assert echoed(client.get("/new/three"))["PATH_INFO"] == "/new/three"
    assert echoed(client.get("/"))["PATH_INFO"] == "/"


def test_the_root_mount_reads_the_body_and_sees_the_full_path(client: Client) -> None:
    response = client.post("/caf%C3%A9/upload", content=b"payload")
    assert response.json()["body"] == "payload"
    # PEP 3333: the percent-decoded bytes, one latin-1 character each.
    assert response.json()["environ"]["PATH_INFO"] == "/café/upload".encode().decode("latin-1")


def test_the_server_root_path_is_kept(client: Client) -> None:
    environ = echoed(client.get("/app/old", root_path="/app"))
    assert (environ["SCRIPT_NAME"], environ["PATH_INFO"]) == ("/app", "/old")
    assert client.get("/app/new/1", root_path="/app").json()["number"] == 1


def test_a_path_the_app_routes_stays_the_apps_whatever_the_method(client: Client) -> None:
    response = client.post("/new/3")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD, OPTIONS"
    options = client.options("/new/3")
    assert (options.status_code, options.headers["allow"]) == (204, "GET, HEAD, OPTIONS")
    head = client.head("/new/3")
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-type"] == "application/json"


def test_other_methods_on_other_paths_go_to_the_root_mount(client: Client) -> None:
    for method in ("OPTIONS", "PUT", "DELETE", "PATCH"):
        assert echoed(client.request(method, "/old"))["REQUEST_METHOD"] == method


def test_the_apps_trailing_slash_redirect_wins(client: Client) -> None:
    response = client.get("/dir?x=1")
    assert (response.status_code, response.headers["location"]) == (308, "/dir/?x=1")
    assert client.get("/dir/").text == "the App's directory"
    # Below the App's path, nothing of the App's: the root mount's.
    assert echoed(client.get("/dir/below"))["PATH_INFO"] == "/dir/below"


def test_a_prefix_mount_wins_over_the_root_mount(client: Client) -> None:
    assert client.get("/admin/").text == "admin"
    assert client.get("/admin").status_code == 308
    assert echoed(client.get("/administrator"))["PATH_INFO"] == "/administrator"


def test_a_foreign_root_mount_is_beyond_the_apps_middleware_hooks_and_404(
    client: Client,
) -> None:
    response = client.get("/old")
    assert "x-stamp" not in response.headers
    assert "the outer App's 404" not in response.text
    # The before_request hook saw the App's own request only.
    assert client.get("/new/1").json()["hooked"] == ["/new/1"]


def test_an_app_at_the_root_answers_with_its_own_404() -> None:
    outer, legacy = App("outer"), App("legacy")
    hooked: list[str] = []
    outer.add_middleware(Stamp())

    @outer.before_request
    def count(request: Request) -> None:
        hooked.append(request.path)

    @outer.get("/new")
    def new(request: Request) -> Any:
        return {"hooked": hooked, "legacy": outer.url_for("legacy.page", name="x")}

    @outer.errorhandler(404)
    def outer_404(request: Request, error: Exception) -> Response:
        return Response("outer 404", status=404)

    @legacy.get("/old/<name>")
    def page(request: Request, name: str) -> Any:
        return {
            "root_path": request.root_path,
            "path": request.path,
            "self": legacy.url_for("page", name=name),
        }

    @legacy.errorhandler(404)
    def legacy_404(request: Request, error: Exception) -> Response:
        return Response("legacy 404", status=404)

    outer.mount("/", legacy)
    for interface in INTERFACES:
        hooked.clear()
        with Client(outer, interface=interface) as client:
            response = client.get("/old/a")
            assert response.json() == {"root_path": "", "path": "/old/a", "self": "/old/a"}
            # The outer middleware wraps the App at the root, as at a prefix.
            assert response.headers["x-stamp"] == "|/old/a"
            missing = client.get("/missing")
            assert (missing.status_code, missing.text) == (404, "legacy 404")
            assert client.get("/app/old/b", root_path="/app").json()["self"] == "/app/old/b"
            # The outer hooks ran for the outer App's own request only.
            assert client.get("/new").json() == {"hooked": ["/new"], "legacy": "/old/x"}


def test_an_asgi_application_at_the_root() -> None:
    outer = App("outer")

    @outer.get("/new")
    def new(request: Request) -> str:
        return "new"

    outer.mount("/", scope_echo)
    with Client(outer, interface="asgi") as client:
        assert client.get("/new").text == "new"
        data = client.get("/old/x").json()
        assert (data["root_path"], data["path"]) == ("", "/old/x")
        data = client.get("/app/old/x", root_path="/app").json()
        assert (data["root_path"], data["path"]) == ("/app", "/app/old/x")


def test_a_starlette_application_at_the_root_and_its_lifespan() -> None:
    events: list[str] = []
    outer = App("outer")

    @outer.get("/new")
    def new(request: Request) -> str:
        return "new"

    outer.mount("/", starlette_app(events))
    with Client(outer, interface="asgi") as client:
        assert events == ["startup"]
        assert client.get("/new").text == "new"
        assert client.get("/where").json() == {
            "root_path": "",
            "path": "/where",
            "url_for": "http://testserver/where",
            "pool": "ready",
        }
    assert events == ["startup", "shutdown"]


def test_the_startup_hooks_of_an_app_at_the_root_run_and_fill_its_state() -> None:
    calls: list[str] = []
    outer, legacy = App("outer"), App("legacy")

    @legacy.on_startup
    def connect(state: Any) -> None:
        calls.append("legacy")
        state["db"] = "legacy-db"

    @legacy.get("/db")
    def db(request: Request) -> str:
        return str(request.state["db"])

    outer.mount("/", legacy)
    for interface in INTERFACES:
        calls.clear()
        with Client(outer, interface=interface) as client:
            assert client.get("/db").text == "legacy-db"
        if interface == "wsgi":
            legacy.lifecycle.stop_sync(legacy.ensure_sync)
        assert calls == ["legacy"]


def test_a_root_mount_inside_a_mounted_app_takes_what_that_app_does_not_route() -> None:
    outer, api = App("outer"), App("api")

    @api.get("/v2")
    def v2(request: Request) -> str:
        return "v2"

    api.mount("/", environ_echo)
    outer.mount("/api", api)
    for interface in INTERFACES:
        with Client(outer, interface=interface) as client:
            assert client.get("/api/v2").text == "v2"
            environ = echoed(client.get("/api/v1/users"))
            assert (environ["SCRIPT_NAME"], environ["PATH_INFO"]) == ("/api", "/v1/users")
            assert client.get("/elsewhere").status_code == 404


def test_root_mounts_chain_through_apps() -> None:
    outer, middle = App("outer"), App("middle")

    @middle.get("/middle")
    def in_middle(request: Request) -> str:
        return "middle"

    middle.mount("/", environ_echo)
    outer.mount("/", middle)
    for interface in INTERFACES:
        with Client(outer, interface=interface) as client:
            assert client.get("/middle").text == "middle"
            assert echoed(client.get("/last"))["PATH_INFO"] == "/last"


def test_a_websocket_reaches_an_app_at_the_root() -> None:
    outer, legacy = App("outer"), App("legacy")

    @legacy.websocket("/live")
    async def live(websocket: Any) -> None:
        await websocket.accept()
        await websocket.send_text(f"{websocket.request.root_path}|{websocket.request.path}")

    outer.mount("/", legacy)
    with Client(outer, interface="asgi") as client, client.websocket_connect("/live") as ws:
        assert ws.receive_text() == "|/live"


def test_a_websocket_the_app_does_not_route_reaches_an_asgi_application_at_the_root() -> None:
    outer = App("outer")

    @outer.websocket("/live")
    async def live(websocket: Any) -> None:
        await websocket.accept()
        await websocket.send_text("the App's")

    async def old_socket(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "websocket"
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": f"old {scope['path']}"})
        await send({"type": "websocket.close", "code": 1000})

    outer.mount("/", old_socket)
    with Client(outer, interface="asgi") as client:
        with client.websocket_connect("/live") as ws:
            assert ws.receive_text() == "the App's"
        with client.websocket_connect("/old/live") as ws:
            assert ws.receive_text() == "old /old/live"


def test_a_websocket_for_a_wsgi_application_at_the_root_is_refused() -> None:
    outer = App("outer")
    outer.mount("/", environ_echo)
    with Client(outer, interface="asgi") as client, pytest.raises(WebSocketDenied):
        with client.websocket_connect("/live"):
            pass


# -- what mount("/") refuses ---------------------------------------------------------


def test_a_second_root_mount_is_refused() -> None:
    app = App("outer")
    app.mount("/", environ_echo)
    with pytest.raises(ValueError, match=r"mounted at '/' already.*one root mount"):
        app.mount("/", App("other"))


@pytest.mark.parametrize("prefix", ["//", "///"])
def test_the_root_is_written_with_one_slash(prefix: str) -> None:
    with pytest.raises(ValueError, match="written '/'"):
        App().mount(prefix, environ_echo)


def test_an_asgi_application_at_the_root_under_to_wsgi_is_refused_when_served() -> None:
    outer = App("outer")
    outer.mount("/", scope_echo)
    with pytest.raises(TypeError, match=r"mounted at '/'.*to_asgi"):
        to_wsgi(outer)
    # to_asgi serves it.
    to_asgi(outer)


def test_dispatch_without_an_adapter_names_the_fix() -> None:
    outer = App("outer")
    outer.mount("/", environ_echo)
    request = Request("GET", "/old", b"", [], "http", None, "")
    with pytest.raises(RuntimeError, match=r"mounted at '/'.*to_wsgi"):
        outer.dispatch_sync(request, propagate=True)


def test_an_app_without_a_root_mount_answers_404_itself() -> None:
    app = App("plain")
    request = Request("GET", "/old", b"", [], "http", None, "")
    assert app.dispatch_sync(request, propagate=True).status == 404
