"""A 1xx, 204 or 304 response goes out without content or framing fields.

RFC 9110 §15.3.5 and §15.4.5: a 204 or 304 ends with its head. Under uvicorn
(h11) content after it raised "Too much data for declared Content-Length"
and lost the next request on the connection; under httptools it was sent,
to be read as the next response. The core refuses such content, so these
responses get past it the way a subclass would (``ForcedStatus``): the
adapter alone must send no content and no Content-Length, and still close
the body exactly once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sansio_http import App
from sansio_http.asgi import ASGIRequest, asgi_app, to_asgi
from sansio_http.asgi._types import Message, Receive, Scope, Send
from sansio_http.messages._files import FileBody
from sansio_http.messages._response import Response
from sansio_http.testing import Client
from tests.asgi.checker import HTTPResult, request, run
from tests.integration.forced_status import AsyncChunks, Chunks, with_status

NO_CONTENT = [204, 304]


def serve(response: Response, method: str = "GET") -> HTTPResult:
    async def handler(req: ASGIRequest) -> Response:
        return response

    return run(request(asgi_app(handler), method))


def check(result: HTTPResult, status: int) -> None:
    """Assert no content, and the framing fields RFC 9110 §8.6 allows."""
    assert result.status == status
    bodies = [m for m in result.messages if m["type"] == "http.response.body"]
    assert [(m.get("body", b""), m.get("more_body", False)) for m in bodies] == [(b"", False)]
    # RFC 9110 §8.6 lets a 304 keep the 200's length, but the one the response
    # holds is its own body's: it goes, as uvicorn's httptools mode would wait
    # for that much content.
    assert result.header("content-length") is None
    assert result.header("transfer-encoding") is None


@pytest.mark.parametrize("status", [*NO_CONTENT, 100, 103])
def test_bytes_are_not_sent(status: int) -> None:
    check(serve(with_status(b"test", status)), status)


def test_a_204_drops_a_transfer_encoding_too() -> None:
    response = with_status(b"test", 204)
    response.headers["transfer-encoding"] = "chunked"
    check(serve(response), 204)


@pytest.mark.parametrize("status", NO_CONTENT)
def test_a_stream_is_closed_once_and_never_iterated(status: int) -> None:
    body = Chunks()
    check(serve(with_status(body, status, 4)), status)
    assert (body.iterated, body.closed) == (0, 1)


@pytest.mark.parametrize("status", NO_CONTENT)
def test_an_async_stream_is_closed_once_and_never_iterated(status: int) -> None:
    body = AsyncChunks()
    check(serve(with_status(body, status, 4)), status)
    assert (body.iterated, body.closed) == (0, 1)


@pytest.mark.parametrize("status", NO_CONTENT)
def test_a_file_is_neither_read_nor_sent_by_path(status: int, tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(b"test")

    async def handler(req: ASGIRequest) -> Response:
        return with_status(FileBody(path), status)

    extensions: dict[str, Any] = {"http.response.pathsend": {}}
    result = run(request(asgi_app(handler), extensions=extensions))
    check(result, status)
    assert not [m for m in result.messages if m["type"] == "http.response.pathsend"]


@pytest.mark.parametrize("status", NO_CONTENT)
def test_the_test_client_reads_no_content(status: int) -> None:
    body = AsyncChunks()
    app = App()
    app.get("/")(lambda request: with_status(body, status, 4))
    with Client(to_asgi(app)) as client:
        response = client.get("/")
    assert (response.status_code, response.content) == (status, b"")
    assert (body.iterated, body.closed) == (0, 1)


@pytest.mark.parametrize("status", NO_CONTENT)
def test_the_test_client_drops_what_a_foreign_app_sends(status: int) -> None:
    # A client stops reading at the end of the head (RFC 9112 §6.3), so the
    # test client shows what any client would: no content.
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise ValueError("no lifespan")
        headers = [(b"content-length", b"4")]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"test"})

    with Client(app) as client:
        response = client.get("/")
    assert (response.status_code, response.content) == (status, b"")


def test_a_pathsend_of_a_foreign_204_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(b"test")
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise ValueError("no lifespan")
        messages: list[Message] = [
            {"type": "http.response.start", "status": 204, "headers": []},
            {"type": "http.response.pathsend", "path": str(path)},
        ]
        for message in messages:
            sent.append(message)
            await send(message)

    with Client(app) as client:
        response = client.get("/")
    assert (response.status_code, response.content) == (204, b"")
    assert len(sent) == 2
