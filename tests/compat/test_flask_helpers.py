"""url_for, flash, templates, files, streams and config, as Flask spells them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from sansio_http.compat.flask import (
    Blueprint,
    Config,
    Flask,
    flash,
    get_flashed_messages,
    render_template,
    render_template_string,
    request,
    send_file,
    send_from_directory,
    stream_with_context,
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


def test_url_for_inside_and_outside_requests(interface: str, tmp_path: Path) -> None:
    app = Flask(__name__, root_path=str(tmp_path))

    @app.route("/post/<int:id>")
    def post(id: int) -> str:
        return " ".join(
            [
                url_for("post", id=id, page=2),
                url_for("post", id=1, _anchor="top"),
                url_for("post", id=1, _external=True),
                url_for("static", filename="css/site.css"),
                url_for("post", id=1, _scheme="https", _external=True),
            ]
        )

    response = client_of(app, interface).get("/post/5")
    assert response.data.decode().split() == [
        "/post/5?page=2",
        "/post/1#top",
        "http://testserver/post/1",
        "/static/css/site.css",
        "https://testserver/post/1",
    ]
    with app.app_context():
        assert url_for("post", id=3) == "/post/3"
    with pytest.raises(RuntimeError, match="application context"):
        url_for("post", id=3)


def test_flashed_messages_last_one_request(interface: str) -> None:
    app = Flask(__name__)
    app.secret_key = "dev"

    @app.route("/flash")
    def flashing() -> str:
        flash("saved")
        flash("careful", "warning")
        return "ok"

    @app.route("/show")
    def show() -> dict[str, Any]:
        return {
            "all": get_flashed_messages(),
            "pairs": get_flashed_messages(with_categories=True),
            "warnings": get_flashed_messages(category_filter=["warning"]),
        }

    client = client_of(app, interface)
    client.get("/flash")
    assert client.get("/show").get_json() == {
        "all": ["saved", "careful"],
        "pairs": [["message", "saved"], ["warning", "careful"]],
        "warnings": ["careful"],
    }
    assert client.get("/show").get_json()["all"] == []


def make_template_app(root: Path) -> Flask:
    (root / "templates").mkdir()
    (root / "templates" / "page.html").write_text(
        "{{ title }}|{{ request.path }}|{{ g.who }}|{{ extra }}|{{ shout('x') }}|"
        "{% for m in get_flashed_messages() %}{{ m }}{% endfor %}|{{ config.NAME }}|{{ '<b>' }}"
    )
    (root / "bp_templates").mkdir()
    (root / "bp_templates" / "bp.html").write_text("from the blueprint {{ bp_extra }}")
    app = Flask("templated", root_path=str(root))
    app.config.update(SECRET_KEY="dev", NAME="site")
    bp = Blueprint("bp", __name__, template_folder="bp_templates", root_path=str(root))

    @app.context_processor
    def extra() -> dict[str, Any]:
        return {"extra": "E"}

    @bp.app_context_processor
    def bp_extra() -> dict[str, Any]:
        return {"bp_extra": "B"}

    @app.template_global()
    def shout(text: str) -> str:
        return text.upper()

    @app.before_request
    def who() -> None:
        from sansio_http.compat.flask import g

        g.who = "ann"

    @app.route("/page")
    def page() -> Any:
        flash("hello")
        return render_template("page.html", title="T")

    @app.route("/async")
    async def page_async() -> str:
        text: str = await render_template("page.html", title="A")
        return text

    @bp.route("/bp")
    def from_bp() -> Any:
        return render_template("bp.html")

    @app.route("/string")
    def string() -> Any:
        return render_template_string("{{ a }} {{ request.method }}", a=1)

    app.register_blueprint(bp)
    return app


def test_templates_see_flasks_globals(interface: str, tmp_path: Path) -> None:
    client = client_of(make_template_app(tmp_path), interface)
    assert client.get("/page").data == b"T|/page|ann|E|X|hello|site|&lt;b&gt;"
    assert client.get("/async").data == b"A|/async|ann|E|X||site|&lt;b&gt;"
    assert client.get("/bp").data == b"from the blueprint B"
    assert client.get("/string").data == b"1 GET"


def test_files(interface: str, tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "a.txt").write_text("hello")
    (tmp_path / "secret.txt").write_text("no")
    app = Flask(__name__, root_path=str(tmp_path))

    @app.route("/files/<path:name>")
    def files(name: str) -> Any:
        return send_from_directory("files", name)

    @app.route("/escape")
    def escape() -> Any:
        # An untrusted name that would leave the folder.
        return send_from_directory("files", "../secret.txt")

    @app.route("/download")
    def download() -> Any:
        return send_file("files/a.txt", as_attachment=True, download_name="b.txt")

    @app.route("/memory")
    def memory() -> Any:
        import io

        return send_file(io.BytesIO(b"data"), mimetype="text/plain")

    client = client_of(app, interface)
    response = client.get("/files/a.txt")
    assert (response.status_code, response.data) == (200, b"hello")
    assert response.headers["content-type"].startswith("text/plain")
    assert client.get("/files/nothing.txt").status_code == 404
    downloaded = client.get("/download")
    assert downloaded.headers["content-disposition"].startswith("attachment")
    assert "b.txt" in downloaded.headers["content-disposition"]
    assert client.get("/escape").status_code == 404
    assert client.get("/memory").data == b"data"


def test_stream_with_context_reads_the_request_after_the_view(interface: str) -> None:
    app = Flask(__name__)

    @app.route("/stream")
    def stream() -> Any:
        @stream_with_context
        def parts() -> Any:
            yield "path="
            yield request.path

        return parts()

    assert client_of(app, interface).get("/stream?x=1").data == b"path=/stream"


def test_stream_with_context_closes_the_stream_in_the_request_context(interface: str) -> None:
    # A client that leaves mid-stream: the generator's clean-up runs at once,
    # once, and still sees the request, as in Flask.
    app = Flask(__name__)
    cleaned: list[str] = []

    @app.route("/stream")
    def stream() -> Any:
        def parts() -> Any:
            try:
                yield "first"
                yield "second"
            finally:
                cleaned.append(request.path)

        return stream_with_context(parts())

    client = client_of(app, interface)
    with client.stream("GET", "/stream") as response:
        assert next(response.iter_bytes()) == b"first"
    assert cleaned == ["/stream"]


def test_stream_with_context_needs_a_request() -> None:
    with pytest.raises(RuntimeError, match="request context"):
        stream_with_context(iter(["x"]))


def test_config_loaders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "settings.py").write_text("SECRET_KEY = 'file'\nlower = 'ignored'\n")
    config = Config(str(tmp_path), {"DEBUG": False})
    assert config.from_pyfile("settings.py")
    assert config["SECRET_KEY"] == "file"
    assert "lower" not in config
    assert not config.from_pyfile("missing.py", silent=True)
    with pytest.raises(OSError, match="Unable to load configuration file"):
        config.from_pyfile("missing.py")

    class Settings:
        NAME = "obj"
        hidden = 1

    config.from_object(Settings)
    config.from_mapping({"A_B": 1, "low": 2}, C=3)
    assert (config["NAME"], config["A_B"], config["C"], "low" in config) == ("obj", 1, 3, False)
    monkeypatch.setenv("FLASK_NUMBER", "42")
    monkeypatch.setenv("FLASK_TEXT", "plain")
    monkeypatch.setenv("FLASK_NESTED__KEY", "true")
    config.from_prefixed_env()
    assert (config["NUMBER"], config["TEXT"], config["NESTED"]) == (42, "plain", {"KEY": True})
    assert config.get_namespace("A_") == {"b": 1}
    # The App's own settings answer as attributes.
    assert config.threads == 32
    assert config.max_content_length == 16 * 1024 * 1024
    config["MAX_CONTENT_LENGTH"] = 10
    assert config.max_content_length == 10


def test_instance_folder_and_settings(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (tmp_path / "instance").mkdir()
    (tmp_path / "instance" / "config.py").write_text("GREETING = 'from instance'\n")
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        app = Flask("pkg", instance_relative_config=True)
        assert app.root_path == str(package)
        assert app.instance_path == str(tmp_path / "instance")
        assert app.config.from_pyfile("config.py")
        assert app.config["GREETING"] == "from instance"
        app.testing = True
        assert app.config["TESTING"] is True
        with app.open_resource("__init__.py") as resource:
            assert resource.read() == b""
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pkg", None)
    with pytest.raises(ValueError, match="must be absolute"):
        Flask("x", instance_path="relative")
    assert os.path.isabs(Flask("__main__").instance_path)
