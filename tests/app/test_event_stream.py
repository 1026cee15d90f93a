"""Server-sent events from one view source, under ``to_wsgi`` and ``to_asgi``.

The App below is the one source: each stream comes from a ``def`` producer
(``/sync/...``) and an ``async def`` one (``/async/...``), and both are driven
through the test client under either interface. The real servers of
``tests/integration/test_event_stream_servers.py`` and the browser of
``test_event_stream_browser.py`` run this same module
(``wsgi_application`` and ``asgi_application``).

A producer notes what it does in the file named by its ``mark`` query
argument (``start``, ``sent <id>``, ``end``, ``finally``), so that a test
sees how far it got and whether its ``finally`` ran; one that waits does so
until the file named by ``gate`` exists, so that no test depends on timing.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from sansio_http import App, EventStream, GZipMiddleware, Request, Response, ServerSentEvent
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client
from sansio_http.wsgi import to_wsgi

#: The keep-alive interval of the streams that wait: short, so a test sees one.
IDLE = 0.1
#: How long a producer waits for its gate before it gives up.
GATE_TIMEOUT = 10.0
KEEPALIVE = b": keep-alive\n\n"

app = App("events")
app.add_middleware(GZipMiddleware(minimum_size=0))


def note(mark: str | None, what: str) -> None:
    if mark:
        with open(mark, "a", encoding="utf-8") as file:
            file.write(what + "\n")


def marks(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split() if path.exists() else []


def marks_once(path: Path, what: str, bound: float = GATE_TIMEOUT) -> list[str]:
    """Return the marks once ``what`` is among them, polling for ``bound`` s at most.

    NOTE: under WSGI a ``def`` producer busy in its helper thread when the
    client leaves is closed when its step returns, after ``close()`` did.
    """
    deadline = time.monotonic() + bound
    while what not in (noted := marks(path)):
        assert time.monotonic() < deadline, f"no {what!r} after {bound} s: {noted}"
        time.sleep(0.01)
    return noted


def _gate_open(gate: str | None) -> bool:
    return gate is None or Path(gate).exists()


# -- the producers, each as def and async def ---------------------------------------------


def sync_tokens(
    start: int, count: int, mark: str | None, gate: str | None, retry: int | None = None
) -> Iterator[Any]:
    """Send ``count`` events after ``start``; wait for the gate before the second."""
    note(mark, "start")
    try:
        if retry is not None:
            yield ServerSentEvent(retry=retry)
        for ident in range(start + 1, start + count + 1):
            if ident == start + 2:
                deadline = time.monotonic() + GATE_TIMEOUT
                while not _gate_open(gate) and time.monotonic() < deadline:
                    time.sleep(0.01)
            yield ServerSentEvent(f"token {ident}", id=ident)
            note(mark, f"sent-{ident}")
        note(mark, "end")
    finally:
        note(mark, "finally")


async def async_tokens(
    start: int, count: int, mark: str | None, gate: str | None, retry: int | None = None
) -> AsyncIterator[Any]:
    """The same as :func:`sync_tokens`, from an ``async def`` generator."""
    note(mark, "start")
    try:
        if retry is not None:
            yield ServerSentEvent(retry=retry)
        for ident in range(start + 1, start + count + 1):
            if ident == start + 2:
                deadline = time.monotonic() + GATE_TIMEOUT
                while not _gate_open(gate) and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
            yield ServerSentEvent(f"token {ident}", id=ident)
            note(mark, f"sent-{ident}")
        note(mark, "end")
    finally:
        note(mark, "finally")


def sync_forever(mark: str | None) -> Iterator[Any]:
    """Send an event every 20 ms until closed."""
    note(mark, "start")
    try:
        for ident in range(1, 100_000):
            yield ServerSentEvent(f"tick {ident}", id=ident)
            time.sleep(0.02)
    finally:
        note(mark, "finally")


async def async_forever(mark: str | None) -> AsyncIterator[Any]:
    note(mark, "start")
    try:
        for ident in range(1, 100_000):
            yield ServerSentEvent(f"tick {ident}", id=ident)
            await asyncio.sleep(0.02)
    finally:
        note(mark, "finally")


def sync_failing(mark: str | None, item: Any) -> Iterator[Any]:
    """Send one event, then fail: raise, or yield an unsupported ``item``."""
    try:
        yield "first"
        if item is None:
            raise RuntimeError("the producer failed")
        yield item
    finally:
        note(mark, "finally")


async def async_failing(mark: str | None, item: Any) -> AsyncIterator[Any]:
    try:
        yield "first"
        if item is None:
            raise RuntimeError("the producer failed")
        yield item
    finally:
        note(mark, "finally")


def _int(request: Request, name: str, default: int) -> int:
    value = request.args.get(name, "")
    return int(value) if value.isdigit() else default


def _start(request: Request) -> int:
    last = request.last_event_id
    return int(last) if last is not None and last.isdigit() else 0


@app.get("/<kind>/tokens")
def tokens(request: Request, kind: str) -> Response:
    """Send ``count`` tokens, resuming after Last-Event-ID."""
    producer = sync_tokens if kind == "sync" else async_tokens
    events = producer(
        _start(request),
        _int(request, "count", 3),
        request.args.get("mark"),
        request.args.get("gate"),
        _int(request, "retry", -1) if "retry" in request.args else None,
    )
    interval = IDLE if "gate" in request.args else None
    return EventStream(events, keepalive_interval=interval)


@app.get("/<kind>/gzipped")
def gzipped(request: Request, kind: str) -> Response:
    """The tokens, with the Cache-Control that lets GZipMiddleware compress them."""
    response = tokens(request, kind)
    response.headers["cache-control"] = "no-cache"
    return response


@app.get("/<kind>/forever")
def forever(request: Request, kind: str) -> Response:
    """Send ticks until the client goes away."""
    mark = request.args.get("mark")
    return EventStream(sync_forever(mark) if kind == "sync" else async_forever(mark))


@app.get("/<kind>/fails")
def fails(request: Request, kind: str) -> Response:
    """Send one event, then raise (or, with ``?item=bytes``, yield bytes)."""
    item = b"raw bytes" if request.args.get("item") == "bytes" else None
    mark = request.args.get("mark")
    return EventStream(sync_failing(mark, item) if kind == "sync" else async_failing(mark, item))


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>events</title></head>
<body><script>
window.received = [];
window.opened = 0;
const source = new EventSource("/%s/tokens?count=3&retry=100");
source.onopen = () => { window.opened += 1; };
source.onmessage = (event) => {
  window.received.push([event.data, event.lastEventId]);
  if (window.received.length >= 6) source.close();
};
</script></body></html>
"""


