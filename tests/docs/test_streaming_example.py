"""The streaming example: tokens as server-sent events, under WSGI and ASGI.

Each test runs through ``wsgi_application`` (inside ``wsgiref.validate``) and
``asgi_application`` with the in-process test client, the tokens without
their delay.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from wsgiref.validate import validator

import pytest

from examples import streaming
from sansio_http.testing import Client


@pytest.fixture(params=["wsgi", "asgi"])
def client(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Client]:
    monkeypatch.setattr(streaming, "DELAY", 0.0)
    streaming.SENT.clear()
    if request.param == "wsgi":
        yield Client(validator(streaming.wsgi_application), interface="wsgi")
    else:
        yield Client(streaming.asgi_application, interface="asgi")


def events(body: bytes) -> list[dict[str, Any]]:
    """Read the events of a stream as ``{field: value}``, data parsed as JSON."""
    found = []
    for block in body.decode().split("\n\n"):
        if not block:
            continue
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        if "data" in fields:
            fields["data"] = json.loads(fields["data"])
        found.append(fields)
    return found


def test_the_page_opens_an_event_source(client: Client) -> None:
    response = client.get("/")
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "new EventSource(url)" in response.text
    assert 'ask("/tokens")' in response.text
    assert 'ask("/tokens/sync")' in response.text


@pytest.mark.parametrize("path", ["/tokens", "/tokens/sync"])
def test_the_answer_streams_token_by_token(client: Client, path: str) -> None:
    first = b'retry: 1000\n\nevent: token\nid: 0\ndata: {"text":"Server-sent"}\n\n'
    with client.stream("GET", path) as response:
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
        chunks = response.iter_bytes()
        # NOTE: how the events are cut into chunks depends on the scheduler:
        # under WSGI a def producer runs ahead, and what it made meanwhile
        # goes out as one chunk.
        received = b""
        while len(received) < len(first):
            received += next(chunks)
        assert received.startswith(first)
        rest = events(received[len(first) :] + b"".join(chunks))
    tokens = [event["data"]["text"] for event in rest if event["event"] == "token"]
    assert ["Server-sent", *tokens] == streaming.ANSWER
    assert rest[-1] == {"event": "done", "data": {"tokens": len(streaming.ANSWER)}}


@pytest.mark.parametrize("path", ["/tokens", "/tokens/sync"])
def test_a_reconnection_resumes_after_last_event_id(client: Client, path: str) -> None:
    body = client.get(path, headers={"last-event-id": "20"}).content
    sent = [event for event in events(body) if event.get("event") == "token"]
    assert [int(event["id"]) for event in sent] == list(range(21, len(streaming.ANSWER)))


def test_a_bad_last_event_id_starts_over(client: Client) -> None:
    body = client.get("/tokens", headers={"last-event-id": "x" * 10_240}).content
    assert events(body)[1]["id"] == "0"


@pytest.mark.parametrize(("path", "kind"), [("/tokens", "async"), ("/tokens/sync", "sync")])
def test_a_record_is_written_after_the_stream(client: Client, path: str, kind: str) -> None:
    client.get(path, headers={"last-event-id": "3"})
    assert streaming.SENT == [
        {"producer": kind, "first_id": 4, "last_id": len(streaming.ANSWER) - 1, "complete": True}
    ]


def test_a_stream_cut_short_is_recorded_too(client: Client) -> None:
    with client.stream("GET", "/tokens") as response:
        chunks = response.iter_bytes()
        next(chunks)
        next(chunks)
        assert streaming.SENT == []
    (record,) = streaming.SENT
    assert "complete" not in record
    assert record["last_id"] in (0, 1)
