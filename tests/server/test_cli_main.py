"""The command line's pieces, called in-process: loading, errors, the banner."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from sansio_http import App
from sansio_http.server import Config, Server
from sansio_http.server._cli import AppNotFound, load_app, main
from sansio_http.server._serve import app_name, banner
from tests.server.apps import echo_asgi, echo_wsgi


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current folder of its own, with sys.path and sys.modules restored."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    return tmp_path


def test_load_app_finds_a_nested_attribute(folder: Path) -> None:
    (folder / "inproc_nested.py").write_text(
        "class Box:\n    def application(self, environ, start_response):\n        return []\n"
        "box = Box()\n"
    )
    assert load_app("inproc_nested:box.application").__name__ == "application"


def test_load_app_defaults_to_app_and_accepts_an_app(folder: Path) -> None:
    (folder / "inproc_app.py").write_text("from sansio_http import App\napp = App('x')\n")
    assert isinstance(load_app("inproc_app"), App)


@pytest.mark.parametrize(
    ("source", "spec", "message"),
    [
        ("app = 1\n", "inproc_bad:app", "inproc_bad:app is not an application"),
        ("", "inproc_bad:missing", "inproc_bad:missing: 'missing' not found"),
        ("import inproc_absent_dependency\n", "inproc_bad", "No module named"),
        ("def (:\n", "inproc_bad", "cannot import inproc_bad: "),
        ("", "inproc_bad:1x", "expected module:attr"),
    ],
)
def test_load_app_errors(folder: Path, source: str, spec: str, message: str) -> None:
    (folder / "inproc_bad.py").write_text(source)
    with pytest.raises(AppNotFound) as info:
        load_app(spec)
    assert message in str(info.value)


def test_main_reports_a_bad_app_in_one_line(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inproc_nowhere:app"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "python -m sansio_http.server: error: cannot import inproc_nowhere: "
        "No module named 'inproc_nowhere'\n"
    )


def test_main_reports_a_port_in_use_in_one_line(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "inproc_port.py").write_text("def app(environ, start_response):\n    return []\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["inproc_port:app", "--port", str(port), "--no-access-log"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        f"python -m sansio_http.server: error: cannot listen on 127.0.0.1:{port}: "
        "the port is in use; pick another with --port"
    )


def test_main_reports_an_address_it_cannot_bind(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "inproc_addr.py").write_text("def app(environ, start_response):\n    return []\n")
    # 192.0.2.1 (TEST-NET-1, RFC 5737) is never an address of this machine.
    assert main(["inproc_addr:app", "--host", "192.0.2.1", "--port", "0"]) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("python -m sansio_http.server: error: cannot listen on 192.0.2.1:0: ")


def test_main_reports_debug_off_loopback(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "inproc_debug.py").write_text("def app(environ, start_response):\n    return []\n")
    assert main(["inproc_debug:app", "--host", "0.0.0.0", "--debug"]) == 2
    assert "only allowed on loopback" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["x:app", "--body-timeout", "-1"],
        ["x:app", "--min-body-rate", "nan"],
        ["x:app", "--backlog", "0"],
    ],
)
def test_main_refuses_bad_numbers(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.endswith("(see --help)")


def test_app_name_is_module_and_name() -> None:
    assert app_name(echo_wsgi) == "tests.server.apps:echo_wsgi"
    assert app_name(App("x")) == "sansio_http.app._app:App"


def test_banner_brackets_an_ipv6_host() -> None:
    server = Server(echo_asgi, Config(host="::1", port=8080, debug=True))
    assert banner("web:app", server, reload=True) == (
        "Serving web:app (ASGI) on http://[::1]:8080, debug on, reload on; press Ctrl+C to stop"
    )
