"""Server-sent events in a real browser: headless Chromium's ``EventSource``.

uvicorn serves :mod:`tests.app.test_event_stream`. Its page opens an
``EventSource`` on a stream of three events that then ends, with a
reconnection delay of 100 ms: the browser reconnects by itself, sends the
last id it got as ``Last-Event-ID``, and the stream resumes after it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.app.servers import Server, start
from tests.integration.browser import Browser, available

pytestmark = [
    pytest.mark.integration,
    pytest.mark.browser,
    pytest.mark.skipif(not available(), reason="needs /usr/bin/chromium"),
]

MODULE = "tests.app.test_event_stream"
TIMEOUT = 15.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start("uvicorn", MODULE, tmp_path_factory.mktemp("sse") / "uvicorn.log")
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as running:
        yield running


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_event_source_receives_the_events_and_resumes_after_last_event_id(
    server: Server, browser: Browser, kind: str
) -> None:
    browser.open(f"{server.url}/{kind}/page")
    deadline = time.monotonic() + TIMEOUT
    received: list[list[str]] = []
    while time.monotonic() < deadline:
        received = json.loads(browser.evaluate("JSON.stringify(window.received)"))
        if len(received) >= 6:
            break
        time.sleep(0.05)
    # Three events per connection: the second began after id 3, not over.
    assert received[:6] == [[f"token {n}", str(n)] for n in range(1, 7)]
    assert browser.evaluate("window.opened") >= 2
