"""``request``, ``session``, ``g`` and ``current_app``: def and async def views, both adapters."""

from __future__ import annotations

import io
from typing import Any

import pytest

from sansio_http.compat.flask import (
    Flask,
    current_app,
    g,
    has_app_context,
    has_request_context,
    request,
    session,
)
from sansio_http.compat.flask._testing import FlaskClient


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def client_of(app: Flask, interface: str) -> FlaskClient:
    app.config["TESTING_INTERFACE"] = interface
    return app.test_client()


def make_app() -> Flask:
    app = Flask(__name__)
    app.secret_key = "dev"

    @app.route("/echo/<word>", methods=["GET", "POST"])
    def echo(word: str) -> dict[str, Any]:
        return {
            "method": request.method,
            "path": request.path,
            "url": request.url,
            "args": request.args.to_dict(),
            "form": request.form.to_dict(),
            "values": request.values.to_dict(),
            "endpoint": request.endpoint,
            "view_args": request.view_args,
            "header": request.headers.get("X-Test"),
            "cookie": request.cookies.get("c"),
            "app": current_app.name,
        }

    @app.route("/async/<word>", methods=["POST"])
    async def echo_async(word: str) -> dict[str, Any]:
        form = await request.form
        values = await request.values
        return {"form": form.to_dict(), "values": values.to_dict(), "again": request.form["a"]}

    @app.route("/json", methods=["POST"])
    def as_json() -> Any:
        return {
            "json": request.json,
            "get_json": request.get_json(),
            "is_json": request.is_json,
            "data": request.data.decode(),
        }

    @app.route("/json-async", methods=["POST"])
    async def as_json_async() -> Any:
        return {"json": await request.get_json(), "data": (await request.get_data()).decode()}

    @app.route("/silent", methods=["POST"])
    def silent() -> Any:
        return {"value": request.get_json(silent=True), "forced": request.get_json(force=True)}

    @app.route("/upload", methods=["POST"])
    def upload() -> Any:
        file = request.files["file"]
        return {"name": file.filename, "size": len(file.read()), "field": request.form["f"]}

    @app.route("/upload-async", methods=["POST"])
    async def upload_async() -> Any:
        files = await request.files
        return {"name": files["file"].filename}

    @app.route("/forgot", methods=["POST"])
    async def forgot() -> Any:
        return {"value": request.form["a"]}

    @app.route("/missing", methods=["POST"])
    def missing() -> Any:
        return request.form["nope"]

    return app


def test_request_attributes_in_a_def_view(interface: str) -> None:
    client = client_of(make_app(), interface)
    response = client.post(
        "/echo/hi",
        query_string={"q": "1"},
        data={"a": "2"},
        headers={"X-Test": "t"},
        cookies={"c": "v"},
    )
    assert response.get_json() == {
        "method": "POST",
        "path": "/echo/hi",
        "url": "http://testserver/echo/hi?q=1",
        "args": {"q": "1"},
        "form": {"a": "2"},
        "values": {"q": "1", "a": "2"},
        "endpoint": "echo",
        "view_args": {"word": "hi"},
        "header": "t",
        "cookie": "v",
        "app": "tests.compat.test_flask_request",
    }


def test_body_reads_are_awaited_in_an_async_view(interface: str) -> None:
    client = client_of(make_app(), interface)
    response = client.post("/async/x?q=1", data={"a": "2"})
    assert response.get_json() == {
        "form": {"a": "2"},
        "values": {"q": "1", "a": "2"},
        "again": "2",
    }


def test_an_unawaited_read_names_the_await(interface: str) -> None:
    client = client_of(make_app(), interface)
    with pytest.raises(RuntimeError, match=r"await request\.form"):
        client.post("/forgot", data={"a": "1"})


def test_json_reads(interface: str) -> None:
    client = client_of(make_app(), interface)
    assert client.post("/json", json={"x": [1]}).get_json() == {
        "json": {"x": [1]},
        "get_json": {"x": [1]},
        "is_json": True,
        "data": '{"x":[1]}',
    }
    assert client.post("/json-async", json=[1, 2]).get_json() == {
        "json": [1, 2],
        "data": "[1,2]",
    }
    silent = client.post("/silent", data="[3]", content_type="text/plain")
    assert silent.get_json() == {"value": None, "forced": [3]}
    assert client.post("/json", data="{}", content_type="text/plain").status_code == 415


def test_files(interface: str) -> None:
    client = client_of(make_app(), interface)
    response = client.post("/upload", data={"f": "v", "file": (io.BytesIO(b"abc"), "a.txt")})
    assert response.get_json() == {"name": "a.txt", "size": 3, "field": "v"}
    response = client.post("/upload-async", data={"file": (io.BytesIO(b"abc"), "b.txt")})
    assert response.get_json() == {"name": "b.txt"}


def test_a_missing_form_field_is_a_400(interface: str) -> None:
    client = client_of(make_app(), interface)
    assert client.post("/missing", data={"a": "1"}).status_code == 400
    assert client.post("/missing").status_code == 400