@app.get("/<kind>/page")
def page(request: Request, kind: str) -> Response:
    """A page whose EventSource reads /<kind>/tokens and reconnects after each end."""
    return Response(PAGE % kind, content_type="text/html")


@app.get("/last-event-id")
def last_event_id(request: Request) -> dict[str, Any]:
    """Tell what the request's Last-Event-ID reads as."""
    return {"last_event_id": request.last_event_id}


wsgi_application = to_wsgi(app)
asgi_application = to_asgi(app)


# -- the tests ----------------------------------------------------------------------------

Interface = Literal["wsgi", "asgi"]
KINDS = ["sync", "async"]


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    value: Interface = request.param
    return value


@pytest.fixture
def client(interface: Interface) -> Client:
    return Client(app, interface=interface)


def event(ident: int) -> bytes:
    return f"id: {ident}\ndata: token {ident}\n\n".encode()


@pytest.mark.parametrize("kind", KINDS)
def test_events_arrive_one_by_one_the_first_before_the_producer_ends(
    client: Client, kind: str, tmp_path: Path
) -> None:
    mark = tmp_path / "mark"
    with client.stream("GET", f"/{kind}/tokens", params={"count": "3", "mark": str(mark)}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert r.headers["cache-control"] == "no-cache, no-transform"
        assert r.headers["x-accel-buffering"] == "no"
        chunks = r.iter_bytes()
        assert next(chunks) == event(1)
        # The first event is out while the producer has not gone past it.
        assert "end" not in marks(mark)
        assert list(chunks) == [event(2), event(3)]
    assert marks(mark) == ["start", "sent-1", "sent-2", "sent-3", "end", "finally"]


@pytest.mark.parametrize("kind", KINDS)
def test_gzip_leaves_the_events_as_they_are(client: Client, kind: str) -> None:
    response = client.get(f"/{kind}/tokens", headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in response.headers
    assert response.content == event(1) + event(2) + event(3)


@pytest.mark.parametrize("kind", KINDS)
def test_gzipped_events_and_keepalives_still_arrive_one_by_one(
    client: Client, kind: str, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    params = {"count": "3", "gate": str(gate)}
    headers = {"accept-encoding": "gzip"}
    inflate = zlib.decompressobj(wbits=31)
    with client.stream("GET", f"/{kind}/gzipped", params=params, headers=headers) as response:
        assert response.headers["content-encoding"] == "gzip"
        chunks = response.iter_raw()
        # Each chunk inflates on its own to the whole event: nothing is held back.
        assert inflate.decompress(next(chunks)) == event(1)
        assert inflate.decompress(next(chunks)) == KEEPALIVE
        gate.touch()
        rest = b"".join(inflate.decompress(chunk) for chunk in chunks)
    assert inflate.eof
    assert rest.replace(KEEPALIVE, b"") == event(2) + event(3)


@pytest.mark.parametrize("kind", KINDS)
def test_keepalives_are_sent_while_the_producer_is_idle(
    client: Client, kind: str, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    params = {"count": "2", "gate": str(gate)}
    with client.stream("GET", f"/{kind}/tokens", params=params) as response:
        chunks = response.iter_bytes()
        assert next(chunks) == event(1)
        # The producer waits for the gate, for ten seconds at most: what
        # comes now is a keep-alive, not the next event or the end.
        assert next(chunks) == KEEPALIVE
        gate.touch()
        rest = list(chunks)
    assert rest[-1] == event(2)
    assert set(rest[:-1]) <= {KEEPALIVE}


@pytest.mark.parametrize("kind", KINDS)
def test_the_stream_resumes_after_last_event_id(client: Client, kind: str) -> None:
    response = client.get(f"/{kind}/tokens", headers={"last-event-id": "7"})
    assert response.content == event(8) + event(9) + event(10)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("42", "42"),
        ("r\xc3\xa9sum\xc3\xa9", "résumé"),  # UTF-8, as the browser sends it
        ("x" * 10_240, None),
        ("x" * 1025, None),
        ("\xff", None),
    ],
)
def test_last_event_id_is_readable_and_bad_values_are_none(
    client: Client, value: str, expected: str | None
) -> None:
    response = client.get("/last-event-id", headers={"last-event-id": value})
    assert response.json() == {"last_event_id": expected}
    # A refused id is never echoed: the stream starts from the beginning.
    if expected is None:
        assert client.get("/sync/tokens", headers={"last-event-id": value}).content.startswith(
            event(1)
        )


@pytest.mark.parametrize("kind", KINDS)
def test_a_client_that_leaves_gets_the_producer_closed(
    client: Client, kind: str, tmp_path: Path
) -> None:
    mark = tmp_path / "mark"
    with client.stream("GET", f"/{kind}/forever", params={"mark": str(mark)}) as response:
        chunks = response.iter_bytes()
        assert next(chunks) == b"id: 1\ndata: tick 1\n\n"
    assert marks_once(mark, "finally") == ["start", "finally"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("item", ["", "bytes"])
def test_a_producer_that_fails_mid_stream_ends_the_stream(
    interface: Interface, kind: str, item: str, tmp_path: Path
) -> None:
    mark = tmp_path / "mark"
    params = {"mark": str(mark), "item": item}
    client = Client(app, interface=interface, raise_app_exceptions=False)
    with client.stream("GET", f"/{kind}/fails", params=params) as response:
        assert response.status_code == 200
        # The event made before the failure arrives; then the body ends.
        assert list(response.iter_bytes()) == [b"data: first\n\n"]
    assert marks(mark) == ["finally"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_failure_reaches_the_test_client(interface: Interface, kind: str) -> None:
    client = Client(app, interface=interface)
    with client.stream("GET", f"/{kind}/fails", params={"item": "bytes"}) as response:
        chunks = response.iter_bytes()
        assert next(chunks) == b"data: first\n\n"
        with pytest.raises(TypeError, match="not bytes"):
            next(chunks)


@pytest.mark.parametrize("kind", KINDS)
def test_head_closes_the_producer_unread(client: Client, kind: str, tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    response = client.head(f"/{kind}/forever", params={"mark": str(mark)})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.content == b""
    assert "tick" not in "".join(marks(mark))
