"""The command line: ``python -m sansio_http.server``, SIGTERM and ``--reload``."""

from __future__ import annotations

import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sansio_http.server._cli import parser

pytestmark = pytest.mark.integration

APP = """
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"VERSION"]
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(url: str, expected: str, process: subprocess.Popen[Any]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).text == expected:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None, "the server exited"
        time.sleep(0.1)
    raise AssertionError(f"{url} never answered {expected!r}")


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    (tmp_path / "cliapp.py").write_text(APP.replace("VERSION", "one"))
    return tmp_path


def start(folder: Path, *options: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "sansio_http.server", "cliapp:app", "--port", str(port), *options],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return process, f"http://127.0.0.1:{port}/"


@pytest.fixture
def stopper() -> Iterator[list[subprocess.Popen[Any]]]:
    processes: list[subprocess.Popen[Any]] = []
    yield processes
    for process in processes:
        if process.poll() is None:
            # SIGINT first: the reloader then stops its child too.
            process.send_signal(signal.SIGINT)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def test_sigterm_exits_cleanly(app_dir: Path, stopper: list[subprocess.Popen[bytes]]) -> None:
    process, url = start(app_dir)
    stopper.append(process)
    wait_for(url, "one", process)
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == 0


def test_reload_serves_the_changed_file(
    app_dir: Path, stopper: list[subprocess.Popen[bytes]]
) -> None:
    process, url = start(app_dir, "--reload")
    stopper.append(process)
    wait_for(url, "one", process)
    time.sleep(0.1)
    (app_dir / "cliapp.py").write_text(APP.replace("VERSION", "two"))
    wait_for(url, "two", process)
    process.send_signal(signal.SIGINT)
    process.wait(10)


def run_cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the command line to its end; return its status and output."""
    return subprocess.run(
        [sys.executable, "-m", "sansio_http.server", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=30,
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("python -m sansio_http.server: error: ")
    return lines[0]


def read_stderr_until(process: subprocess.Popen[str], marker: str) -> list[str]:
    """Return the lines of standard error up to the one holding ``marker``."""
    assert process.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        readable, _, _ = select.select([process.stderr], [], [], 0.2)
        if readable:
            line = process.stderr.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if marker in line:
                return lines
    raise AssertionError(f"{marker!r} never appeared in {lines}")


@pytest.mark.parametrize(
    ("options", "mode"),
    [((), "debug off, reload off"), (("--debug", "--reload"), "debug on, reload on")],
)
def test_one_banner_line_names_the_app_interface_address_and_mode(
    app_dir: Path, stopper: list[subprocess.Popen[str]], options: tuple[str, ...], mode: str
) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "sansio_http.server", "cliapp", "--port", str(port), *options],
        cwd=app_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stopper.append(process)
    lines = read_stderr_until(process, "Serving")
    assert lines[-1].endswith(
        f"Serving cliapp:app (WSGI) on http://127.0.0.1:{port}, {mode}; press Ctrl+C to stop"
    )
    # The server answers, and the banner came once, on standard error only.
    wait_for(f"http://127.0.0.1:{port}/", "one", process)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=15)
    assert "Serving" not in stderr
    assert stdout == ""


@pytest.mark.parametrize(
    ("source", "spec", "interface"),
    [
        (
            "from sansio_http.wsgi import wsgi_app\n"
            "from sansio_http import Response\n"
            "application = wsgi_app(lambda request: Response('hi'))\n",
            "named:application",
            "WSGI",
        ),
        ("from sansio_http import App\napp = App('named')\n", "named", "ASGI"),
    ],
)
def test_an_app_object_is_named_as_written(
    app_dir: Path, source: str, spec: str, interface: str
) -> None:
    (app_dir / "named.py").write_text(source)
    process = subprocess.Popen(
        [sys.executable, "-m", "sansio_http.server", spec, "--port", "0"],
        cwd=app_dir,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        [line] = read_stderr_until(process, "Serving")
    finally:
        # At once after the banner: the server is ready to stop cleanly.
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert process.returncode == 0
    name = spec if ":" in spec else spec + ":app"
    assert f"Serving {name} ({interface}) on http://127.0.0.1:" in line
    assert "<locals>" not in line


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cliapp:nothing", "cliapp:nothing: 'nothing' not found"),
        ("cliapp:app.nothing", "cliapp:app.nothing: 'nothing' not found"),
        (":app", "expected module:attr"),
        ("cliapp:a-b", "expected module:attr"),
        ("cliapp:VALUE", "cliapp:VALUE is not an application: int objects are not callable"),
        ("missing_module:app", "cannot import missing_module: No module named 'missing_module'"),
    ],
)
def test_a_bad_app_path_is_one_line(app_dir: Path, spec: str, message: str) -> None:
    (app_dir / "cliapp.py").write_text(APP.replace("VERSION", "one") + "VALUE = 1\n")
    line = one_error_line(run_cli(app_dir, spec))
    assert message in line


def test_an_import_error_keeps_its_own_message(app_dir: Path) -> None:
    (app_dir / "broken.py").write_text("import no_such_dependency_xyz\n")
    line = one_error_line(run_cli(app_dir, "broken:app"))
    assert line.endswith("cannot import broken: No module named 'no_such_dependency_xyz'")


def test_a_syntax_error_is_one_line_with_its_place(app_dir: Path) -> None:
    (app_dir / "typo.py").write_text("def app(:\n")
    line = one_error_line(run_cli(app_dir, "typo:app"))
    assert "cannot import typo: " in line
    assert "typo.py, line 1" in line


def test_other_errors_at_import_keep_their_traceback(app_dir: Path) -> None:
    (app_dir / "crashing.py").write_text("raise RuntimeError('no database configured')\n")
    result = run_cli(app_dir, "crashing:app")
    assert result.returncode == 1
    assert "Traceback" in result.stderr
    assert "RuntimeError: no database configured" in result.stderr


def test_a_port_in_use_is_one_line(app_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error_line(run_cli(app_dir, "cliapp:app", "--port", str(port)))
    assert line == (
        f"python -m sansio_http.server: error: cannot listen on 127.0.0.1:{port}: "
        "the port is in use; pick another with --port"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("cliapp:app", "--bogus"), "unrecognized arguments: --bogus"),
        (("cliapp:app", "--port", "http"), "argument --port: expected a number, not 'http'"),
        (("cliapp:app", "--port", "70000"), "a port is between 0 and 65535, not 70000"),
        (("cliapp:app", "--workers-threads", "0"), "expected a positive number, not 0"),
        ((), "the following arguments are required: app"),
    ],
)
def test_a_bad_flag_is_one_line(app_dir: Path, args: tuple[str, ...], message: str) -> None:
    line = one_error_line(run_cli(app_dir, *args))
    assert message in line
    assert line.endswith("(see --help)")


def test_debug_off_loopback_is_one_line(app_dir: Path) -> None:
    line = one_error_line(run_cli(app_dir, "cliapp:app", "--host", "0.0.0.0", "--debug"))
    assert "loopback" in line


def test_help_lists_every_option_with_its_default(app_dir: Path) -> None:
    result = run_cli(app_dir, "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    options = [a for a in parser()._actions if a.option_strings and a.dest != "help"]
    assert len(options) >= 10
    for action in options:
        assert action.option_strings[0] in text
        assert action.help is not None
        assert "default" in action.help, action.option_strings
    for value in ("127.0.0.1", "8000", "auto", "2048", "20.0", "500.0"):
        assert f"default {value}" in text
