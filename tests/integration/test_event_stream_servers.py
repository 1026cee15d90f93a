"""Server-sent events through real servers: dev server, gunicorn, uvicorn, hypercorn.

Each server runs the App of :mod:`tests.app.test_event_stream` (one view
source, ``def`` and ``async def`` producers) as a subprocess on a free port
of 127.0.0.1, one process per server for the whole module. An httpx client
reads the raw bytes as they arrive: the first event must come while the
producer is still waiting for the test's gate, keep-alives while it is idle,
and a client that leaves must get the producer closed, its ``finally``
noted in a file, within a bound.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sansio_http import ServerSentEvent
from sansio_http.messages._events import MAX_LAST_EVENT_ID
from tests.app import servers
from tests.app.test_event_stream import KEEPALIVE, marks
from tests.messages.test_events import StreamState, parse_stream

pytestmark = pytest.mark.integration

MODULE = "tests.app.test_event_stream"
SERVERS = ["devserver-wsgi", "devserver-asgi", "gunicorn", "uvicorn", "hypercorn"]
KINDS = ["sync", "async"]
TIMEOUT = httpx.Timeout(10.0)
#: NOTE: generous, for a busy machine: the producer of /forever writes every
#: 20 ms, and a server sees the client gone at the next write or at once.
CLOSE_BOUND = 30.0


def _start_hypercorn(log: Path) -> servers.Server:
    port = servers.free_port()
    command = [
        sys.executable, "-m", "hypercorn", f"{MODULE}:asgi_application",
        "--bind", f"127.0.0.1:{port}",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=servers.ROOT, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + servers.STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"hypercorn exited at startup:\n{log.read_text(errors='replace')}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/last-event-id", timeout=0.5)
            return servers.Server(process, log, f"http://127.0.0.1:{port}")
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    pytest.fail("hypercorn did not listen in time")


@pytest.fixture(scope="module", params=SERVERS)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[servers.Server]:
    name: str = request.param
    log = tmp_path_factory.mktemp(name) / "server.log"
    running = _start_hypercorn(log) if name == "hypercorn" else servers.start(name, MODULE, log)
    try:
        yield running
    finally:
        running.stop()


class Reader:
    """The bytes of a streamed response, read up to a marker as they come."""

    def __init__(self, response: httpx.Response) -> None:
        self._raw = response.iter_raw()
        self.buffer = b""

    def until(self, marker: bytes) -> bytes:
        """Read until ``marker`` has arrived; return everything before and with it."""
        while marker not in self.buffer:
            self.buffer += next(self._raw)
        head, _, self.buffer = self.buffer.partition(marker)
        return head + marker

    def rest(self) -> bytes:
        data = self.buffer + b"".join(self._raw)
        self.buffer = b""
        return data


def event(ident: int) -> bytes:
    return f"id: {ident}\ndata: token {ident}\n\n".encode()


def wait_for(path: Path, what: str, bound: float) -> float | None:
    """Return the seconds until ``what`` is noted in ``path``, or None past ``bound``."""
    began = time.monotonic()
    while time.monotonic() - began < bound:
        if what in marks(path):
            return time.monotonic() - began
        time.sleep(0.01)
    return None


@pytest.mark.parametrize("kind", KINDS)
def test_events_arrive_one_by_one_with_keepalives_while_idle(
    server: servers.Server, kind: str, tmp_path: Path
) -> None:
    mark, gate = tmp_path / "mark", tmp_path / "gate"
    params = {"count": "3", "mark": str(mark), "gate": str(gate)}
    with (
        httpx.Client(base_url=server.url, timeout=TIMEOUT) as client,
        client.stream("GET", f"/{kind}/tokens", params=params) as response,
    ):
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
        reader = Reader(response)
        assert reader.until(b"\n\n") == event(1)
        # The producer waits for the gate: the event came before its end.
        assert "end" not in marks(mark)
        # Idle: keep-alives, and nothing else, until the gate opens.
        assert reader.until(b"\n\n") == KEEPALIVE
        gate.touch()
        rest = reader.rest()
    assert rest.replace(KEEPALIVE, b"") == event(2) + event(3)
    assert wait_for(mark, "finally", CLOSE_BOUND) is not None


@pytest.mark.parametrize("kind", KINDS)
def test_a_client_that_leaves_gets_the_producer_closed(
    server: servers.Server, kind: str, tmp_path: Path
) -> None:
    mark = tmp_path / "mark"
    with (
        httpx.Client(base_url=server.url, timeout=TIMEOUT) as client,
        client.stream("GET", f"/{kind}/forever", params={"mark": str(mark)}) as response,
    ):
        assert Reader(response).until(b"\n\n") == b"id: 1\ndata: tick 1\n\n"
    # Leaving the blocks closed the connection mid-stream.
    latency = wait_for(mark, "finally", CLOSE_BOUND)
    assert latency is not None, f"the producer was not closed:\n{server.log.read_text()[-2000:]}"


@pytest.mark.parametrize("kind", KINDS)
def test_a_producer_that_fails_ends_the_stream_and_is_logged(
    server: servers.Server, kind: str, tmp_path: Path
) -> None:
    mark = tmp_path / "mark"
    received = b""
    with (
        httpx.Client(base_url=server.url, timeout=TIMEOUT) as client,
        client.stream("GET", f"/{kind}/fails", params={"mark": str(mark)}) as response,
    ):
        assert response.status_code == 200
        # The body ends (cleanly or cut): never a read timeout.
        try:
            for chunk in response.iter_raw():
                received += chunk
        except httpx.RemoteProtocolError:
            pass
    assert received == b"data: first\n\n"
    assert wait_for(mark, "finally", CLOSE_BOUND) is not None
    deadline = time.monotonic() + CLOSE_BOUND
    while "the producer failed" not in server.log.read_text(errors="replace"):
        assert time.monotonic() < deadline, server.log.read_text(errors="replace")[-2000:]
        time.sleep(0.05)


def test_a_bad_last_event_id_is_refused(server: servers.Server) -> None:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as client:
        assert client.get("/last-event-id", headers={"last-event-id": "41"}).json() == {
            "last_event_id": "41"
        }
        long = client.get("/last-event-id", headers={"last-event-id": "x" * 10_240})
        # gunicorn refuses a field over 8190 bytes itself (431); the others
        # pass it on, and the request reads no id from it.
        if long.status_code == 200:
            assert long.json() == {"last_event_id": None}
        else:
            assert long.status_code == 431
            assert "xxxx" not in long.text
        resumed = client.get("/sync/tokens", headers={"last-event-id": "41"})
        assert resumed.content == event(42) + event(43) + event(44)


@pytest.mark.parametrize(
    "ident",
    ["41", "a b", "résumé", "a:b;c=d,e\"f'g", "\u0080\u00ff\u2028", "x" * MAX_LAST_EVENT_ID],
)
def test_an_event_id_comes_back_from_the_reconnect(server: servers.Server, ident: str) -> None:
    # What the browser remembers of the event, and sends back as UTF-8.
    state = StreamState()
    parse_stream(ServerSentEvent("x", id=ident).encode(), state)
    assert state.last_event_id == ident
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as client:
        response = client.get("/last-event-id", headers=[(b"last-event-id", ident.encode())])
    assert response.status_code == 200
    assert response.json() == {"last_event_id": ident}
