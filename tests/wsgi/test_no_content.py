"""A 1xx, 204 or 304 response, or an answer to HEAD, goes out without content.

RFC 9110 §15.3.5 and §15.4.5: a 204 or 304 ends with its head; bytes sent
after it would be read as the start of the next response on a keep-alive
connection. The core refuses such content, so these responses get past it
the way a subclass would (``ForcedStatus``): the adapter alone must send no
content and no Content-Length, and still close the body exactly once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sansio_http import App
from sansio_http.messages._files import FileBody
from sansio_http.messages._response import Response
from sansio_http.testing import Client
from sansio_http.wsgi import WSGIRequest, to_wsgi, wsgi_app
from tests.integration.forced_status import AsyncChunks, Chunks, with_status

from .conftest import Result, make_environ, run

NO_CONTENT = [204, 304]


def serve(response: Response, method: str = "GET", *, validate: bool = True) -> Result:
    def handler(request: WSGIRequest) -> Response:
        return response

    if validate:
        return run(wsgi_app(handler), make_environ(method))
    # wsgiref.validate wants a Content-Type on every status but 204 and 304,
    # so a 1xx, which has none, is called without it.
    calls: list[tuple[str, list[tuple[str, str]]]] = []

    def start_response(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
        calls.append((status, headers))

    iterable = wsgi_app(handler)(make_environ(method), start_response)
    try:
        body = b"".join(iterable)
    finally:
        close = getattr(iterable, "close", None)
        if close is not None:
            close()
    status, headers = calls[-1]
    return Result(status, headers, body)


def check_head(result: Result, status: int) -> None:
    """Assert the framing fields RFC 9110 §8.6 allows for ``status``."""
    assert result.status_code == status
    assert result.body == b""
    # RFC 9110 §8.6 lets a 304 keep the 200's length, but the one the response
    # holds is its own body's: it goes, as uvicorn's httptools mode would wait
    # for that much content.
    assert result.header("content-length") is None
    assert result.header("transfer-encoding") is None


@pytest.mark.parametrize("status", NO_CONTENT)
def test_bytes_are_not_sent(status: int) -> None:
    check_head(serve(with_status(b"test", status)), status)


@pytest.mark.parametrize("status", [100, 103])
def test_a_1xx_has_neither_content_nor_length(status: int) -> None:
    check_head(serve(with_status(b"test", status), validate=False), status)


@pytest.mark.parametrize("status", NO_CONTENT)
def test_a_stream_is_closed_once_and_never_iterated(status: int) -> None:
    body = Chunks()
    check_head(serve(with_status(body, status, 4)), status)
    assert (body.iterated, body.closed) == (0, 1)


@pytest.mark.parametrize("status", NO_CONTENT)
def test_an_async_stream_is_closed_once_and_never_iterated(status: int) -> None:
    body = AsyncChunks()
    check_head(serve(with_status(body, status, 4)), status)
    assert (body.iterated, body.closed) == (0, 1)


def test_head_closes_an_async_stream_once() -> None:
    # It used to be dropped unclosed: only a never-started async generator
    # can do without its aclose().
    body = AsyncChunks()
    result = serve(with_status(body, 200, 4), "HEAD")
    assert (result.status_code, result.body, result.header("content-length")) == (200, b"", "4")
    assert (body.iterated, body.closed) == (0, 1)


@pytest.mark.parametrize("status", NO_CONTENT)
def test_a_file_is_never_opened(
    status: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(b"test")
    opened: list[Any] = []
    real_open = open

    def recording_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", recording_open)
    check_head(serve(with_status(FileBody(path), status)), status)
    assert path not in opened


@pytest.mark.parametrize("status", NO_CONTENT)
def test_the_test_client_reads_no_content(status: int) -> None:
    body = Chunks()
    app = App()
    app.get("/")(lambda request: with_status(body, status, 4))
    with Client(to_wsgi(app)) as client:
        response = client.get("/")
    assert (response.status_code, response.content) == (status, b"")
    assert (body.iterated, body.closed) == (0, 1)


@pytest.mark.parametrize("status", NO_CONTENT)
def test_the_test_client_drops_what_a_foreign_app_sends(status: int) -> None:
    # A client stops reading at the end of the head (RFC 9112 §6.3), so the
    # test client shows what any client would: no content.
    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response(f"{status} X", [("Content-Length", "4")])
        return [b"test"]

    with Client(app) as client:
        response = client.get("/")
    assert (response.status_code, response.content) == (status, b"")