def test_session_is_kept_in_a_signed_cookie(interface: str) -> None:
    app = make_app()

    @app.route("/count")
    async def count() -> str:
        session["n"] = session.get("n", 0) + 1
        return str(session["n"])

    @app.route("/read")
    def read() -> str:
        return str(session.get("n"))

    client = client_of(app, interface)
    assert [client.get("/count").data for _ in range(3)] == [b"1", b"2", b"3"]
    assert client.get("/read").data == b"3"
    with client.session_transaction() as stored:
        assert stored["n"] == 3
        stored["n"] = 10
    assert client.get("/count").data == b"11"
    # Another client, without the cookie, starts afresh.
    assert client_of(app, interface).get("/read").data == b"None"


def test_a_session_without_a_secret_key_refuses_writes(interface: str) -> None:
    app = Flask(__name__)

    @app.route("/")
    def write() -> str:
        session["x"] = 1
        return "no"

    with pytest.raises(RuntimeError, match="no secret key"):
        client_of(app, interface).get("/")


def test_g_is_per_request_and_per_app_context(interface: str) -> None:
    app = make_app()

    @app.route("/g")
    def read_g() -> str:
        before = "set" in g
        g.set = True
        return f"{before} {g.get('set')} {g.pop('set')} {'set' in g}"

    client = client_of(app, interface)
    assert client.get("/g").data == b"False True True False"
    assert client.get("/g").data == b"False True True False"
    closed: list[Any] = []
    app.teardown_appcontext(closed.append)
    with app.app_context():
        g.x = 1
        assert current_app.name == app.name
        assert has_app_context()
        assert not has_request_context()
    assert closed == [None]
    assert not has_app_context()


def test_with_client_keeps_the_last_requests_context(interface: str) -> None:
    app = make_app()

    @app.route("/login")
    def login() -> str:
        session["user"] = "ann"
        g.user = "ann"
        return "ok"

    client = client_of(app, interface)
    with client:
        client.get("/login?next=x")
        assert session["user"] == "ann"
        assert g.user == "ann"
        assert request.args["next"] == "x"
    assert not has_request_context()


def test_with_client_keeps_the_context_of_a_request_that_raised(interface: str) -> None:
    # As in Flask: after a view's exception propagates to the test, the
    # proxies show that request, never the one before it.
    app = make_app()
    app.testing = True

    @app.route("/fail")
    def fail() -> str:
        raise ZeroDivisionError

    client = client_of(app, interface)
    with client:
        client.get("/echo/a?step=1")
        assert request.args["step"] == "1"
        with pytest.raises(ZeroDivisionError):
            client.get("/fail?step=2")
        assert (request.path, request.args["step"]) == ("/fail", "2")
    assert not has_request_context()


def test_proxies_outside_a_context_say_so() -> None:
    with pytest.raises(RuntimeError, match="outside of request context"):
        request.method  # noqa: B018
    with pytest.raises(RuntimeError, match="outside of application context"):
        g.x  # noqa: B018
    assert not bool(request)


def test_hooks_read_no_endpoint_where_routing_answered(interface: str) -> None:
    # The 308 to the slashed path and the 204 to OPTIONS are routing answers,
    # not errors: the hooks that run around them read request.endpoint as None
    # (as in Flask), and the after_request hook's header reaches the client.
    app = Flask(__name__)
    torn_down: list[Any] = []

    @app.route("/folder/")
    def folder() -> str:
        return "folder"

    @app.after_request
    def mark(response: Any) -> Any:
        response.headers["X-Endpoint"] = str(request.endpoint)
        return response

    @app.teardown_request
    def teardown(exc: BaseException | None) -> None:
        torn_down.append((request.endpoint, request.view_args))

    client = client_of(app, interface)
    moved = client.get("/folder")
    assert (moved.status_code, moved.headers["Location"]) == (308, "/folder/")
    assert moved.headers["X-Endpoint"] == "None"
    options = client.open("/folder/", method="OPTIONS")
    assert (options.status_code, options.headers["Allow"]) == (204, "GET, HEAD, OPTIONS")
    assert options.headers["X-Endpoint"] == "None"
    assert client.get("/folder/").headers["X-Endpoint"] == "folder"
    assert torn_down == [(None, None), (None, None), ("folder", {})]


def test_get_data_as_text_replaces_bytes_that_are_not_utf8(interface: str) -> None:
    # As in Werkzeug: a client's body that is not UTF-8 never fails the view.
    app = Flask(__name__)

    @app.post("/sync")
    def sync_text() -> str:
        text: str = request.get_data(as_text=True)
        return text

    @app.post("/async")
    async def async_text() -> str:
        text: str = await request.get_data(as_text=True)
        return text

    client = client_of(app, interface)
    for path in ("/sync", "/async"):
        answer = client.post(path, data=b"caf\xe9 \xff ok")
        assert (answer.status_code, answer.text) == (200, "caf\ufffd \ufffd ok")
        assert client.post(path, data="café".encode()).text == "café"
