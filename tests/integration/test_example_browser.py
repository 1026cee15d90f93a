"""The example app under the development server, driven by headless Chromium.

``python -m sansio_http.server examples.app:app`` runs as a subprocess on a
free port; Chromium opens the page, fills the upload form with a real file
and submits it; the test reads the page the app sends back.
"""

from __future__ import annotations

import hashlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.browser import Browser, available

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "sansio_http.server", "examples.app:app", "--port", str(port)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                httpx.get(url + "/api/hello", timeout=1)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(log.read_text()) from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def test_the_cli_prints_the_address_and_serves_json(server: str) -> None:
    response = httpx.get(server + "/api/hello?name=Ada")
    assert response.json() == {"hello": "Ada", "path": "/api/hello"}


def test_async_view(server: str) -> None:
    assert httpx.get(server + "/later").text == "This answer came from an async view.\n"


@pytest.mark.skipif(not available(), reason="Debian's chromium is not installed")
def test_upload_form_in_chromium(server: str, tmp_path: Path) -> None:
    upload = tmp_path / "notes ünï.txt"
    data = ("line one\nline two ✓\n" * 200).encode()
    upload.write_bytes(data)
    with Browser() as browser:
        browser.open(server + "/")
        assert browser.evaluate("document.title") == "sansio-http example"
        browser.set_files("input[type=file]", upload)
        browser.evaluate("document.querySelector('[name=name]').value = 'Ada Lovelace'")
        browser.evaluate("document.getElementById('upload').submit()")
        browser.wait_for("Page.loadEventFired")
        assert browser.evaluate("document.title") == "Received"
        received = browser.evaluate("document.getElementById('received').innerText")
        filename = browser.evaluate("document.querySelector('.filename').textContent")
        size = browser.evaluate("document.querySelector('.size').textContent")
        digest = browser.evaluate("document.querySelector('.sha256').textContent")
    assert "field name = Ada Lovelace" in received
    assert filename == "notes ünï.txt"
    assert int(size) == len(data)
    assert digest == hashlib.sha256(data).hexdigest()
