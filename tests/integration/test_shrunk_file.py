"""A file that shrank before its send, under gunicorn ``--no-sendfile``.

gunicorn then reads the file through ``wsgi.file_wrapper``. Before any byte
is sent the client gets a 500; after some, the bytes the file holds and a
closed connection: never no answer at all (which an ``OSError`` from the
iterable gave, read by gunicorn as a socket error).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.test_gunicorn import ROOT, free_port, wait_for_port

pytestmark = pytest.mark.integration

TIMEOUT = httpx.Timeout(10.0)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("shrunk")
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "1",
        "--no-sendfile",
        "--timeout",
        "20",
        "--graceful-timeout",
        "2",
        "--chdir",
        str(ROOT),
        "tests.integration.shrunk_file_app:application",
    ]
    log_path = folder / "gunicorn.log"
    environ = {**os.environ, "SANSIO_TEST_FOLDER": str(folder), "PYTHONWARNINGS": ""}
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environ)
        try:
            wait_for_port(port, process)
            yield f"http://127.0.0.1:{port}", log_path
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


def test_a_file_empty_before_its_send_is_a_500(server: tuple[str, Path]) -> None:
    url, log = server
    response = httpx.get(f"{url}/file?left=0", timeout=TIMEOUT)
    assert response.status_code == 500
    assert "shrank while it was being sent" in log.read_text(errors="replace")


def test_a_file_that_shrank_sends_what_it_holds_then_closes(server: tuple[str, Path]) -> None:
    url, _ = server
    received = b""
    with pytest.raises(httpx.RemoteProtocolError):  # noqa: PT012 (the body is read in the block)
        with httpx.stream("GET", f"{url}/file?left=100", timeout=TIMEOUT) as response:
            assert response.status_code == 200
            assert response.headers["content-length"] == "1000"
            for chunk in response.iter_raw():
                received += chunk
    assert received == b"x" * 100
