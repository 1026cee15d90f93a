"""The example frameworks: under 100 lines, public names only, one handler on both adapters.

``examples/resources.py`` (Falcon-style) and ``examples/decorators.py`` (bottle-style)
serve ``examples/inventory.py``; every test here runs for both frameworks, through
``wsgi`` (under ``wsgiref.validate``) and ``asgi``, with the in-process test client.
"""

from __future__ import annotations

import ast
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from wsgiref.validate import validator

import pytest

from examples import decorators, inventory, resources
from sansio_http import Response, abort
from sansio_http.testing import Client

EXAMPLES = Path(inventory.__file__).resolve().parent
FRAMEWORKS = ["resources", "decorators"]


def app_of(framework: str) -> resources.API | decorators.Bottle:
    return inventory.api if framework == "resources" else inventory.app


def client_of(application: Any, interface: str, *, raise_errors: bool = True) -> Client:
    if interface == "wsgi":
        return Client(validator(application), interface="wsgi", raise_app_exceptions=raise_errors)
    return Client(application, interface="asgi", raise_app_exceptions=raise_errors)


@pytest.fixture(params=FRAMEWORKS)
def framework(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def client(framework: str, interface: str) -> Iterator[Client]:
    inventory.ITEMS.clear()
    inventory.ITEMS[1] = {"id": 1, "name": "kettle"}
    application = getattr(app_of(framework), interface)
    with client_of(application, interface, raise_errors=False) as client:
        yield client


# -- the rules of the trial ----------------------------------------------------------------


@pytest.mark.parametrize("name", FRAMEWORKS)
def test_each_framework_is_under_100_lines(name: str) -> None:
    lines = (EXAMPLES / f"{name}.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 100


def private_names(source: str) -> list[str]:
    """Return every private name of the package that ``source`` imports or reaches for."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sansio_http"):
            parts = [*(node.module or "").split("."), *(alias.name for alias in node.names)]
            found += [part for part in parts if part.startswith("_")]
        elif isinstance(node, ast.Import):
            found += [
                alias.name
                for alias in node.names
                if any(part.startswith("_") for part in alias.name.split("."))
            ]
        elif isinstance(node, ast.Attribute):
            dunder = node.attr.startswith("__") and node.attr.endswith("__")
            if node.attr.startswith("_") and not dunder:
                found.append(node.attr)
    return found


@pytest.mark.parametrize("name", [*FRAMEWORKS, "inventory"])
def test_the_examples_use_public_names_only(name: str) -> None:
    assert private_names((EXAMPLES / f"{name}.py").read_text(encoding="utf-8")) == []


def test_the_public_name_check_finds_private_names() -> None:
    source = (
        "from sansio_http.wsgi._runner import CoroutineRunner\n"
        "from sansio_http.asgi import _app\n"
        "import sansio_http._x\n"
        "request._receiver.disconnected\n"
        "view.__name__\n"
    )
    assert private_names(source) == ["_runner", "_app", "sansio_http._x", "_receiver"]


@pytest.mark.parametrize("name", FRAMEWORKS)
def test_one_handler_builds_both_applications(name: str) -> None:
    tree = ast.parse((EXAMPLES / f"{name}.py").read_text(encoding="utf-8"))
    calls = {
        node.func.id: ast.unparse(node.args[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("wsgi_app", "asgi_app")
    }
    assert calls == {"wsgi_app": "self.handle", "asgi_app": "self.handle"}
    handlers = [n.name for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef)]
    assert handlers.count("handle") == 1


# -- the inventory service, the same under both frameworks and both adapters -----------------


def test_a_def_view_answers(client: Client, interface: str) -> None:
    response = client.get("/items")
    assert response.status_code == 200
    assert response.json()["items"] == [1]
    if interface == "asgi":  # a thread of the application's request pool, never the loop
        assert response.json()["thread"].startswith("sansio-http-request")
    else:  # the thread the server called the application in
        assert response.json()["thread"] == threading.current_thread().name


def test_an_async_view_takes_a_json_body(client: Client) -> None:
    created = client.post("/items", json={"name": "teapot"})
    assert created.status_code == 201
    assert created.json() == {"id": 2, "name": "teapot"}
    assert client.get("/items/2").json() == {"id": 2, "name": "teapot"}


def test_head_is_answered_by_the_get_view_without_a_body(client: Client) -> None:
    response = client.head("/items/1")
    assert response.status_code == 200
    assert response.headers["content-length"] == str(len(client.get("/items/1").content))
    assert response.content == b""


def problem_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert (body["status"], set(body)) == (status, {"title", "status", "detail"})
    return body


def test_an_unknown_path_is_a_404_problem(client: Client) -> None:
    assert problem_of(client.get("/nowhere"), 404)["title"] == "Not Found"


def test_an_abort_from_a_view_is_a_problem(client: Client) -> None:
    assert problem_of(client.get("/items/99"), 404)["detail"] == "There is no item 99."


def test_a_wrong_method_is_a_405_problem_with_allow(client: Client) -> None:
    response = client.put("/items/1", json={})
    assert problem_of(response, 405)["title"] == "Method Not Allowed"
    assert response.headers["allow"] == "DELETE, GET, HEAD, OPTIONS"


def test_options_is_a_204_with_allow(client: Client) -> None:
    response = client.options("/items")
    assert response.status_code == 204
    assert response.headers["allow"] == "GET, HEAD, OPTIONS, POST"
    assert response.content == b""


def test_a_body_not_declared_as_json_is_a_415_problem(client: Client) -> None:
    assert problem_of(client.post("/items", content=b'{"name": "x"}'), 415)


def test_invalid_json_is_a_400_problem(client: Client) -> None:
    response = client.post(
        "/items", content=b'{"name": ', headers={"content-type": "application/json"}
    )
    assert problem_of(response, 400)["detail"].startswith("The body is not valid JSON")


def test_a_crash_is_a_500_problem_that_tells_nothing(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        response = client.delete("/items/1")
    body = problem_of(response, 500)
    assert "broken" not in response.text
    assert body["title"] == "Internal Server Error"
    assert "deleting is broken" in caplog.text  # logged with its traceback, server-side


# -- what each framework offers ------------------------------------------------------------


def test_a_resource_route_takes_falcon_placeholders(interface: str) -> None:
    api = resources.API()

    class Pair:
        def on_get(self, req: resources.Req, resp: resources.Resp, a: str, b: int) -> None:
            resp.text = f"{a}:{b + 1}:{req.params.get('q')}"

    api.add_route("/pairs/{a}/{b:int}", Pair())
    with client_of(getattr(api, interface), interface) as client:
        assert client.get("/pairs/x/41?q=y").text == "x:42:y"
        assert client.get("/pairs/x/y").status_code == 404


def test_a_resource_may_answer_head_itself(interface: str) -> None:
    api = resources.API()

    class Page:
        def on_get(self, req: resources.Req, resp: resources.Resp) -> None:
            resp.text = "page"

        async def on_head(self, req: resources.Req, resp: resources.Resp) -> None:
            resp.headers["X-Head"] = "own"

    api.add_route("/", Page())
    with client_of(getattr(api, interface), interface) as client:
        assert client.head("/").headers["x-head"] == "own"


def test_a_resource_without_responders_is_refused_naming_the_fix() -> None:
    with pytest.raises(TypeError, match=r"Nothing has no responder: give it on_get\(self"):
        resources.API().add_route("/", type("Nothing", (), {})())


def test_bottle_views_return_text_bytes_json_or_a_response(interface: str) -> None:
    app = decorators.Bottle()
    app.get("/text")(lambda req: "hello")
    app.get("/bytes")(lambda req: b"\x00\x01")
    app.get("/list")(lambda req: [1, 2])
    app.post("/made")(lambda req: ("made", 201))
    app.get("/teapot")(lambda req: Response("short and stout", 418))
    with client_of(getattr(app, interface), interface) as client:
        text = client.get("/text")
        assert (text.text, text.headers["content-type"]) == ("hello", "text/plain; charset=utf-8")
        assert client.get("/bytes").content == b"\x00\x01"
        assert client.get("/list").json() == [1, 2]
        made = client.post("/made")
        assert (made.status_code, made.text) == (201, "made")
        assert client.get("/teapot").status_code == 418


def test_bottle_hooks_of_either_kind_run_around_the_view(interface: str) -> None:
    app, seen = decorators.Bottle(), []

    @app.get("/hello/<name>")
    async def hello(req: decorators.Req, name: str) -> str:
        seen.append("view")
        return f"Hello, {name}!"

    async def guard(req: decorators.Req) -> None:
        seen.append("before")
        if req.args.get("key") != "open":
            abort(403, "Bring the key.")

    def stamp(req: decorators.Req, response: Response) -> None:
        seen.append("after")
        response.headers["X-Seen"] = ",".join(seen)

    app.before.append(guard)
    app.after.append(stamp)
    with client_of(getattr(app, interface), interface, raise_errors=False) as client:
        response = client.get("/hello/ann?key=open")
        assert (response.text, response.headers["x-seen"]) == ("Hello, ann!", "before,view,after")
        assert problem_of(client.get("/hello/bob"), 403)["detail"] == "Bring the key."


def test_bottle_lambdas_on_two_paths_stay_apart(interface: str) -> None:
    app = decorators.Bottle()
    app.get("/a")(lambda req: "a")
    app.get("/b")(lambda req: "b")
    with client_of(getattr(app, interface), interface) as client:
        assert (client.get("/a").text, client.get("/b").text) == ("a", "b")


def test_a_def_view_under_wsgi_runs_beside_the_kept_loop_not_in_a_thread() -> None:
    app = decorators.Bottle()
    threads: list[str] = []

    @app.get("/")
    def where(req: decorators.Req) -> str:
        threads.append(threading.current_thread().name)
        return "here"

    with client_of(app.wsgi, "wsgi") as client:
        assert client.get("/").text == "here"
    assert threads == [threading.current_thread().name]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_def_view_under_wsgi_is_refused_a_blocking_read(
    framework: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Why the handler reads the body first: the def view runs beside a running loop.
    def reads(req: Any, *rest: Any) -> str:
        return str(req.request.get_data())

    if framework == "resources":
        app: Any = resources.API()
        app.add_route("/", type("Reader", (), {"on_post": lambda self, req, resp: reads(req)})())
    else:
        app = decorators.Bottle()
        app.post("/")(reads)
    with caplog.at_level(logging.ERROR), client_of(app.wsgi, "wsgi", raise_errors=False) as client:
        problem_of(client.post("/", content=b"x"), 500)
    assert "use await request.body() there instead" in caplog.text


def test_the_request_attributes_are_the_requests(framework: str, interface: str) -> None:
    def agent(req: Any, *rest: Any) -> str:
        return f"{req.method} {req.path} {req.headers['user-agent']} {req.args['q']}"

    if framework == "resources":
        app: Any = resources.API()
        responder = lambda self, req, resp: setattr(resp, "text", agent(req))  # noqa: E731
        app.add_route("/who", type("Who", (), {"on_get": responder})())
    else:
        app = decorators.Bottle()
        app.get("/who")(agent)
    with client_of(getattr(app, interface), interface) as client:
        response = client.get("/who?q=1", headers={"user-agent": "probe"})
        assert response.text == "GET /who probe 1"


# -- the routing answers, which are not errors --------------------------------------------


def trailing_slash_app(framework: str) -> resources.API | decorators.Bottle:
    if framework == "resources":
        api = resources.API()

        class Docs:
            def on_get(self, req: resources.Req, resp: resources.Resp) -> None:
                resp.text = "docs"

        api.add_route("/docs/", Docs())
        return api
    app = decorators.Bottle()
    app.get("/docs/")(lambda req: "docs")
    return app


def test_a_renderer_of_every_http_error_leaves_options_204_and_the_308_intact(
    framework: str, interface: str, caplog: pytest.LogCaptureFixture
) -> None:
    application = getattr(trailing_slash_app(framework), interface)
    with caplog.at_level(logging.ERROR), client_of(application, interface) as client:
        options = client.options("/docs/")
        moved = client.get("/docs?page=2", follow_redirects=False)
    assert options.status_code == 204
    assert options.headers["allow"] == "GET, HEAD, OPTIONS"
    assert "content-type" not in options.headers
    assert moved.status_code == 308
    assert moved.headers["location"] == "/docs/?page=2"
    assert moved.headers.get("content-type") != "application/problem+json"
    assert caplog.text == ""  # the renderer was never asked
