"""``Flask``: views, return values, hooks, error handlers and registration, both adapters."""

from __future__ import annotations

import asyncio
import io
import threading
from typing import Any

import pytest

from sansio_http import Request, Response
from sansio_http.compat.flask import (
    Blueprint,
    Flask,
    abort,
    g,
    jsonify,
    make_response,
    redirect,
    request,
    url_for,
)
from sansio_http.compat.flask._testing import FlaskClient


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def client_of(app: Flask, interface: str) -> FlaskClient:
    app.config["TESTING_INTERFACE"] = interface
    return app.test_client()


def test_views_take_route_values_as_keywords(interface: str) -> None:
    app = Flask(__name__)

    @app.route("/users/<int:id>/<name>")
    def user(id: int, name: str) -> str:
        return f"{id + 1} {name}"

    @app.route("/async/<int:id>")
    async def user_async(id: int) -> str:
        await asyncio.sleep(0)
        return f"async {id}"

    client = client_of(app, interface)
    response = client.get("/users/41/ann")
    assert response.data == b"42 ann"
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert client.get("/async/7").data == b"async 7"


def test_async_views_run_on_the_loop_and_def_views_off_it(interface: str) -> None:
    app = Flask(__name__)

    def on_loop() -> bool:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    @app.route("/def")
    def plain() -> dict[str, bool]:
        return {"loop": on_loop()}

    @app.route("/async")
    async def coroutine() -> dict[str, bool]:
        return {"loop": on_loop()}

    client = client_of(app, interface)
    assert client.get("/def").get_json() == {"loop": False}
    assert client.get("/async").get_json() == {"loop": True}


@pytest.mark.parametrize(
    ("result", "status", "content_type", "body", "header"),
    [
        ("<p>hi</p>", 200, "text/html; charset=utf-8", b"<p>hi</p>", None),
        (b"raw", 200, "text/html; charset=utf-8", b"raw", None),
        ({"a": 1}, 200, "application/json", b'{"a":1}', None),
        ([1, 2], 200, "application/json", b"[1,2]", None),
        (("made", 201), 201, "text/html; charset=utf-8", b"made", None),
        (("with", {"X-A": "1"}), 200, "text/html; charset=utf-8", b"with", "1"),
        (("all", 202, [("X-A", "2")]), 202, "text/html; charset=utf-8", b"all", "2"),
        (({"k": "v"}, 404), 404, "application/json", b'{"k":"v"}', None),
    ],
)
def test_return_values_as_flask_makes_them(
    interface: str, result: Any, status: int, content_type: str, body: bytes, header: str | None
) -> None:
    app = Flask(__name__)
    app.add_url_rule("/", "view", lambda: result)
    response = client_of(app, interface).get("/")
    assert response.status_code == status
    assert response.headers["content-type"].replace(" ", "") == content_type.replace(" ", "")
    assert response.data.replace(b" ", b"") == body
    assert response.headers.get("x-a") == header


def test_a_generator_streams_html(interface: str) -> None:
    app = Flask(__name__)

    @app.route("/")
    def stream() -> Any:
        def parts() -> Any:
            yield "<p>"
            yield b"one"
            yield "</p>"

        return parts()

    response = client_of(app, interface).get("/")
    assert response.data == b"<p>one</p>"
    assert response.headers["content-type"] == "text/html; charset=utf-8"


def test_a_view_returning_none_is_an_error_naming_it(interface: str) -> None:
    app = Flask(__name__)

    @app.route("/")
    def forgot() -> None:
        pass

    with pytest.raises(TypeError, match="did not return a valid response"):
        client_of(app, interface).get("/")
    app.config["TESTING"] = False
    app.config["PROPAGATE_EXCEPTIONS"] = False
    client = app.test_client(interface=interface, raise_app_exceptions=False)
    assert client.get("/").status_code == 500


def test_add_url_rule_several_rules_and_endpoints_for_one_view(interface: str) -> None:
    app = Flask(__name__)

    def page(name: str = "home") -> str:
        return f"{request.endpoint} {name}"

    app.add_url_rule("/", "home", page)
    app.add_url_rule("/page/<name>", "home", page)
    app.add_url_rule("/other/<name>", "other", page)
    app.add_url_rule("/start", endpoint="home-alias")
    client = client_of(app, interface)
    assert client.get("/").data == b"home home"
    assert client.get("/page/x").data == b"home x"
    assert client.get("/other/y").data == b"other y"
    with app.app_context():
        assert url_for("home") == "/"
        assert url_for("home", name="z") == "/page/z"
        # A rule without a view serves url_for only, as flaskr's "index".
        assert url_for("home-alias") == "/start"
    assert app.view_functions["other"] is page
    assert client.get("/start").status_code == 404


