"""Building a small text response and serialising its head, next to Werkzeug and Starlette.

Each benchmark builds the response a view returns for ``"hello"`` and produces what an
adapter sends: the status and the header fields. Werkzeug's sans-IO response holds no body,
so it is given the length of the encoded body, as its WSGI wrapper would do.
"""

from __future__ import annotations

import starlette.responses
import werkzeug.sansio.response
from pytest_benchmark.fixture import BenchmarkFixture

from sansio_http import JSONResponse, Response

TEXT = "hello"
CONTENT_TYPE = "text/plain; charset=utf-8"


def hello_ours() -> tuple[str, list[tuple[bytes, bytes]]]:
    response = Response(TEXT)
    return response.status_line, response.raw_headers()


def hello_werkzeug() -> tuple[str, list[tuple[str, str]]]:
    body = TEXT.encode()
    response = werkzeug.sansio.response.Response(mimetype="text/plain")
    response.content_length = len(body)
    return response.status, response.headers.to_wsgi_list()


def hello_starlette() -> tuple[int, list[tuple[bytes, bytes]]]:
    response = starlette.responses.Response(TEXT, media_type="text/plain")
    return response.status_code, response.raw_headers


def test_hello_sansio_http(benchmark: BenchmarkFixture) -> None:
    # PERF: the target is to be at least as fast as the faster of the two peers below.
    assert benchmark(hello_ours) == (
        "200 OK",
        [(b"content-type", CONTENT_TYPE.encode()), (b"content-length", b"5")],
    )


def test_hello_werkzeug(benchmark: BenchmarkFixture) -> None:
    assert benchmark(hello_werkzeug) == (
        "200 OK",
        [("Content-Type", CONTENT_TYPE), ("Content-Length", "5")],
    )


def test_hello_starlette(benchmark: BenchmarkFixture) -> None:
    assert benchmark(hello_starlette) == (
        200,
        [(b"content-length", b"5"), (b"content-type", CONTENT_TYPE.encode())],
    )


PAYLOAD = {"id": 42, "name": "Zoë", "tags": ["a", "b"], "active": True}
PAYLOAD_JSON = '{"id":42,"name":"Zoë","tags":["a","b"],"active":true}'.encode()


def json_ours() -> tuple[bytes, list[tuple[bytes, bytes]]]:
    response = JSONResponse(PAYLOAD)
    assert isinstance(response.body, bytes)
    return response.body, response.raw_headers()


def json_starlette() -> tuple[bytes, list[tuple[bytes, bytes]]]:
    response = starlette.responses.JSONResponse(PAYLOAD)
    return bytes(response.body), response.raw_headers


def test_json_sansio_http(benchmark: BenchmarkFixture) -> None:
    body, headers = benchmark(json_ours)
    assert body == PAYLOAD_JSON
    assert headers == [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(PAYLOAD_JSON)).encode()),
    ]


def test_json_starlette(benchmark: BenchmarkFixture) -> None:
    body, headers = benchmark(json_starlette)
    assert body == PAYLOAD_JSON
    assert dict(headers)[b"content-length"] == str(len(PAYLOAD_JSON)).encode()
