"""Commands: ``app.cli``, ``with_appcontext``, the test runner and the command line."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import httpx
import pytest

from sansio_http.compat.flask import Flask, current_app, g, with_appcontext
from tests.app.servers import free_port, wait_ready

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def make_app() -> Flask:
    app = Flask(__name__)
    app.config["GREETING"] = "hi"
    return app


def test_app_commands_run_in_the_app_context() -> None:
    app = make_app()
    closed: list[object] = []
    app.teardown_appcontext(closed.append)

    @app.cli.command("greet")
    @click.argument("name")
    def greet(name: str) -> None:
        g.seen = True
        click.echo(f"{current_app.config['GREETING']} {name}")

    result = app.test_cli_runner().invoke(args=["greet", "ann"])
    assert result.exit_code == 0, result.output
    assert result.output == "hi ann\n"
    assert closed == [None]


def test_plain_click_commands_get_the_context_too() -> None:
    # flaskr adds a plain @click.command with app.cli.add_command, as Flask allows.
    app = make_app()

    @click.command("where")
    def where() -> None:
        click.echo(current_app.name)

    app.cli.add_command(where)
    result = app.test_cli_runner().invoke(args=["where"])
    assert result.output == "tests.compat.test_cli\n"


def test_with_appcontext_loads_the_app_for_a_command_of_its_own() -> None:
    app = make_app()

    @click.command()
    @with_appcontext
    def show() -> None:
        click.echo(current_app.config["GREETING"])

    result = app.test_cli_runner().invoke(show)
    assert result.output == "hi\n"


def test_a_command_may_stay_out_of_the_context() -> None:
    app = make_app()

    @app.cli.command("bare", with_appcontext=False)
    def bare() -> None:
        click.echo(str(bool(g)))

    # The group's invoke still provides one, as Flask's FlaskGroup does.
    assert app.test_cli_runner().invoke(args=["bare"]).output == "True\n"


def _command_line(tmp_path: Path, *args: str) -> list[str]:
    (tmp_path / "portedapp.py").write_text(
        "import os\nfrom flaskr import create_app\n"
        "app = create_app({'DATABASE': os.environ['FLASKR_DATABASE']})\n"
    )
    return [sys.executable, "-m", "sansio_http.compat.flask", "--app", "portedapp", *args]


def _env(tmp_path: Path) -> dict[str, str]:
    path = os.pathsep.join([str(EXAMPLES), str(tmp_path)])
    return {**os.environ, "PYTHONPATH": path, "FLASKR_DATABASE": str(tmp_path / "db.sqlite")}


def test_init_db_from_the_command_line(tmp_path: Path) -> None:
    result = subprocess.run(
        _command_line(tmp_path, "init-db"),
        env=_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Initialized the database.\n"
    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert {"user", "post"} <= tables


def test_the_command_line_lists_the_apps_commands(tmp_path: Path) -> None:
    result = subprocess.run(
        _command_line(tmp_path, "--help"),
        env=_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "init-db" in result.stdout
    assert "run" in result.stdout


def test_an_unknown_app_is_a_usage_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sansio_http.compat.flask", "--app", "nosuchmodule", "init-db"],
        env=_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "Could not import 'nosuchmodule'" in result.stderr


@pytest.mark.integration
@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_run_serves_the_app_on_the_dev_server(tmp_path: Path, interface: str) -> None:
    port = free_port()
    command = _command_line(tmp_path, "run", "--port", str(port), "--interface", interface)
    with (tmp_path / "server.log").open("wb") as log:
        process = subprocess.Popen(
            command, env=_env(tmp_path), cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        assert wait_ready(process, port), (tmp_path / "server.log").read_text()
        response = httpx.get(f"http://127.0.0.1:{port}/hello", timeout=10)
        assert response.status_code == 200
        assert response.text == "Hello, World!"
        assert response.headers["content-type"] == "text/html; charset=utf-8"
    finally:
        process.terminate()
        process.wait(10)
    assert f"({interface.upper()})" in (tmp_path / "server.log").read_text()
