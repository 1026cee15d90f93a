"""What only one interface has: WSGI's start_response rules, ASGI's messages."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from wsgiref.validate import validator

import pytest

from sansio_http import App
from sansio_http.asgi._types import Message, Receive, Scope, Send
from sansio_http.testing import Client
from tests.asgi.checker import Checker

# -- WSGI --------------------------------------------------------------------------


def test_write_callable_and_lazy_start_response() -> None:
    def app(environ: Any, start_response: Any) -> Iterator[bytes]:
        write = start_response("201 Created", [("Content-Type", "text/plain")])
        write(b"written,")
        yield b""
        write(b"again,")
        yield b"yielded"

    response = Client(validator(app)).get("/")
    assert (response.status_code, response.reason) == (201, "Created")
    assert response.content == b"written,again,yielded"


def test_exc_info_replaces_the_headers_until_they_are_sent() -> None:
    def app(environ: Any, start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        try:
            raise ValueError("late")
        except ValueError:
            start_response("500 Oops", [("Content-Type", "text/plain")], sys.exc_info())
        return [b"error page"]

    response = Client(validator(app)).get("/")
    assert (response.status_code, response.reason, response.text) == (500, "Oops", "error page")


@pytest.mark.parametrize("mounted", [False, True], ids=["client", "bridge"])
def test_exc_info_may_come_by_keyword(mounted: bool) -> None:
    # gunicorn, wsgiref and the WSGI-in-ASGI bridge take exc_info= by keyword.
    def app(environ: Any, start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        try:
            raise ValueError("late")
        except ValueError:
            start_response("500 Oops", [("Content-Type", "text/plain")], exc_info=sys.exc_info())
        return [b"error page"]

    if mounted:
        outer = App()
        outer.mount("/legacy", app)
        response = Client(outer).get("/legacy/")
    else:
        response = Client(app).get("/")
    assert (response.status_code, response.text) == (500, "error page")


def test_exc_info_after_the_headers_were_sent_propagates() -> None:
    def app(environ: Any, start_response: Any) -> Iterator[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        yield b"partial"
        try:
            raise ValueError("too late")
        except ValueError:
            start_response("500 Oops", [("Content-Type", "text/plain")], sys.exc_info())
        yield b"never"  # pragma: no cover (start_response raised)

    with pytest.raises(ValueError, match="too late"):
        Client(app).get("/")


def test_start_response_misuse() -> None:
    def twice(environ: Any, start_response: Any) -> list[bytes]:
        start_response("200 OK", [])
        start_response("200 OK", [])
        return []  # pragma: no cover (start_response raised)

    def never(environ: Any, start_response: Any) -> list[bytes]:
        return [b"no status"]

    with pytest.raises(RuntimeError, match="twice without exc_info"):
        Client(twice).get("/")
    with pytest.raises(RuntimeError, match="without calling start_response"):
        Client(never).get("/")
    assert Client(never, raise_app_exceptions=False).get("/").status_code == 500


def test_streamed_wsgi_input_reads_lazily() -> None:
    pulled: list[bytes] = []

    def body() -> Iterator[bytes]:
        for piece in (b"ab", b"cd\nef", b"g"):
            pulled.append(piece)
            yield piece

    def app(environ: Any, start_response: Any) -> list[bytes]:
        stream = environ["wsgi.input"]
        first = stream.read(1)
        seen = len(pulled)
        line = stream.readline()
        rest = stream.read(100)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [f"{first!r} {seen} {line!r} {rest!r}".encode()]

    assert Client(validator(app)).post("/", content=body()).text == "b'a' 1 b'bcd\\n' b'efg'"


# -- ASGI --------------------------------------------------------------------------


def asgi(*messages: Message) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        for message in messages:
            await send(message)

    return app


START = {"type": "http.response.start", "status": 200, "headers": [(b"x-a", b"1")]}


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ([{"type": "http.response.body", "body": b"x"}], "before http.response.start"),
        ([START, START], "sent twice"),
        ([START, {"type": "http.response.body"}, {"type": "http.response.body"}], "after the"),
        ([START, {"type": "http.response.trailers"}], "unexpected ASGI message"),
        ([], "returned without starting a response"),
    ],
)
def test_asgi_protocol_errors_are_raised(messages: list[Message], error: str) -> None:
    with pytest.raises(RuntimeError, match=error):
        Client(asgi(*messages)).get("/")


def test_asgi_without_a_response_is_500_when_asked() -> None:
    response = Client(asgi(), raise_app_exceptions=False).get("/")
    assert response.status_code == 500


def test_pathsend_sends_the_file(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"file body")
    app = Checker(asgi(START, {"type": "http.response.pathsend", "path": str(path)}))
    client = Client(app)
    assert client.get("/").content == b"file body"
    assert client.head("/").content == b""
    assert app.violations == []


def test_scope_state_and_extensions() -> None:
    scopes: list[Scope] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await receive()
            scope["state"]["n"] = 1
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await send({"type": "lifespan.shutdown.complete"})
            return
        scopes.append(scope)
        scope["state"]["n"] += 1  # a copy: the next request still sees 1
        await send(START)
        await send({"type": "http.response.body"})

    with Client(app) as client:
        client.get("/")
        client.get("/")
    assert [scope["state"]["n"] for scope in scopes] == [2, 2]
    assert "http.response.pathsend" in scopes[0]["extensions"]
    assert scopes[0]["asgi"] == {"version": "3.0", "spec_version": "2.4"}


def test_background_work_after_the_response_finishes_first() -> None:
    done: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send(START)
        await send({"type": "http.response.body", "body": b"ok"})
        assert (await receive())["type"] == "http.request"
        assert (await receive())["type"] == "http.disconnect"
        done.append("background")

    assert Client(app).get("/").text == "ok"
    assert done == ["background"]


def test_pathsend_of_a_directory_cuts_the_response(tmp_path: Path) -> None:
    # A server opens the file after the head: one that cannot closes the
    # connection; the response is never a silent, empty 200.
    app = Checker(asgi(START, {"type": "http.response.pathsend", "path": str(tmp_path)}))
    with pytest.raises(RuntimeError, match="could not send the file") as caught:
        Client(app).get("/")
    assert isinstance(caught.value.__cause__, IsADirectoryError)