def test_add_url_rule_refuses_an_option_the_layer_lacks() -> None:
    app = Flask(__name__)
    with pytest.raises(TypeError, match="no host or subdomain matching"):
        app.add_url_rule("/", "x", lambda: "", subdomain="api")


def test_hooks_take_what_flask_passes(interface: str) -> None:
    app = Flask(__name__)
    seen: list[Any] = []

    @app.before_request
    def before() -> Any:
        g.order = ["before"]
        if request.path == "/stop":
            return "stopped", 403
        return None

    @app.before_request
    async def before_async() -> None:
        g.order.append("before_async")

    @app.after_request
    def after(response: Response) -> Response:
        response.headers["X-Order"] = ",".join(g.order)
        return response

    @app.teardown_request
    def teardown(exc: BaseException | None) -> None:
        seen.append(exc)

    @app.route("/")
    @app.route("/stop")
    def index() -> str:
        g.order.append("view")
        return "ok"

    client = client_of(app, interface)
    response = client.get("/")
    assert response.headers["x-order"] == "before,before_async,view"
    stopped = client.get("/stop")
    assert stopped.status_code == 403
    assert stopped.data == b"stopped"
    assert stopped.headers["x-order"] == "before"
    assert seen == [None, None]


def test_error_handlers_take_the_exception(interface: str) -> None:
    app = Flask(__name__)

    class Boom(Exception):
        pass

    @app.errorhandler(404)
    def missing(error: Any) -> Any:
        return f"missing {error.status}", 404

    @app.errorhandler(Boom)
    async def boom(error: Boom) -> Any:
        return {"error": str(error)}, 418

    @app.route("/boom")
    def explode() -> str:
        raise Boom("bang")

    @app.route("/gone")
    def gone() -> str:
        abort(404, "no such thing")

    client = client_of(app, interface)
    assert client.get("/nowhere").data == b"missing 404"
    assert client.get("/gone").data == b"missing 404"
    response = client.get("/boom")
    assert (response.status_code, response.get_json()) == (418, {"error": "bang"})


def test_helpers_make_responses(interface: str) -> None:
    app = Flask(__name__)

    @app.route("/json")
    def as_json() -> Response:
        return jsonify(a=1)

    @app.route("/list")
    def as_list() -> Response:
        return jsonify(1, 2)

    @app.route("/made")
    def made() -> Response:
        response = make_response("body", 201)
        response.headers["X-Made"] = "yes"
        return response

    @app.route("/away")
    def away() -> Response:
        return redirect(url_for("made", q="1"), code=303)

    client = client_of(app, interface)
    assert client.get("/json").get_json() == {"a": 1}
    assert client.get("/list").get_json() == [1, 2]
    made_response = client.get("/made")
    assert (made_response.status_code, made_response.headers["x-made"]) == (201, "yes")
    away_response = client.get("/away")
    assert (away_response.status_code, away_response.location) == (303, "/made?q=1")
    followed = client.get("/away", follow_redirects=True)
    assert followed.data == b"body"
    assert [r.status_code for r in followed.history] == [303]


def test_jsonify_refuses_args_and_kwargs_together() -> None:
    with pytest.raises(TypeError):
        jsonify(1, a=2)


def test_app_style_views_work_beside_flask_ones(interface: str) -> None:
    # Moving a view to the App's style, one at a time: add_route takes the request.
    app = Flask(__name__)

    def native(request: Request, id: int) -> dict[str, Any]:
        return {"id": id, "path": request.path}

    app.add_route("/native/<int:id>", native)
    app.add_url_rule("/flask", "flask_view", lambda: request.path)
    client = client_of(app, interface)
    assert client.get("/native/3").get_json() == {"id": 3, "path": "/native/3"}
    assert client.get("/flask").data == b"/flask"


def test_blueprints_flask_style(interface: str, tmp_path: Any) -> None:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "a.txt").write_text("A")
    bp = Blueprint("admin", __name__, url_prefix="/admin", static_folder=str(tmp_path / "files"))
    events: list[str] = []

    @bp.before_app_request
    def everywhere() -> None:
        events.append(f"app {request.path}")

    @bp.before_request
    def here() -> None:
        events.append(f"bp {request.path}")

    @bp.app_errorhandler(404)
    def not_found(error: Any) -> Any:
        return "custom 404", 404

    @bp.route("/")
    def index() -> str:
        return f"{request.blueprint} {url_for('.index')} {url_for('.static', filename='a.txt')}"

    app = Flask(__name__)
    app.add_url_rule("/", "home", lambda: "home")
    app.register_blueprint(bp)
    client = client_of(app, interface)
    assert client.get("/admin/").data == b"admin /admin/ /admin/files/a.txt"
    assert client.get("/").data == b"home"
    assert events == ["app /admin/", "bp /admin/", "app /"]
    assert client.get("/nope").data == b"custom 404"
    assert client.get("/admin/files/a.txt").data == b"A"
    with pytest.raises(ValueError, match="already registered"):
        app.register_blueprint(bp)


