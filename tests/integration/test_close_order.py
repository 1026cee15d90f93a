"""The close order under real servers: the producer's ``finally``, then the work.

Each server (gunicorn gthread, uvicorn, and the dev server in WSGI and ASGI
modes) runs :mod:`tests.integration.close_order_app` as a subprocess on a
free port of 127.0.0.1, one process per server for the whole module. An
httpx client reads the first event of a stream whose producer then blocks,
and leaves: the connection closes mid-stream. The producer's ``finally``
and the work of ``call_on_close`` each write a line with a monotonic time;
the test polls for both, within a bound, and the ``finally`` must come
first. A ``def`` producer blocked when the client leaves cannot be
interrupted, so its ``finally`` comes when it stops blocking, and the work
must wait for it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.app import servers
from tests.integration.close_order_app import BLOCK

pytestmark = pytest.mark.integration

MODULE = "tests.integration.close_order_app"
SERVERS = ["gunicorn", "uvicorn", "devserver-wsgi", "devserver-asgi"]
TIMEOUT = httpx.Timeout(10.0)
#: How long both lines may take to appear, past the producer's block; generous,
#: for a loaded machine: a server sees the client gone within a keep-alive or two.
BOUND = BLOCK + 10.0


@pytest.fixture(scope="module", params=SERVERS)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[servers.Server, Path]]:
    name: str = request.param
    directory = tmp_path_factory.mktemp(name)
    log = directory / "order.log"
    running = servers.start(
        name, MODULE, directory / "server.log", env={"CLOSE_ORDER_LOG": str(log)}
    )
    try:
        yield running, log
    finally:
        running.stop()


def noted(log: Path, tag: str) -> list[tuple[str, float]]:
    """Return ``(what, time)`` of the whole lines of ``tag`` in the log, in order."""
    if not log.exists():
        return []
    # A line still being written has no newline yet: it is left for the next look.
    lines = log.read_text(encoding="utf-8").split("\n")[:-1]
    return [
        (what, float(stamp))
        for what, line_tag, stamp in (line.split() for line in lines)
        if line_tag == tag
    ]


def wait_for_both(running: servers.Server, log: Path, tag: str) -> list[tuple[str, float]]:
    """Poll the log until ``tag`` has two lines; fail past :data:`BOUND` seconds."""
    deadline = time.monotonic() + BOUND
    while len(found := noted(log, tag)) < 2:
        if time.monotonic() > deadline:
            tail = running.log.read_text(errors="replace")[-2000:]
            pytest.fail(f"after {BOUND} s, {tag} noted only {found}; the server said:\n{tail}")
        time.sleep(0.05)
    return found


@pytest.mark.parametrize("encoding", ["identity", "gzip"])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_the_producer_is_closed_before_the_work_runs(
    server: tuple[servers.Server, Path], kind: str, encoding: str
) -> None:
    running, log = server
    tag = f"{kind}-{encoding}"
    headers = {"accept-encoding": encoding}
    with (
        httpx.Client(base_url=running.url, timeout=TIMEOUT) as client,
        client.stream("GET", f"/{kind}/events", params={"tag": tag}, headers=headers) as response,
    ):
        assert response.status_code == 200
        assert response.headers.get("content-encoding", "identity") == encoding
        received = b""
        for chunk in response.iter_bytes():  # decoded: gzip is inflated
            received += chunk
            if b"\n\n" in received:
                break
        assert received.startswith(b"id: 1\ndata: first\n\n")
    # Leaving the blocks closed the connection while the producer blocks.
    (first, first_at), (second, second_at) = wait_for_both(running, log, tag)
    assert (first, second) == ("finally", "work")
    assert first_at <= second_at