def test_the_app_is_a_wsgi_and_an_asgi_application() -> None:
    from sansio_http.testing import Client

    app = Flask(__name__)
    app.add_url_rule("/", "index", lambda: "hi")
    assert Client(app.wsgi_app, interface="wsgi").get("/").text == "hi"
    assert Client(app.asgi_app, interface="asgi").get("/").text == "hi"

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        await app(scope, receive, send)

    def wsgi(environ: Any, start_response: Any) -> Any:
        return app(environ, start_response)

    assert Client(asgi, interface="asgi").get("/").text == "hi"
    assert Client(wsgi, interface="wsgi").get("/").text == "hi"


def test_routing_errors_skip_before_request_hooks(interface: str) -> None:
    # A difference from Flask that the migration guide names.
    app = Flask(__name__)
    calls: list[str] = []
    app.before_request(lambda: calls.append("before"))

    @app.after_request
    def after(response: Response) -> Response:
        calls.append("after")
        return response

    app.add_url_rule("/", "index", lambda: "ok")
    client = client_of(app, interface)
    assert client.get("/missing").status_code == 404
    assert client.post("/").status_code == 405
    assert calls == ["after", "after"]


def test_max_content_length_is_the_body_limit(interface: str) -> None:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = 10

    @app.post("/")
    def upload() -> str:
        return str(len(request.get_data()))

    client = client_of(app, interface)
    assert client.post("/", data=b"x" * 10).data == b"10"
    assert client.post("/", data=b"x" * 11).status_code == 413


def test_trusted_hosts_refuse_other_hosts(interface: str) -> None:
    # Flask 3.1's TRUSTED_HOSTS: a Host outside them is a 400, never the
    # host of an external URL.
    app = Flask(__name__)
    app.config["TRUSTED_HOSTS"] = ["example.com", ".example.org"]

    @app.route("/")
    def index() -> str:
        return url_for("index", _external=True)

    client = client_of(app, interface)
    assert client.get("http://example.com/").text == "http://example.com/"
    assert client.get("http://www.example.org/").text == "http://www.example.org/"
    assert client.get("http://evil.example/").status_code == 400
    assert client.get("/", headers={"Host": "example.com.evil.example"}).status_code == 400


def test_options_the_layer_lacks_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="subdomain_matching"):
        Flask(__name__, subdomain_matching=True)
    with pytest.raises(TypeError, match="subdomain= and url_defaults="):
        Blueprint("api", __name__, subdomain="api")
    with pytest.raises(TypeError, match="register_blueprint"):
        Flask(__name__).register_blueprint(Blueprint("x", __name__), name="y")


def test_the_logger_is_named_after_the_app() -> None:
    assert Flask("myapp").logger.name == "myapp"


def test_two_first_wsgi_requests_at_once_make_one_wsgi_application(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sansio_http.wsgi

    real_to_wsgi = sansio_http.wsgi.to_wsgi
    entered, release, second = threading.Event(), threading.Event(), threading.Event()
    calls: list[int] = []

    def slow_to_wsgi(app: Any) -> Any:
        calls.append(1)
        if len(calls) > 1:
            second.set()
        entered.set()
        assert release.wait(10)
        return real_to_wsgi(app)

    monkeypatch.setattr(sansio_http.wsgi, "to_wsgi", slow_to_wsgi)
    app = Flask(__name__)
    app.add_url_rule("/", "index", lambda: "hi")
    statuses: list[str] = []

    def first_request() -> None:
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": "/",
            "SERVER_NAME": "localhost",
            "HTTP_HOST": "localhost",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(),
            "wsgi.errors": io.StringIO(),
        }
        b"".join(app.wsgi_app(environ, lambda status, headers, *exc: statuses.append(status)))

    threads = [threading.Thread(target=first_request) for _ in range(2)]
    threads[0].start()
    assert entered.wait(10)
    threads[1].start()
    # Without the lock, the second request calls to_wsgi at once.
    assert not second.wait(1)
    release.set()
    for thread in threads:
        thread.join(10)
    assert calls == [1]
    assert statuses == ["200 OK", "200 OK"]
